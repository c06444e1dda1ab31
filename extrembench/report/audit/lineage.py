"""`extrembench audit --benchmark B --model M`: the lineage of one published accuracy, rechecked.

Walks leaderboard row ← grade files ← generation files and their cache entries ← problem tables
← problem files (with the git commit that last touched each), recomputing every sha256 recorded
in the artifacts' lineage metadata. Every verdict of each grade file is graded again from the
generation text and the gold (report/regrade.py), so an edited verdict fails even when the files
downstream were rebuilt around it; likewise each problem table's gold answers are derived again from
their sources and its certificates re-checked (report/problem_check.py). It also rechecks the number itself: the leaderboard files
against their recorded checksums (results/leaderboard.sha256), the row's accuracy, standard
deviation and interval recomputed from the grade rows it walked, and each cache entry's request
(its key is the hash of the request) and token counts against the generation row. Exit 0 when
everything matches; otherwise exit 1 and name each file or value that changed or went missing.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from extrembench.core.artifacts import read_lineage, read_metadata
from extrembench.core.files import sha256_file
from extrembench.core.provenance import file_state, inputs_hash
from extrembench.grading.guarded import GuardedEquivalence
from extrembench.llm.cache import GenerationCache, cache_key
from extrembench.report.audit.folders import add_folder_arguments, run_folders
from extrembench.report.audit.problem_check import check_problem_table
from extrembench.report.audit.regrade import regrade_file
from extrembench.report.audit.show import answer_or_tail
from extrembench.report.misses.classes import CLASSES
from extrembench.report.misses.table import MISSES_SEED, build_misses_table, read_misses
from extrembench.report.results.leaderboard import (
    CERTIFICATE_KINDS,
    SETTINGS_COLUMNS,
    leaderboard_row,
    markdown_table,
    run_settings,
    settings_line,
)


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


def _check_file(path: Path, expected: str, depth: int, report: AuditReport) -> bool:
    if not path.exists():
        report.fail(depth, f"{path}: missing (expected sha256 {expected[:16]})")
        return False
    actual = sha256_file(path)
    if actual != expected:
        report.fail(depth, f"{path}: changed (recorded sha256 {expected[:16]}, now {actual[:16]})")
        return False
    return True


_ENTRY_FIELDS = ("content", "finish_reason", "prompt_tokens", "completion_tokens")


def _check_cache_entries(path: Path, cache: GenerationCache, depth: int, report: AuditReport) -> None:
    # Uses only the cache's public reading API: load(key) -> (entry | None, why not), and
    # cache_key(request), the hash the entry is filed under. An entry edited together with its
    # sha256 still fails here: its request must hash to its key and its response equal the row.
    rows = pq.read_table(
        path, columns=["problem_id", "trial", "cache_key", *_ENTRY_FIELDS, "host", "slurm_job_id"]
    ).to_pylist()
    problems_before = len(report.problems)
    failed = [row for row in rows if row.get("finish_reason") == "failed"]
    rows = [row for row in rows if row.get("finish_reason") != "failed"]
    if failed:
        # A failed request is never cached (a rerun must resend it): nothing to compare.
        report.say(depth, f"note {len(failed)} failed request(s), uncached by design, counted in n_failed")
    for row in rows:
        entry, problem = cache.load(row["cache_key"])
        where = f"{path}: {row['problem_id']} trial {row['trial']}: cache entry {row['cache_key'][:16]}"
        if entry is None:
            report.fail(depth, f"{where}: {problem or 'missing'}")
            continue
        if cache_key(entry["request"]) != row["cache_key"]:
            report.fail(depth, f"{where}: its recorded request no longer hashes to its key (request edited)")
        differing = [f for f in _ENTRY_FIELDS if entry["response"].get(f) != row[f]]
        if differing:
            report.fail(depth, f"{where} differs from the generation row in {', '.join(differing)}")
    jobs = sorted({f"{r['host']}/{r['slurm_job_id']}" if r["slurm_job_id"] else str(r["host"]) for r in rows})
    if len(report.problems) == problems_before:
        report.say(depth, f"ok   {len(rows)} cache entries match (produced on {', '.join(jobs)})")


def _regrade(path: Path, depth: int, report: AuditReport, cache: GenerationCache) -> None:
    regraded = regrade_file(path, cache.root.parent)
    for problem in regraded.problems:
        report.fail(depth, problem)
    if not regraded.problems:
        judged = (
            f" ({regraded.judged} by the LLM judge, from {regraded.votes_read} recorded votes)"
            if regraded.judged
            else ""
        )
        report.say(depth, f"ok   {regraded.checked} verdicts re-derived from the generation text and the gold{judged}")


def _check_problems(path: Path, depth: int, report: AuditReport) -> None:
    checked = check_problem_table(path)
    for problem in checked.problems:
        report.fail(depth, problem)
    if not checked.problems:
        report.say(
            depth,
            f"ok   {checked.answers} gold answers re-derived from their sources, "
            f"{checked.certificates} certificates verified"
            + (f" ({checked.uncertified} variants confirmed without one)" if checked.uncertified else ""),
        )


def _show_variants(path: Path, depth: int, report: AuditReport) -> None:
    """Each confirmed variant with its parent problem file and what was changed (the parent
    file itself is rechecked below, from the artifact's lineage)."""
    rows = pq.read_table(
        path,
        columns=[
            "problem_id",
            "parent_source_path",
            "kind",
            "technique",
            "transformation",
            "status",
            "validation_status",
        ],
    ).to_pylist()
    for row in rows:
        if row["status"] == "confirmed":
            report.say(
                depth,
                f"variant {row['problem_id']} <- {row['parent_source_path']} [{row['kind']}, "
                f"{row['technique']}, validator: {row['validation_status']}]: {row['transformation']}",
            )
    dropped = sum(r["status"] != "confirmed" for r in rows)
    if dropped:
        report.say(depth, f"({dropped} candidate variant(s) dropped; reasons in the drop_reason column)")


def _certificate_summary(path: Path, depth: int, report: AuditReport) -> None:
    """Certificate kinds and verifier versions of the problems (re-check: extrembench verify-certificate)."""
    names = pq.read_schema(path).names
    if "certificate_kind" not in names:
        report.say(depth, "certificates: none recorded (table predates them)")
        return
    rows = pq.read_table(path, columns=["certificate_kind", "certificate_verifier"]).to_pylist()
    counts = Counter(
        f"{row['certificate_kind']} (verifier {row['certificate_verifier']})" if row["certificate_kind"] else "none"
        for row in rows
    )
    report.say(depth, "certificates: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def _walk(path: Path, expected: str, depth: int, report: AuditReport, cache: GenerationCache) -> None:
    key = f"{path}:{expected}"
    if key in report.checked:
        return
    report.checked.add(key)
    if not _check_file(path, expected, depth, report):
        return
    if path.suffix != ".parquet":  # a source file, not an artifact with lineage
        report.say(depth, f"ok   {path} sha256 {expected[:16]} ({file_state(path)})")
        return
    kind = read_metadata(path).get("extrembench.kind", "?")
    report.say(depth, f"ok   {path} [{kind}] sha256 {expected[:16]}")
    if kind == "grades":
        _regrade(path, depth + 1, report, cache)
    if kind == "generations":
        _check_cache_entries(path, cache, depth + 1, report)
    if kind == "variants":
        _show_variants(path, depth + 1, report)
    if kind == "problems":
        _certificate_summary(path, depth + 1, report)
        _check_problems(path, depth + 1, report)
    for record in read_lineage(path):
        _walk(Path(record["path"]), record["sha256"], depth + 1, report, cache)


def _check_board_files(board_path: Path, report: AuditReport) -> None:
    """The leaderboard files against the checksums aggregate recorded beside them."""
    sums = board_path.with_suffix(".sha256")
    if not sums.exists():
        report.fail(0, f"{sums}: missing (the checksums of the leaderboard files); rerun aggregate")
        return
    for line in sums.read_text(encoding="utf-8").splitlines():
        expected, _, name = line.partition("  ")
        target = board_path.parent / Path(name).name
        if _check_file(target, expected, 0, report):
            report.say(0, f"ok   {target} sha256 {expected[:16]} (recorded in {sums.name})")


# Leaderboard columns that are not numbers derived from the grade rows (checked elsewhere or labels).
_NOT_RECOMPUTED = frozenset(
    {"benchmark", "model", "inputs_sha256", "config_sha256", "git_commit", "git_dirty", "versions_json"}
)


def _missing(value) -> bool:
    # pandas' NaN is written to Parquet as null: both mean "no value" (e.g. no token counts)
    return value is None or (isinstance(value, float) and math.isnan(value))


def _same_number(a, b) -> bool:
    if _missing(a) or _missing(b):
        return _missing(a) and _missing(b)
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return a == b


def _row_again(row: dict, grades, grade_files: list[Path], metadata: dict) -> dict:
    """The leaderboard row built again from `grades` (a DataFrame), as aggregate built it, with its settings."""
    ks = sorted(int(k.removeprefix("pass_at_")) for k in row if k.startswith("pass_at_"))
    # maj@k groups answers with the grader's equivalence, in the mode and timeout the grades record
    graded_with = read_metadata(grade_files[0])
    with GuardedEquivalence(
        timeout=float(graded_with.get("extrembench.grading_timeout_s", "5.0")),
        mode=graded_with.get("extrembench.grading_mode", "default"),
    ) as equivalent:
        again = leaderboard_row(
            row["benchmark"],
            row["model"],
            grades,
            ks=ks,
            equivalent=equivalent,
            seed=int(metadata.get("extrembench.bootstrap_seed", "0")),
            ungraded=metadata.get("extrembench.ungraded", "exclude"),
        )
    # the settings that produced the row (judge, revision, sampling, seeds), read again the same way
    settings = run_settings(grade_files)
    settings = settings[(settings["benchmark"] == row["benchmark"]) & (settings["model"] == row["model"])]
    if not settings.empty:
        again.update({k: v for k, v in settings.iloc[0].to_dict().items() if k in SETTINGS_COLUMNS})
    return again


def _recompute(row: dict, grade_files: list[Path], board_path: Path, report: AuditReport) -> None:
    """The row's numbers again, every one of them (accuracy, interval, pass@k, maj@k, rates,
    token statistics), from the grade rows the walk just rechecked."""
    import pandas as pd  # deferred: pandas costs start-up time and only this path needs it

    metadata = read_metadata(board_path)
    frames = [pq.read_table(p).to_pandas() for p in grade_files if p.exists()]
    if not frames:
        return
    grades = pd.concat(frames, ignore_index=True)
    grades = grades[(grades["benchmark"] == row["benchmark"]) & (grades["model"] == row["model"])]
    again = _row_again(row, grades, grade_files, metadata)
    n_rows = len(grades) - again["n_failed"]
    wrong = [
        f"{k} {row[k]!r} (recomputed {again[k]!r})"
        for k in again
        if k in row and k not in _NOT_RECOMPUTED and not _same_number(row[k], again[k])
    ]
    if wrong:
        report.fail(0, f"{board_path}: the row does not follow from its {n_rows} grade rows: " + "; ".join(wrong))
    else:
        report.say(
            0,
            f"ok   accuracy {again['accuracy_mean']:.4f}, interval [{again['ci_low']:.4f}, "
            f"{again['ci_high']:.4f}], pass@k, maj@k and rates recomputed from {n_rows} grade rows",
        )
    # What a reader reads is the CSV and the Markdown, not the Parquet: each is compared with the
    # row as recomputed (columns audit does not recompute, e.g. cost and provenance, come from the
    # Parquet row), so a number edited there alone, checksums rewritten, still fails.
    expected = {**row, **{k: v for k, v in again.items() if k in row and k not in _NOT_RECOMPUTED}}
    _check_csv_row(expected, board_path.with_suffix(".csv"), report)
    _check_markdown_row(expected, board_path.with_suffix(".md"), report)


def _csv_cell_matches(cell: str, value) -> bool:
    """A CSV cell (write_csv: floats with 6 significant digits, NaN as empty) against a value."""
    if _missing(value):
        return cell == ""
    if isinstance(value, bool):
        return cell == str(value)
    if isinstance(value, int | float):
        try:
            number = float(cell)
        except ValueError:
            return False
        return math.isclose(number, float(value), rel_tol=1e-5, abs_tol=1e-12)
    return cell == str(value)


def _check_csv_row(expected: dict, path: Path, report: AuditReport) -> None:
    name = f"{expected['benchmark']}/{expected['model']}"
    if not path.exists():
        report.fail(0, f"{path}: missing; rerun aggregate")
        return
    with open(path, encoding="utf-8", newline="") as handle:
        rows = [
            r
            for r in csv.DictReader(handle)
            if r.get("benchmark") == expected["benchmark"] and r.get("model") == expected["model"]
        ]
    if len(rows) != 1:
        report.fail(0, f"{path}: {len(rows)} rows for {name} (expected 1); rerun aggregate")
        return
    written = rows[0]
    absent = sorted(k for k in expected if k not in written)
    wrong = [
        f"{k} {written[k]!r} (recomputed {expected[k]!r})"
        for k in expected
        if k in written and not _csv_cell_matches(written[k], expected[k])
    ]
    if absent:
        wrong.append(f"column(s) {', '.join(absent)} missing")
    if wrong:
        report.fail(0, f"{path}: row {name} does not follow from its grade rows: " + "; ".join(wrong))
    else:
        report.say(0, f"ok   {path}: row {name} matches the recomputed row ({len(expected)} columns)")


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _markdown_cells(line: str) -> list[str]:
    return [cell.strip() for cell in _CELL_SPLIT.split(line.strip())[1:-1]]


def _check_markdown_row(expected: dict, path: Path, report: AuditReport) -> None:
    import pandas as pd  # deferred: pandas costs start-up time and only this path needs it

    name = f"{expected['benchmark']}/{expected['model']}"
    if not path.exists():
        report.fail(0, f"{path}: missing; rerun aggregate")
        return
    header_line, _, want_line = markdown_table(pd.DataFrame([expected])).splitlines()[:3]
    header, want = _markdown_cells(header_line), _markdown_cells(want_line)
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [
        cells
        for cells in map(_markdown_cells, (line for line in lines if line.startswith("|")))
        if cells[:2] == want[:2]
    ]
    if len(found) != 1:
        report.fail(0, f"{path}: {len(found)} table rows for {name} (expected 1); rerun aggregate")
        return
    have = found[0]
    if len(have) != len(want):
        report.fail(0, f"{path}: row {name} has {len(have)} cells, the recomputed row {len(want)}; rerun aggregate")
        return
    wrong = [f"{h} {a!r} (recomputed {b!r})" for h, a, b in zip(header, have, want) if a != b]
    # the certificate line of the benchmark states counts too
    summary = (
        f"- {expected['benchmark']}: "
        + ", ".join(f"{k} {int(expected.get(f'certified_{k}', 0))}" for k in CERTIFICATE_KINDS)
        + " of "
    )
    if not any(line.startswith(summary) for line in lines):
        wrong.append(f"certified problems line of {expected['benchmark']} does not start {summary.strip()!r}")
    if set(SETTINGS_COLUMNS) <= expected.keys():
        settings = settings_line(expected)
        if settings not in lines:
            prefix = settings.split(":", 1)[0] + ":"
            have_settings = [line for line in lines if line.startswith(prefix)]
            shown = repr(have_settings[0]) if have_settings else "missing"
            wrong.append(f"settings line {shown} (recomputed {settings!r})")
    if wrong:
        report.fail(0, f"{path}: row {name} does not follow from its grade rows: " + "; ".join(wrong))
    else:
        report.say(0, f"ok   {path}: row {name} matches the recomputed row ({len(want)} cells)")


def _audit_misses(benchmark: str, model: str, results: Path, report: AuditReport, cache: GenerationCache) -> None:
    """The misses table's row for (benchmark, model): every file misses_report recorded in
    tables/misses.sha256 rechecked, the shards' lineage walked, the row re-derived from the shard
    rows (counts, shares and intervals), and each missed sample listed."""
    import pandas as pd  # deferred: pandas costs start-up time and only this path needs it

    sums, table = results / "tables" / "misses.sha256", results / "tables" / "misses.csv"
    if not sums.exists():
        if table.exists():
            report.fail(0, f"{sums}: missing (the checksums of the misses table and its shards); rerun misses_report")
        return
    recorded = [line.partition("  ") for line in sums.read_text(encoding="utf-8").splitlines() if line.strip()]
    intact = True
    for expected, _, name in recorded:
        if not name.endswith(".parquet"):
            intact = _check_file(Path(name), expected, 0, report) and intact
    marker = f"/{benchmark}/misses/{model}/"
    shards = [(Path(name), expected) for expected, _, name in recorded if marker in "/" + name]
    if not shards:
        report.say(0, f"note {sums.name} lists no misses shard for {benchmark}/{model} (not an extremal benchmark)")
        return
    for path, expected in shards:
        intact = intact and path.exists() and sha256_file(path) == expected
        _walk(path, expected, 1, report, cache)  # names a changed or missing shard itself
    if not intact or not table.exists():
        return
    rows = read_misses([path for path, _ in shards])
    rows = rows[(rows["benchmark"] == benchmark) & (rows["model"] == model)]
    rebuilt = build_misses_table(rows, seed=MISSES_SEED)
    written = pd.read_csv(table)
    written = written[(written["benchmark"] == benchmark) & (written["model"] == model)]
    if written.empty or rebuilt.empty:
        report.fail(0, f"{table}: no row for {benchmark}/{model}")
        return
    want, have = rebuilt.iloc[0].to_dict(), written.iloc[0].to_dict()
    wrong = _misses_differences(want, have)
    if wrong:
        report.fail(
            0, f"{table}: the {benchmark}/{model} row does not follow from its misses rows: " + "; ".join(wrong)
        )
        return
    counts = ", ".join(f"{c} {int(want[c])}" for c in CLASSES if want[c])
    report.say(0, f"ok   misses of {int(want['n_samples'])} samples recomputed from {len(shards)} shards: {counts}")
    _say_misses(rows, results, report)


def _misses_differences(want: dict, have: dict) -> list[str]:
    """Each cell of the written misses row that differs from the recomputed one."""
    # the csv holds 6 significant digits (write_csv), so shares and intervals compare to that
    return [
        f"{k} {have.get(k)!r} (recomputed {want[k]!r})"
        for k in want
        if k not in ("benchmark", "model")
        and not (
            (isinstance(want[k], float) and math.isnan(want[k]) and math.isnan(float(have.get(k, "nan"))))
            or math.isclose(float(have.get(k, "nan")), float(want[k]), rel_tol=1e-5, abs_tol=1e-9)
        )
    ]


def _say_misses(rows, results: Path, report: AuditReport) -> None:
    """Each missed sample of the misses rows (a DataFrame), one line, in (problem, trial) order."""
    for row in rows.sort_values(["problem_id", "trial"]).to_dict("records"):
        if row["miss_class"] != "correct":
            # pandas reads a null string as NaN: only real strings are shown
            what = "/".join(v for v in (row["miss_class"], row["kind"], row["proof"]) if isinstance(v, str))
            witness = f" at {row['witness_json']}" if isinstance(row["witness_json"], str) else ""
            # a no-answer miss has no extracted answer (NaN): the response's tail says what it did instead
            answer = answer_or_tail(row, results)
            report.say(1, f"{row['problem_id']} trial {row['trial']}: {what} ({answer}){witness}")


def audit(benchmark: str, model: str, *, results: Path, cache_dir: Path) -> AuditReport:
    report = AuditReport()
    board_path = results / "leaderboard.parquet"
    if not board_path.exists():
        report.fail(0, f"{board_path}: missing; run the pipeline first")
        return report
    try:
        board = pq.read_table(board_path).to_pylist()
    except Exception as exc:  # a damaged file: say so, do not crash
        report.fail(0, f"{board_path}: unreadable ({type(exc).__name__}: {str(exc)[:200]})")
        _check_board_files(board_path, report)
        return report
    rows = [r for r in board if r["benchmark"] == benchmark and r["model"] == model]
    if not rows:
        known = sorted({(r["benchmark"], r["model"]) for r in board})
        report.fail(0, f"{board_path}: no row for benchmark {benchmark!r}, model {model!r}; known: {known}")
        return report
    row = rows[0]
    report.say(
        0,
        f"accuracy {row['accuracy_mean']:.4f} ± {row['accuracy_std']:.4f} "
        f"({benchmark} / {model}, {row['n_problems']} problems × {row['n_trials']} trials) "
        f"git {row['git_commit']}{' (dirty)' if row['git_dirty'] else ''} config {row['config_sha256'][:16]}",
    )
    lineage = read_lineage(board_path)
    if inputs_hash(lineage) != row["inputs_sha256"]:
        report.fail(0, f"{board_path}: inputs_sha256 of the row does not match its recorded lineage")
    report.say(0, f"ok   {board_path} (lineage of {len(lineage)} grade files)")
    marker = f"/{benchmark}/grade/{model}/"
    mine = [r for r in lineage if marker in "/" + r["path"]]
    if not mine:
        report.fail(1, f"{board_path}: lineage lists no grade file for {benchmark}/{model}")
    _check_board_files(board_path, report)
    cache = GenerationCache(cache_dir)
    for record in mine:
        _walk(Path(record["path"]), record["sha256"], 1, report, cache)
    # numbers are only worth recomputing from grade files that are intact
    if mine and all(Path(r["path"]).exists() and sha256_file(r["path"]) == r["sha256"] for r in mine):
        _recompute(row, [Path(r["path"]) for r in mine], board_path, report)
    _audit_misses(benchmark, model, results, report, cache)
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--model", required=True)
    add_folder_arguments(parser)


def run(args: argparse.Namespace) -> int:
    results, cache_dir = run_folders(args)
    report = audit(args.benchmark, args.model, results=results, cache_dir=cache_dir)
    print("\n".join(report.lines))
    if report.problems:
        print(f"\naudit FAILED: {len(report.problems)} problem(s):", file=sys.stderr)
        for problem in report.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"\naudit ok: {len(report.checked)} files rechecked", file=sys.stderr)
    return 0
