"""`extrembench audit --benchmark B --model M`: the lineage of one published accuracy, rechecked.

Walks leaderboard row ← grade files ← generation files and their cache entries ← problem tables
← problem files (with the git commit that last touched each), recomputing every sha256 recorded
in the artifacts' lineage metadata. Exit 0 when everything matches; otherwise exit 1 and name
each file that changed or went missing.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from extrembench.artifacts import read_lineage, read_metadata, sha256_file
from extrembench.generation.cache import GenerationCache
from extrembench.provenance import file_commit, inputs_hash


@dataclass
class AuditReport:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    checked: set[str] = field(default_factory=set)

    def say(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def fail(self, depth: int, text: str) -> None:
        self.say(depth, "FAIL " + text)
        self.problems.append(text)


def _is_artifact(path: Path) -> bool:
    return path.suffix == ".parquet"


def _check_file(path: Path, expected: str, depth: int, report: AuditReport) -> bool:
    if not path.exists():
        report.fail(depth, f"{path}: missing (expected sha256 {expected[:16]})")
        return False
    actual = sha256_file(path)
    if actual != expected:
        report.fail(depth, f"{path}: changed (recorded sha256 {expected[:16]}, now {actual[:16]})")
        return False
    return True


def _check_cache_entries(path: Path, cache: GenerationCache, depth: int, report: AuditReport) -> None:
    rows = pq.read_table(path, columns=["problem_id", "trial", "cache_key", "content", "finish_reason",
                                        "host", "slurm_job_id"]).to_pylist()
    bad = 0
    for row in rows:
        entry = cache.get(row["cache_key"])
        where = f"{path}: {row['problem_id']} trial {row['trial']}: cache entry {cache.path(row['cache_key'])}"
        if entry is None:
            report.fail(depth, f"{where} missing")
            bad += 1
        elif (entry["response"].get("content"), entry["response"].get("finish_reason")) != (
                row["content"], row["finish_reason"]):
            report.fail(depth, f"{where} differs from the generation row")
            bad += 1
    jobs = sorted({f"{r['host']}/{r['slurm_job_id']}" if r["slurm_job_id"] else str(r["host"]) for r in rows})
    if not bad:
        report.say(depth, f"ok   {len(rows)} cache entries match (produced on {', '.join(jobs)})")


def _certificate_summary(path: Path, depth: int, report: AuditReport) -> None:
    """Certificate kinds and verifier versions of the problems (re-check: extrembench verify-certificate)."""
    names = pq.read_schema(path).names
    if "certificate_kind" not in names:
        report.say(depth, "certificates: none recorded (table predates them)")
        return
    rows = pq.read_table(path, columns=["certificate_kind", "certificate_verifier"]).to_pylist()
    counts: dict[str, int] = {}
    for row in rows:
        key = f"{row['certificate_kind']} (verifier {row['certificate_verifier']})" if row["certificate_kind"] else "none"
        counts[key] = counts.get(key, 0) + 1
    report.say(depth, "certificates: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def _walk(path: Path, expected: str, depth: int, report: AuditReport, cache: GenerationCache) -> None:
    key = f"{path}:{expected}"
    if key in report.checked:
        return
    report.checked.add(key)
    if not _check_file(path, expected, depth, report):
        return
    if not _is_artifact(path):
        commit = file_commit(path)
        report.say(depth, f"ok   {path} sha256 {expected[:16]} (git {commit[:12] if commit else 'untracked'})")
        return
    kind = read_metadata(path).get("extrembench.kind", "?")
    report.say(depth, f"ok   {path} [{kind}] sha256 {expected[:16]}")
    if kind == "generations":
        _check_cache_entries(path, cache, depth + 1, report)
    if kind == "problems":
        _certificate_summary(path, depth + 1, report)
    for record in read_lineage(path):
        _walk(Path(record["path"]), record["sha256"], depth + 1, report, cache)


def audit(benchmark: str, model: str, *, results: Path, cache_dir: Path) -> AuditReport:
    report = AuditReport()
    board_path = results / "leaderboard.parquet"
    if not board_path.exists():
        report.fail(0, f"{board_path}: missing; run the pipeline first")
        return report
    board = pq.read_table(board_path).to_pylist()
    rows = [r for r in board if r["benchmark"] == benchmark and r["model"] == model]
    if not rows:
        known = sorted({(r["benchmark"], r["model"]) for r in board})
        report.fail(0, f"{board_path}: no row for benchmark {benchmark!r}, model {model!r}; known: {known}")
        return report
    row = rows[0]
    report.say(0, f"accuracy {row['accuracy_mean']:.4f} ± {row['accuracy_std']:.4f} "
                  f"({benchmark} / {model}, {row['n_problems']} problems × {row['n_trials']} trials) "
                  f"git {row['git_commit']}{' (dirty)' if row['git_dirty'] else ''} config {row['config_sha256'][:16]}")
    lineage = read_lineage(board_path)
    if inputs_hash(lineage) != row["inputs_sha256"]:
        report.fail(0, f"{board_path}: inputs_sha256 of the row does not match its recorded lineage")
    report.say(0, f"ok   {board_path} (lineage of {len(lineage)} grade files)")
    marker = f"/{benchmark}/grade/{model}/"
    mine = [r for r in lineage if marker in "/" + r["path"]]
    if not mine:
        report.fail(1, f"{board_path}: lineage lists no grade file for {benchmark}/{model}")
    cache = GenerationCache(cache_dir)
    for record in mine:
        _walk(Path(record["path"]), record["sha256"], 1, report, cache)
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--results", type=Path, default=Path("results"), help="results directory [results]")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="response cache (default: cache_dir of --config)")
    parser.add_argument("--config", type=Path, default=Path("config.yaml"), help="config file [config.yaml]")


def run(args: argparse.Namespace) -> int:
    cache_dir = args.cache_dir
    if cache_dir is None:
        from extrembench.config import load_config_file

        cache_dir = Path(load_config_file(args.config)["cache_dir"])
    report = audit(args.benchmark, args.model, results=args.results, cache_dir=cache_dir)
    print("\n".join(report.lines))
    if report.problems:
        print(f"\naudit FAILED: {len(report.problems)} problem(s):", file=sys.stderr)
        for problem in report.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"\naudit ok: {len(report.checked)} files rechecked", file=sys.stderr)
    return 0

