"""`extrembench plan`: what a grid will cost before anything is submitted.

Per model × benchmark: generate jobs, requests still missing, expected output tokens, and the
estimated GPU-hours and cost; totals at the end. Missing requests are counted exactly as the DAG
counts them (`count_missing`, the same call rules/common.smk makes to send a fully cached shard to
the CPU partition) wherever the shard's problems table is built; before that, every problem file
of the shard is counted as asked and nothing as cached (an upper bound, marked `~`).

Expected tokens per request: the mean `completion_tokens` of this model's responses already in the
cache for this benchmark (up to RECORDED_SAMPLE of them, taken in plan order so the figure is the
same on every machine), else the model's `max_tokens`. GPU time per generate job is

    startup_s + max(requests × tokens / tokens_per_s,  max_tokens / stream_tokens_per_s)

with the size class's `tokens_per_s` (aggregate decode throughput of one job), `stream_tokens_per_s`
(one request alone: the tail, until the longest answer ends) and `startup_s`, times its GPUs; only
jobs with missing requests take GPUs. Cost: `cluster.gpu_hour_cost` per GPU-hour, or a model's
`price_per_million_output_tokens` (hosted APIs).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from extrembench.core.artifacts import read_artifact
from extrembench.core.config import Cluster, Config, ConfigError, Model, Resources, layered_config
from extrembench.core.files import read_jsonl
from extrembench.core.shards import shard_of, take
from extrembench.generation.requests import ASKED_STATUSES
from extrembench.generation.run import count_missing
from extrembench.generation.solvers import SOLVERS
from extrembench.llm.cache import GenerationCache
from extrembench.sources.ingest import load_benchmark, local_root

RECORDED_SAMPLE = 2000  # cached responses read per (benchmark, model) for the token mean


@dataclass
class PlanRow:
    benchmark: str
    model: str
    size_class: str
    gpus: int  # per job
    jobs: int  # generate jobs (one per shard)
    gpu_jobs: int  # jobs with missing requests (a fully cached shard runs on CPU)
    requests: int  # planned requests (problems asked × trials)
    missing: int  # not in the cache: what the run will send
    exact: bool  # False: some shard's problems table is not built yet (upper bound)
    tokens_per_request: float  # expected output tokens per missing request
    tokens_source: str  # recorded (mean of n cached) | max_tokens | none
    output_tokens: float  # missing × tokens_per_request
    gpu_hours: float | None  # None: the size class has no tokens_per_s
    cost: float | None  # None: no price configured


# ---------------------------------------------------------------- problems per shard
def problems_table(workdir: Path, results_dir: str, benchmark: str, shard: int) -> Path:
    """The path rules/common.smk gives the shard's problems table."""
    return workdir / results_dir / benchmark / "problems" / f"shard-{shard}.parquet"


def unbuilt_problem_counts(benchmark: str, config: Config, workdir: Path) -> dict[int, int]:
    """Problems per shard from the sources, before validate/ingest ran: the upper bound."""

    bench = config.benchmarks[benchmark]
    per_problem = 1
    if bench.kind == "variants":
        # At most per_problem variants of each kind for every parent in the varied share, in the
        # parent's shard (vary runs per shard); an upper bound, as variants may be dropped.
        from extrembench.sources.variants import in_share

        parent = config.benchmarks[bench.parent]
        settings = parent.variants
        per_problem = settings.per_problem * len(settings.kinds)
        ids = take(sorted(p.stem for p in (workdir / parent.problems).glob("*.yaml")), parent.limit)
        ids = [problem_id for problem_id in ids if in_share(problem_id, settings.share, settings.seed)]
    elif bench.kind == "extremal":
        ids = take(sorted(p.stem for p in (workdir / bench.problems).glob("*.yaml")), bench.limit)
    elif bench.kind == "formalized":
        ids = take(sorted(str(record["id"]) for _, record in read_jsonl(workdir / bench.statements)), bench.limit)
    else:
        root = Path(bench.root or local_root(bench.dataset))
        ids = take(sorted(r["problem_id"] for r in load_benchmark(bench.dataset, root)), bench.limit)
    counts = dict.fromkeys(range(bench.shards), 0)
    for problem_id in ids:
        counts[shard_of(problem_id, bench.shards)] += per_problem
    return counts


# ---------------------------------------------------------------- estimates
def job_gpu_seconds(size: Resources, requests: int, tokens_per_request: float, max_tokens: int) -> float | None:
    """GPU-seconds of one generate job sending `requests` (0 when it sends none or has no GPU)."""
    if requests == 0 or size.gpu == 0:
        return 0.0
    if not size.tokens_per_s:
        return None
    decode = requests * tokens_per_request / size.tokens_per_s
    tail = max_tokens / size.stream_tokens_per_s if size.stream_tokens_per_s else 0.0
    return (size.startup_s + max(decode, tail)) * size.gpu


def plan_cost(gpu_hours: float | None, output_tokens: float, model_cfg: Model, cluster: Cluster) -> float | None:
    """A hosted API's price per million output tokens, else the cluster's price per GPU-hour."""
    if model_cfg.price_per_million_output_tokens is not None:
        return output_tokens / 1e6 * model_cfg.price_per_million_output_tokens
    if gpu_hours is not None and cluster.gpu_hour_cost is not None:
        return gpu_hours * cluster.gpu_hour_cost
    return None


def recorded_tokens(problems_path: Path, *, benchmark: str, model: str, config: Config, budget: int) -> list[int]:
    """completion_tokens of up to `budget` of the shard's requests already in the cache."""
    # the generate job's own planning helper: the same samples, keys and order as the job
    from extrembench.generation.run import plan_job_samples

    cache = GenerationCache(Path(config.cache_dir))
    found: list[int] = []
    for sample in plan_job_samples(problems_path, benchmark=benchmark, model=model, config=config):
        if len(found) >= budget:
            break
        entry = cache.get(sample.key)
        tokens = entry and entry["response"].get("completion_tokens")
        if tokens is not None:
            found.append(int(tokens))
    return found


def _shard_counts(
    benchmark: str, model: str, config: Config, workdir: Path, *, is_llm: bool
) -> tuple[dict[int, tuple[int, int]], dict[int, int] | None, list[int]]:
    """(shard -> (planned, missing), the unbuilt shards' problem counts or None, recorded token counts)."""
    bench = config.benchmarks[benchmark]
    per_shard: dict[int, tuple[int, int]] = {}  # shard -> (planned, missing)
    unbuilt = None
    tokens: list[int] = []
    for shard in range(bench.shards):
        table = problems_table(workdir, config.results_dir, benchmark, shard)
        if table.exists():
            statuses = read_artifact(table, "problems").column("status").to_pylist()
            planned = sum(s in ASKED_STATUSES for s in statuses) * bench.trials
            missing = count_missing(table, benchmark=benchmark, model=model, config=config)
            if is_llm and len(tokens) < RECORDED_SAMPLE and missing < planned:
                tokens += recorded_tokens(
                    table, benchmark=benchmark, model=model, config=config, budget=RECORDED_SAMPLE - len(tokens)
                )
        else:
            if unbuilt is None:
                unbuilt = unbuilt_problem_counts(benchmark, config, workdir)
            planned = missing = unbuilt[shard] * bench.trials
        per_shard[shard] = (planned, missing)
    return per_shard, unbuilt, tokens


def plan_pair(benchmark: str, model: str, config: Config, workdir: Path) -> PlanRow:

    bench, model_cfg = config.benchmarks[benchmark], config.models[model]
    size_class = model_cfg.size_class
    size = config.resources[size_class]

    is_llm = model_cfg.backend not in SOLVERS  # the baselines compute answers, no tokens
    max_tokens = model_cfg.sampling.max_tokens if is_llm else 0
    per_shard, unbuilt, tokens = _shard_counts(benchmark, model, config, workdir, is_llm=is_llm)
    if not is_llm:
        per_request, source = 0.0, "none"
    elif tokens:
        per_request, source = sum(tokens) / len(tokens), f"recorded (mean of {len(tokens)})"
    else:
        per_request, source = float(max_tokens), "max_tokens"
    seconds = [job_gpu_seconds(size, missing, per_request, max_tokens) for _, missing in per_shard.values()]
    gpu_hours = None if any(s is None for s in seconds) else sum(seconds) / 3600
    missing_total = sum(m for _, m in per_shard.values())
    output_tokens = missing_total * per_request
    return PlanRow(
        benchmark=benchmark,
        model=model,
        size_class=size_class,
        gpus=size.gpu,
        jobs=bench.shards,
        gpu_jobs=sum(1 for _, m in per_shard.values() if m and size.gpu),
        requests=sum(p for p, _ in per_shard.values()),
        missing=missing_total,
        exact=unbuilt is None,
        tokens_per_request=per_request,
        tokens_source=source,
        output_tokens=output_tokens,
        gpu_hours=gpu_hours,
        cost=plan_cost(gpu_hours, output_tokens, model_cfg, config.cluster),
    )


def plan_grid(config: Config, workdir: Path) -> list[PlanRow]:
    return [plan_pair(b, m, config, workdir) for b in config.evaluate.benchmarks for m in config.evaluate.models]


def totals(rows: list[PlanRow]) -> dict[str, Any]:
    def total(name: str) -> float | None:
        values = [getattr(r, name) for r in rows]
        return None if any(v is None for v in values) else sum(values)

    return {
        "jobs": sum(r.jobs for r in rows),
        "gpu_jobs": sum(r.gpu_jobs for r in rows),
        "requests": sum(r.requests for r in rows),
        "missing": sum(r.missing for r in rows),
        "exact": all(r.exact for r in rows),
        "output_tokens": total("output_tokens"),
        "gpu_hours": total("gpu_hours"),
        "cost": total("cost"),
    }


# ---------------------------------------------------------------- output
def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:,.{digits}f}"


TABLE_HEADER = [
    "benchmark",
    "model",
    "class",
    "GPUs/job",
    "jobs",
    "GPU jobs",
    "requests",
    "missing",
    "tokens/request",
    "output tokens",
    "GPU-h",
    "cost",
]


def _table_line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _row_cells(r: PlanRow) -> list[str]:
    """One (benchmark, model) line of the table, in TABLE_HEADER's order; `~` marks an upper bound."""
    mark = "" if r.exact else "~"
    source = {"max_tokens": " (max)", "none": ""}.get(r.tokens_source, " (recorded)")
    return [
        r.benchmark,
        r.model,
        r.size_class,
        str(r.gpus),
        str(r.jobs),
        str(r.gpu_jobs),
        f"{mark}{r.requests:,}",
        f"{mark}{r.missing:,}",
        f"{_num(r.tokens_per_request, 0)}{source}",
        f"{mark}{_num(r.output_tokens, 0)}",
        _num(r.gpu_hours),
        _num(r.cost, 2),
    ]


def _total_cells(t: dict[str, Any]) -> list[str]:
    """The total line of the table (`totals`), in TABLE_HEADER's order."""
    mark = "" if t["exact"] else "~"
    return [
        "**total**",
        "",
        "",
        "",
        str(t["jobs"]),
        str(t["gpu_jobs"]),
        f"{mark}{t['requests']:,}",
        f"{mark}{t['missing']:,}",
        "",
        f"{mark}{_num(t['output_tokens'], 0)}",
        _num(t["gpu_hours"]),
        _num(t["cost"], 2),
    ]


def format_table(rows: list[PlanRow]) -> str:
    lines = [_table_line(TABLE_HEADER), "|" + "---|" * len(TABLE_HEADER)]
    lines += [_table_line(_row_cells(r)) for r in rows]
    t = totals(rows)
    lines.append(_table_line(_total_cells(t)))
    notes = []
    if not t["exact"]:
        notes.append(
            "~ upper bound: a problems table is not built yet, so every problem file counts as "
            "asked and nothing as cached (build them: `snakemake --until validate ingest`)"
        )
    if t["gpu_hours"] is None:
        notes.append("GPU-h –: a GPU size class has no `tokens_per_s` (config `resources`)")
    return "\n".join(lines) + "\n" + "".join(f"\n{n}" for n in notes) + ("\n" if notes else "")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--configfile",
        type=Path,
        action="append",
        default=[],
        help="overlay(s) on config.yaml, as for snakemake (repeatable)",
    )
    parser.add_argument(
        "--directory",
        type=Path,
        default=Path("."),
        help="the workflow's working directory (holds config.yaml, results/, the cache)",
    )
    parser.add_argument("--json", action="store_true", help="rows and totals as JSON, for scripts")


def run(args: argparse.Namespace) -> int:

    workdir = args.directory.resolve()
    base = workdir / "config.yaml"
    overlays = [p.resolve() for p in args.configfile]
    try:
        config = layered_config(base if base.exists() else None, overlays)
    except (ConfigError, OSError) as exc:
        print(f"extrembench plan: {exc}", file=sys.stderr)
        return 2
    os.chdir(workdir)  # relative paths in the config (cache_dir, problems) are the workflow's
    rows = plan_grid(config, workdir)
    if args.json:
        print(json.dumps({"rows": [asdict(r) for r in rows], "totals": totals(rows)}, indent=1))
    else:
        print(format_table(rows), end="")
    return 0
