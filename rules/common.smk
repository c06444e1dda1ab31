import glob
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

from snakemake.exceptions import WorkflowError

from extrembench.config import ConfigError, validate_config
from extrembench.provenance import code_hash

workflow_start = time.time()

# ---------------------------------------------------------------- config
# Validate before any job is planned: a bad key or value stops here, naming key and allowed values.
try:
    _validated = validate_config(config)
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None
config.clear()
config.update(_validated)

BASE = Path(workflow.basedir)
RESULTS = "results"
BENCHMARKS = config["evaluate"]["benchmarks"]
MODELS = config["evaluate"]["models"]
EXTREMAL = [b for b in BENCHMARKS if config["benchmarks"][b]["kind"] == "extremal"]


wildcard_constraints:
    benchmark="|".join(map(re.escape, config["benchmarks"])),
    model="|".join(map(re.escape, config["models"])),
    shard=r"\d+",


# ---------------------------------------------------------------- code tracked by content
# `script:` rules are tracked by mtime only and their imports not at all: each stage gets a
# params entry hashing what it runs, so a real code edit reruns it and a `touch` does not.
def _stage_code(*paths):
    return code_hash(["extrembench/artifacts.py", "extrembench/stages.py", *paths], base=BASE)


CODE = {
    "build": _stage_code(
        "extrembench/problem.py",
        "extrembench/expr.py",
        "extrembench/convert.py",
        "extrembench/validate.py",
        "extrembench/schemas/problem.schema.yaml",
        "scripts/build.py",
    ),
    "generate": _stage_code("extrembench/generation", "extrembench/validate.py", "scripts/generate.py"),
    "grade": _stage_code("extrembench/grading", "scripts/grade.py"),
    "aggregate": _stage_code(
        "extrembench/metrics.py", "extrembench/leaderboard.py", "extrembench/grading", "scripts/aggregate.py"
    ),
    "plot": _stage_code("extrembench/figures.py", "extrembench/published.py", "scripts/plot.py"),
}


# ---------------------------------------------------------------- problems and shards
def shard_of(problem_id, n_shards):
    """Stable hash bucket: the same id always lands in the same shard, whatever else changes."""
    return int(hashlib.sha256(problem_id.encode()).hexdigest(), 16) % n_shards


def problem_files(benchmark):
    bench = config["benchmarks"][benchmark]
    files = sorted(glob.glob(os.path.join(bench["problems"], "*.yaml")))
    if bench["limit"]:
        files = files[: bench["limit"]]
    return files


def shard_problem_files(wildcards):
    n_shards = config["benchmarks"][wildcards.benchmark]["shards"]
    return [f for f in problem_files(wildcards.benchmark) if shard_of(Path(f).stem, n_shards) == int(wildcards.shard)]


def shards(benchmark):
    return range(config["benchmarks"][benchmark]["shards"])


# ---------------------------------------------------------------- artifact paths
def problems_table(benchmark, shard):
    return f"{RESULTS}/{benchmark}/problems/shard-{shard}.parquet"


def grades_table(benchmark, model, shard):
    return f"{RESULTS}/{benchmark}/grade/{model}/shard-{shard}.parquet"


def all_grade_tables():
    return [grades_table(b, m, s) for b in BENCHMARKS for m in MODELS for s in shards(b)]


LEADERBOARD = {
    "parquet": f"{RESULTS}/leaderboard.parquet",
    "csv": f"{RESULTS}/leaderboard.csv",
    "md": f"{RESULTS}/leaderboard.md",
}
FIGURES = {
    "main": f"{RESULTS}/figures/accuracy_by_model.png",
}


def all_targets():
    return [*LEADERBOARD.values(), *FIGURES.values()]


# ---------------------------------------------------------------- resources
def size_resources(model):
    return config["resources"][config["models"][model]["size_class"]]


def model_settings(wildcards):
    """Everything in the registry entry: a changed setting reruns that model's jobs."""
    return json.dumps(config["models"][wildcards.model], sort_keys=True)


# ---------------------------------------------------------------- end-of-run summary
def print_run_summary(start):
    """Requests sent vs served from cache in this invocation, and every problem not confirmed."""
    totals = {"planned": 0, "cached": 0, "sent": 0, "computed": 0, "failed": 0}
    jobs = 0
    for path in glob.glob(f"{RESULTS}/*/generate/*/shard-*.requests.json"):
        if os.path.getmtime(path) >= start:
            stats = json.loads(Path(path).read_text())
            jobs += 1
            for key in totals:
                totals[key] += stats.get(key, 0)
    if jobs:
        print(
            f"extrembench: {jobs} generate job(s) ran: {totals['sent']} LLM request(s) sent, "
            f"{totals['computed']} reference-solver answer(s) computed, {totals['cached']} served from cache, "
            f"{totals['failed']} failed",
            file=sys.stderr,
        )
    else:
        print("extrembench: no generate job ran: 0 LLM requests sent", file=sys.stderr)
    import pyarrow.parquet as pq

    flagged = []
    for benchmark in EXTREMAL:
        for shard in shards(benchmark):
            path = problems_table(benchmark, shard)
            if os.path.exists(path):
                table = pq.read_table(path, columns=["problem_id", "status", "reason"]).to_pylist()
                flagged += [r for r in table if r["status"] != "confirmed"]
    for row in sorted(flagged, key=lambda r: r["problem_id"]):
        print(f"extrembench: problem {row['problem_id']} is {row['status']} (not asked): {row['reason']}", file=sys.stderr)
