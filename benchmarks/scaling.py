"""Scale figures for docs/scaling.md: job counts and dry-run (DAG build) time, Parquet bytes per row.

    .venv/bin/python benchmarks/scaling.py dag --configfile experiments/paper.yaml
    .venv/bin/python benchmarks/scaling.py synthetic --problems 10000 --models 20 --trials 32 --shards 1000
    .venv/bin/python benchmarks/scaling.py parquet --chars-per-row 4000
    .venv/bin/python benchmarks/scaling.py --quick   # all three, small: config.yaml, a 2-model grid, parquet

`dag` and `synthetic` time `snakemake -n --profile profiles/slurm` in a fresh working directory
(nothing built yet: every job is planned) on a PATH without SLURM commands. `synthetic` writes a
grid of copies of data/problems under a temp dir. `parquet` writes generation rows with the
pipeline's own writer, each row's reasoning a distinct slice of real math prose (MATH-500, AMO-Bench
solutions), and prints the fixed bytes per row and the stored bytes per reasoning character.

The verdict checks what the figures rest on: the dry run plans jobs, a synthetic grid plans the job
counts docs/scaling.md gives per rule, and text rows compress. Times have no target here.
`--quick` alone runs all three at small sizes; `dag --quick` defaults --configfile to config.yaml,
`synthetic --quick` plans an 80-problem, 2-model grid.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from _verdict import run, verdict

from extrembench.sources.ingest import shared_data_root

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
SHARED_DATA = shared_data_root()
MATH500 = SHARED_DATA / "math500" / "test.jsonl"
AMO_SOLUTIONS = SHARED_DATA / "amo-bench" / "reference_solutions" / "example.jsonl"
SHARED_DATASETS = ("math500", "amo-bench")  # read by `parquet` (tests/test_benchmarks.py skips without them)
QUICK_GRID = {"problems": 80, "models": 2, "trials": 2, "shards": 4}


def dry_run(workdir: Path, configfiles: list[Path]) -> tuple[float, dict[str, int]]:
    """Seconds for `snakemake -n` and the job count per rule it plans."""
    bare = workdir / "bin"
    bare.mkdir(exist_ok=True)
    if not (bare / "which").exists():
        (bare / "which").symlink_to(shutil.which("which"))
    command = [
        str(SNAKEMAKE),
        "-n",
        "--quiet",
        "rules",
        "--profile",
        str(REPO / "profiles" / "slurm"),
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        *map(str, configfiles),
    ]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, env={**os.environ, "PATH": str(bare)})
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(result.stderr[-3000:])
    counts = {}
    for line in (result.stdout + result.stderr).splitlines():
        match = re.fullmatch(r"(\w+)\s+(\d+)", line.strip())
        if match and match.group(1) != "total":
            counts[match.group(1)] = int(match.group(2))
    return elapsed, counts


def report(label: str, elapsed: float, counts: dict[str, int]) -> None:
    print(f"{label}: {sum(counts.values())} jobs, dry run {elapsed:.1f} s")
    for rule, n in sorted(counts.items()):
        print(f"  {rule:<12} {n}")


def synthetic_grid(root: Path, *, problems: int, models: int, trials: int, shards: int) -> Path:
    """A config of `models` SGLang models (one b200 each) × `problems` copies of data/problems."""
    sources = sorted((REPO / "data" / "problems").glob("*.yaml"))
    problem_dir = root / "problems"
    problem_dir.mkdir(parents=True)
    for i in range(problems):
        text = sources[i % len(sources)].read_text()
        problem_id = f"syn-{i:06d}"
        (problem_dir / f"{problem_id}.yaml").write_text(re.sub(r"(?m)^id: .*$", f"id: {problem_id}", text, count=1))
    registry = {
        f"model-{m:02d}": {
            "backend": "sglang",
            "hf_id": f"org/model-{m:02d}",
            "revision": format(m, "040x"),  # a pinned Hub commit, as every published grid has
            "size_class": "b200x1",
            "sampling": {"max_tokens": 32768},
        }
        for m in range(models)
    }
    config = {
        "benchmarks": {
            "extrem": {"kind": "extremal", "problems": str(problem_dir), "shards": shards, "trials": trials}
        },
        "models": registry,
        "evaluate": {"models": sorted(registry), "benchmarks": ["extrem"]},
        "resources": {
            "cpu": {"gpu": 0, "mem_mb": 4000, "runtime": 60},
            "b200x1": {"gpu": 1, "gpu_model": "b200", "cpus_per_gpu": 16, "mem_mb": 200000, "runtime": 720},
        },
        "cluster": {"gpu_partition": "b200", "cpu_partition": "cpu"},
    }
    path = root / "grid.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def unique_math_prose() -> str:
    """Real math prose with no text repeated: MATH-500 problems and solutions, AMO-Bench solutions."""
    texts = []
    for line in MATH500.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            texts += [record["problem"], record["solution"]]
    for line in AMO_SOLUTIONS.read_text().splitlines():
        if line.strip():
            texts += [str(v) for v in json.loads(line).values() if isinstance(v, str) and len(v) > 200]
    return "\n\n".join(texts)


def generation_rows(reasonings: list[str]) -> list[dict]:
    rng = random.Random(0)
    return [
        {
            "benchmark": "extrem",
            "model": "qwen3-8b",
            "problem_id": f"ineq-{i // 32:04d}",
            "trial": i % 32,
            "source_sha256": f"{rng.getrandbits(256):064x}",
            "cache_key": f"{rng.getrandbits(256):064x}",
            "model_id": "Qwen/Qwen3-8B",
            "model_revision": "0" * 40,
            "engine": "sglang",
            "engine_version": "0.5.23",
            "sampling_json": json.dumps(
                {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0, "max_tokens": 38912, "seed": i}
            ),
            "seed": i,
            "content": f"The minimum is \\boxed{{{rng.randint(1, 99)}}}.",
            "reasoning_content": text,
            "finish_reason": "stop",
            "error": None,
            "prompt_tokens": 120,
            "completion_tokens": len(text) // 4,
            "latency_s": rng.uniform(10, 900),
            "host": "gpu-node-017",
            "slurm_job_id": str(4_000_000 + i // 320),
            "dag_node": f"generate[benchmark=extrem,model=qwen3-8b,shard={i // 320}]",
            "gpu_seconds": rng.uniform(1, 10),
            "wall_seconds": rng.uniform(1, 10),
        }
        for i, text in enumerate(reasonings)
    ]


def parquet_size(rows: list[dict]) -> int:
    from extrembench.core.artifacts import write_artifact

    with tempfile.TemporaryDirectory() as tmp:
        return write_artifact(rows, Path(tmp) / "shard.parquet", "generations").stat().st_size


def parquet_costs(chars_per_row: int) -> tuple[int, float, float]:
    """(rows, bytes per row without reasoning text, stored bytes per reasoning char), each row's
    reasoning a distinct slice of real math prose (so no row compresses against a copy of itself)."""
    corpus = unique_math_prose()
    reasonings = [corpus[i : i + chars_per_row] for i in range(0, len(corpus) - chars_per_row + 1, chars_per_row)]
    with_text = parquet_size(generation_rows(reasonings))
    without = parquet_size(generation_rows([""] * len(reasonings)))
    return len(reasonings), without / len(reasonings), (with_text - without) / (len(reasonings) * chars_per_row)


def grid_count_failures(counts: dict[str, int], *, models: int, shards: int) -> list[str]:
    """How the planned jobs of a synthetic grid (one extremal benchmark) differ from docs/scaling.md."""
    expected = {
        "translate": shards,
        "convert": shards,
        "validate": shards,
        "generate": models * shards,
        "grade": models * shards,
        "aggregate": 1,
        "all": 1,
    }
    return [
        f"{rule}: {counts.get(rule, 0)} jobs planned, expected {n}"
        for rule, n in expected.items()
        if counts.get(rule, 0) != n
    ]


def measure_parquet(chars_per_row: int) -> list[str]:
    rows, overhead, per_char = parquet_costs(chars_per_row)
    print(f"measured on {rows} generation rows of {chars_per_row} chars of real math prose each:")
    print(
        f"  {overhead:.0f} bytes/row without reasoning text; {per_char:.3f} stored bytes per reasoning char "
        f"({1 / per_char:.1f}x compression)"
    )
    for tokens in (2_000, 10_000, 30_000):
        print(
            f"  projected: {tokens} completion tokens (~4 chars each) -> "
            f"{(overhead + 4 * tokens * per_char) / 1e3:.1f} kB/row"
        )
    failures = [] if rows else ["parquet: no rows (the prose corpus is shorter than one row)"]
    if not 0 < per_char < 1:
        failures.append(f"parquet: {per_char:.3f} stored bytes per reasoning char (expected between 0 and 1)")
    return failures


def measure_dag(label: str, configfile: Path | None, grid: dict[str, int] | None) -> list[str]:
    """Dry-run a config file, or a synthetic grid (whose job counts are then checked)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if grid is not None:
            configfile = synthetic_grid(root, **grid)
        workdir = root / "work"
        workdir.mkdir()
        # a fresh working directory that sees the repo's config.yaml (the base layer) and data/
        for name in ("config.yaml", "data"):
            (workdir / name).symlink_to(REPO / name)
        elapsed, counts = dry_run(workdir, [configfile])
        report(label, elapsed, counts)
    if not counts:
        return [f"{label}: the dry run planned no jobs"]
    return grid_count_failures(counts, models=grid["models"], shards=grid["shards"]) if grid else []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="without a command: all three, at small sizes")
    sub = parser.add_subparsers(dest="command")
    # --quick after the command too; SUPPRESS keeps a subcommand from resetting one given before it
    quick = {"action": "store_true", "default": argparse.SUPPRESS}
    dag = sub.add_parser("dag")
    dag.add_argument("--configfile", type=Path, help="required, except with --quick (then config.yaml)")
    dag.add_argument("--quick", **quick)
    syn = sub.add_parser("synthetic")
    for name, default in (("problems", 10000), ("models", 20), ("trials", 32), ("shards", 1000)):
        syn.add_argument(f"--{name}", type=int, default=default)
    syn.add_argument("--quick", **quick)
    par = sub.add_parser("parquet")
    par.add_argument("--chars-per-row", type=int, default=4000)
    par.add_argument("--quick", **quick)
    args = parser.parse_args()
    if args.command is None and not args.quick:
        parser.error("a command is required (dag, synthetic, parquet), or --quick")
    if args.command == "dag" and args.configfile is None:
        if not args.quick:
            parser.error("dag: --configfile is required (or --quick, which takes config.yaml)")
        args.configfile = REPO / "config.yaml"

    failures: list[str] = []
    if args.command is None:  # --quick: every part, small
        failures += measure_dag("config.yaml", REPO / "config.yaml", None)
        grid = QUICK_GRID
        label = (
            f"{grid['problems']} problems x {grid['models']} models x {grid['trials']} trials, {grid['shards']} shards"
        )
        failures += measure_dag(label, None, grid)
        failures += measure_parquet(4000)
        summary = "config.yaml and a synthetic grid planned (job counts as docs/scaling.md gives), parquet compresses"
    elif args.command == "parquet":
        failures += measure_parquet(args.chars_per_row)
        summary = "generation rows written and compressed"
    elif args.command == "dag":
        failures += measure_dag(str(args.configfile), args.configfile.resolve(), None)
        summary = f"{args.configfile} planned"
    else:
        grid = QUICK_GRID if args.quick else {name: getattr(args, name) for name in QUICK_GRID}
        label = (
            f"{grid['problems']} problems x {grid['models']} models x {grid['trials']} trials, {grid['shards']} shards"
        )
        failures += measure_dag(label, None, grid)
        summary = "job counts as docs/scaling.md gives"
    return verdict(failures, summary + "; times have no target")


if __name__ == "__main__":
    sys.exit(run(main))
