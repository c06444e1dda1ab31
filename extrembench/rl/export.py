"""`extrembench export-rl --format verl|trl|openrlhf|verifiers --out DIR`: the proven answers as
training data (docs/rl.md).

Writes DIR/rows.parquet (the canonical rows, rows.py), the chosen layout (formats.py) and
DIR/manifest.json (the config's evaluation benchmarks, the budget, the counts, every problem or
variant left out and why, the time taken). A `train` row of a family the config evaluates stops
the export before anything is written (splits.py). `--from-rows` re-lays an earlier export's
rows.parquet in another format without computing anything again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from extrembench.core.config import Config, ConfigError, config_hash, layered_config
from extrembench.core.errors import InputError
from extrembench.core.files import atomic_output
from extrembench.rl.collect import Budget, Tables, collect, plan
from extrembench.rl.formats import FORMATS, write_format
from extrembench.rl.rows import TRAINING_ROWS, rows_table
from extrembench.rl.splits import evaluated, leaks

# What the default config does not evaluate (each has its own experiment file; docs/rl.md).
TRAINING_FOLDERS = ("data/guessable", "data/instances", "data/unnumbered")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", required=True, choices=FORMATS, help="the trainer layout to write")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument(
        "--configfile", type=Path, action="append", default=[], help="overlay(s) on config.yaml, as for snakemake"
    )
    parser.add_argument("--directory", type=Path, default=Path("."), help="the workflow's working directory")
    parser.add_argument(
        "--problems",
        type=Path,
        action="append",
        default=None,
        help=f"a problem folder to export (repeatable; default: {', '.join(TRAINING_FOLDERS)})",
    )
    parser.add_argument(
        "--tables",
        type=Path,
        action="append",
        default=[],
        help="pipeline Parquet tables (problems and variants kinds; a folder is searched) whose confirmed "
        "rows of these very files are taken instead of validating again",
    )
    parser.add_argument(
        "--per-problem",
        type=int,
        default=Budget.per_problem,
        help="confirmed constants variants per train problem (0: none)",
    )
    parser.add_argument("--seed", type=int, default=Budget.seed, help="the validator's seed")
    parser.add_argument("--variant-seed", type=int, default=Budget.variant_seed)
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--limit", type=int, default=None, help="only the first N problem files of each folder")
    parser.add_argument("--from-rows", type=Path, default=None, help="re-lay an earlier export's rows.parquet")


def _table_paths(paths: list[Path]) -> list[Path]:
    found = []
    for path in paths:
        found += sorted(path.rglob("*.parquet")) if path.is_dir() else [path]
    return found


def _progress(number: int, total: int, outcome) -> None:
    print(f"[{number}/{total}] {outcome.path}: {len(outcome.rows)} rows", file=sys.stderr)


def _relay(args: argparse.Namespace) -> int:
    """--from-rows: an earlier export's rows laid out in another format, nothing computed again."""
    table = pq.read_table(args.from_rows)
    if not table.schema.remove_metadata().equals(TRAINING_ROWS):
        raise InputError(
            f"{args.from_rows}: not a rows.parquet of this version of export-rl; export again without --from-rows"
        )
    written = write_format(table.to_pylist(), args.format, args.out)
    print("\n".join(str(p) for p in written))
    return 0


def _folders(args: argparse.Namespace, workdir: Path) -> list[Path]:
    folders = [Path(p) for p in (args.problems or [workdir / f for f in TRAINING_FOLDERS])]
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        raise InputError(f"--problems: no such folder: {', '.join(missing)}")
    return folders


def _budget(args: argparse.Namespace, config: Config) -> Budget:
    """The validator's budget: the config's validation settings, the command line's seeds and variants."""
    return Budget(
        seed=args.seed,
        starts=config.validation.starts,
        iterations=config.validation.iterations,
        time_cap_s=config.validation.time_cap_s,
        per_problem=args.per_problem,
        variant_seed=args.variant_seed,
    )


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    if args.from_rows is not None:
        return _relay(args)
    workdir = args.directory
    base = workdir / "config.yaml"
    try:
        config = layered_config(base if base.exists() else None, args.configfile)
    except (ConfigError, OSError) as exc:
        raise InputError(f"config: {exc}") from None
    asked = evaluated(config, workdir)
    folders = _folders(args, workdir)
    budget = _budget(args, config)
    tables = Tables.read(_table_paths(args.tables))
    tasks = plan(folders, asked, budget=budget, tables=tables, vary=args.per_problem > 0)
    if args.limit is not None:
        kept: Counter = Counter()
        tasks = [t for t in tasks if (kept.update([t.folder]) or kept[t.folder] <= args.limit)]
    rows, skipped = collect(tasks, jobs=args.jobs, progress=_progress)
    leaking = leaks(rows, asked)
    if leaking:
        raise InputError("train rows of evaluated families (nothing written): " + "; ".join(leaking[:10]))
    table = rows_table(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    with atomic_output(args.out / "rows.parquet") as tmp:
        pq.write_table(table, tmp, compression="zstd", write_statistics=False)
    written = write_format(table.to_pylist(), args.format, args.out)
    counts = Counter((r["split"], r["kind"]) for r in rows)
    manifest = {
        "config_sha256": config_hash(config),
        "evaluated_benchmarks": sorted(set(asked.families.values()) | set(asked.ids.values())),
        "evaluated_families": len(asked.families),
        "folders": [str(f) for f in folders],
        "budget": budget.__dict__,
        "problem_files": len(tasks),
        "rows": len(rows),
        "counts": {f"{split}/{kind}": n for (split, kind), n in sorted(counts.items())},
        "distinct_content": len({r["content_sha256"] for r in rows}),
        "skipped": skipped,
        "seconds": round(time.monotonic() - started, 1),
        "jobs": args.jobs,
    }
    with atomic_output(args.out / "manifest.json") as tmp:
        tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print("\n".join(str(p) for p in [args.out / "rows.parquet", *written, args.out / "manifest.json"]))
    print(f"export-rl: {len(rows)} rows ({manifest['counts']}) in {manifest['seconds']} s", file=sys.stderr)
    return 0
