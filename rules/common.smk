import functools
import glob
import json
import os
import re
import sys
import time
from pathlib import Path

from snakemake.exceptions import WorkflowError

from extrembench.core.config import ConfigError, read_config_yaml, validate_config
from extrembench.generation.run import count_missing
from extrembench.cluster.resources import job_request
from extrembench.core.provenance import stage_code_hash
from extrembench.core.shards import shard_of, take

workflow_start = time.time()

# ---------------------------------------------------------------- config
# Validate before any job is planned: a bad key or value stops here, naming key and allowed values.
# Input functions read the typed CONFIG; Snakemake's own `config` (a plain dict, which scripts get
# as snakemake.config) is replaced by its dump, defaults filled, so a script rebuilds the typed
# config with one Config.model_validate call.
try:
    # Snakemake's own YAML reading keeps the last of a repeated key silently: read each file again
    for _configfile in workflow.configfiles:
        read_config_yaml(_configfile)
    CONFIG = validate_config(config)
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None
config.clear()
config.update(CONFIG.model_dump(mode="json"))

BASE = Path(workflow.basedir)
RESULTS = CONFIG.results_dir.rstrip("/")  # results/ for the default run, results/<experiment> for the others


# ---------------------------------------------------------------- damaged results
# A truncated or wrong-schema Parquet file under results/ looks current to Snakemake (its mtime
# is fine), so every job reading it would fail on every rerun, naming nothing. Stop before any job,
# naming each such file and the commands that rebuild it. (Not removed here: while this file is
# parsed nothing tells a dry run from a real one, and a dry run must change nothing.) Job
# processes (a cluster job parses this file again) leave results/ alone.
def check_damaged_results():
    import shlex

    from extrembench.core.artifacts import damaged_artifacts

    if not workflow.is_main_process:
        return
    damaged = damaged_artifacts(RESULTS)
    if damaged:
        names = " ".join(shlex.quote(str(path)) for path, _ in damaged)
        raise WorkflowError(
            "damaged result file(s), which Snakemake would take as up to date:\n"
            + "".join(f"  {path}: {why}\n" for path, why in damaged)
            + f"rebuild them from their inputs (answers come from the cache): rm {names} && snakemake "
            f"[your options] {names}; then rerun your usual command (what reads them reruns too). Removing "
            "them alone is not enough: Snakemake does not rebuild a missing file whose readers are up to date"
        )


check_damaged_results()
BENCHMARKS = CONFIG.evaluate.benchmarks
MODELS = CONFIG.evaluate.models
EXTREMAL = [b for b in BENCHMARKS if CONFIG.benchmarks[b].kind == "extremal"]


def _names_of_kind(kind):
    """Regex matching the configured benchmarks of one kind (never matches when there are none),
    so validate and ingest never compete for the same problem table."""
    names = [re.escape(b) for b, spec in CONFIG.benchmarks.items() if spec.kind == kind]
    return "|".join(names) if names else "(?!)"


EXTREMAL_NAMES = _names_of_kind("extremal")
INGESTED_NAMES = _names_of_kind("ingested")
FORMALIZED_NAMES = _names_of_kind("formalized")
# Benchmarks whose problems are built here and validated by computation.
VALIDATED = [b for b in BENCHMARKS if CONFIG.benchmarks[b].kind in ("extremal", "formalized")]


wildcard_constraints:
    benchmark="|".join(map(re.escape, CONFIG.benchmarks)),
    model="|".join(map(re.escape, CONFIG.models)),
    shard=r"\d+",


# ---------------------------------------------------------------- code tracked by content
# `script:` rules are tracked by mtime only and their imports not at all: each stage gets a
# params entry hashing its script and every package module that script imports (computed from
# the import statements, never listed by hand), so a real code edit reruns it and a `touch` does not.
CODE = {
    name: stage_code_hash([f"scripts/{name}.py"], base=BASE)
    for name in ("translate", "convert", "formalize", "validate", "review", "ingest", "vary", "generate",
                 "grade", "aggregate", "plot", "compare", "misses", "misses_report")
}


# ---------------------------------------------------------------- problems and shards
@functools.lru_cache(maxsize=None)
def _folder_entries(benchmark):
    """The problems folder sorted into problem files and refused entries (symlinks leaving the
    folder, directories, FIFOs, devices, names that are not identifiers), by lstat alone: a refused
    entry never becomes a job input (Snakemake would hash a FIFO or /dev/zero forever) and is
    recorded as an invalid row by the convert job of its shard."""
    from extrembench.core.problem_entries import problem_folder_entries

    bench = CONFIG.benchmarks[benchmark]
    entries = problem_folder_entries(bench.problems)
    kept = set(take(entries.ids, bench.limit))
    return ({i: p for i, p in entries.files.items() if i in kept},
            {i: r for i, r in entries.refused.items() if i in kept})


def problem_files(benchmark):
    files = _folder_entries(benchmark)[0]
    return [files[i] for i in sorted(files)]


def problem_entry_count(benchmark):
    return sum(map(len, _folder_entries(benchmark)))


@functools.lru_cache(maxsize=None)
def _files_by_shard(benchmark):
    """Problem files grouped by shard, computed once per benchmark (not once per job: with
    hundreds of shards, rehashing every id per job dominated the DAG build)."""
    n_shards = CONFIG.benchmarks[benchmark].shards
    grouped = {}
    for path in problem_files(benchmark):
        grouped.setdefault(shard_of(Path(path).stem, n_shards), []).append(path)
    return grouped


@functools.lru_cache(maxsize=None)
def _refused_by_shard(benchmark):
    n_shards = CONFIG.benchmarks[benchmark].shards
    grouped = {}
    for problem_id, (path, reason) in sorted(_folder_entries(benchmark)[1].items()):
        grouped.setdefault(shard_of(problem_id, n_shards), []).append([problem_id, path, reason])
    return grouped


def refused_entries(wildcards):
    """params entry of the convert job: [id, path, reason] of each refused entry of its shard."""
    return json.dumps(_refused_by_shard(wildcards.benchmark).get(int(wildcards.shard), []))


def check_problem_sets():
    """An empty problem set, or more shards than problems, is said before any job. Said, not
    raised: `snakemake --lint` and plan-only dry runs parse the workflow where no problem exists."""
    from extrembench.core.shards import problem_set_check

    if not workflow.is_main_process:
        return
    for benchmark in BENCHMARKS:
        bench = CONFIG.benchmarks[benchmark]
        if bench.kind != "extremal":
            continue
        error, warning = problem_set_check(benchmark, bench.problems, problem_entry_count(benchmark), bench.shards)
        for message in (error, warning):
            if message:
                print(f"extrembench: {message}", file=sys.stderr)


check_problem_sets()


def shard_problem_files(wildcards):
    return _files_by_shard(wildcards.benchmark).get(int(wildcards.shard), [])


def validation_sources(wildcards):
    """What a validate job reads besides the conversions: the problem files, or the statements file."""
    bench = CONFIG.benchmarks[wildcards.benchmark]
    return [bench.statements] if bench.kind == "formalized" else shard_problem_files(wildcards)


def dataset_root(benchmark):
    """Local copy of an ingested dataset (offline mode): `root`, else the shared data folder."""
    from extrembench.sources.ingest import local_root

    bench = CONFIG.benchmarks[benchmark]
    return bench.root or str(local_root(bench.dataset))


def dataset_files(wildcards):
    from extrembench.sources.ingest import DATASETS

    root = Path(dataset_root(wildcards.benchmark))
    return [str(root / name) for name in DATASETS[CONFIG.benchmarks[wildcards.benchmark].dataset].files]


def shards(benchmark):
    return range(CONFIG.benchmarks[benchmark].shards)


# ---------------------------------------------------------------- artifact paths
def problems_table(benchmark, shard):
    return f"{RESULTS}/{benchmark}/problems/shard-{shard}.parquet"


def grades_table(benchmark, model, shard):
    return f"{RESULTS}/{benchmark}/grade/{model}/shard-{shard}.parquet"


def all_grade_tables():
    return [grades_table(b, m, s) for b in BENCHMARKS for m in MODELS for s in shards(b)]


def all_conversion_tables():
    """The convert/formalize tables: where each problem's `date` is read for the date split."""
    return [f"{RESULTS}/{b}/convert/shard-{s}.parquet" for b in VALIDATED for s in shards(b)]


def all_generation_tables():
    return [f"{RESULTS}/{b}/generate/{m}/shard-{s}.parquet" for b in BENCHMARKS for m in MODELS for s in shards(b)]


LEADERBOARD = {
    "parquet": f"{RESULTS}/leaderboard.parquet",
    "csv": f"{RESULTS}/leaderboard.csv",
    "md": f"{RESULTS}/leaderboard.md",
    # sha256 of the three files above, rechecked by `extrembench audit`
    "checksums": f"{RESULTS}/leaderboard.sha256",
    # the HTML report's first screen (Snakefile `report:`), reStructuredText
    "front_page": f"{RESULTS}/report_front_page.rst",
}
TABLES = {
    "difficulty": f"{RESULTS}/tables/difficulty.csv",
    "techniques": f"{RESULTS}/tables/techniques.csv",
    "correlations": f"{RESULTS}/tables/correlations.csv",
    "published": f"{RESULTS}/tables/published_comparison.csv",
    # accuracy before vs after each dated model's split date (extrembench/report/results/by_date.py)
    "date_split": f"{RESULTS}/tables/date_split.csv",
    "date_split_parquet": f"{RESULTS}/tables/date_split.parquet",
    # per model: originals vs their variants vs the fresh benchmark (extrembench/report/results/slices.py)
    "slices": f"{RESULTS}/tables/slices.csv",
    "slices_parquet": f"{RESULTS}/tables/slices.parquet",
}
# Accuracies the source papers report, shown beside reproduced ones (data/published/README.md).
# Relative to the working directory (the checkout): an absolute path would change when the
# checkout moves, and Snakemake would rerun aggregate and plot for it.
PUBLISHED_TABLES = sorted(os.path.relpath(p) for p in glob.glob(str(BASE / "data" / "published" / "*.csv")))
FIGURES = {
    "main": f"{RESULTS}/figures/accuracy_by_model.png",
    "scatter": f"{RESULTS}/figures/benchmark_scatter.png",
    "tokens": f"{RESULTS}/figures/accuracy_vs_tokens.png",
    "pass_at_k": f"{RESULTS}/figures/pass_at_k.png",
    "heatmap": f"{RESULTS}/figures/problem_heatmap.png",
    "cost": f"{RESULTS}/figures/accuracy_vs_cost.png",
    "date_split": f"{RESULTS}/figures/accuracy_by_date.png",
    "slices": f"{RESULTS}/figures/originals_variants_fresh.png",
}


REVIEW = f"{RESULTS}/tables/review.csv"
# Paired comparisons (rules/compare.smk); variants of extremal benchmark B are asked as B-variants.
COMPARISONS = {
    "memorization": f"{RESULTS}/tables/memorization.csv",
    "pairwise": f"{RESULTS}/tables/pairwise.csv",
    "rank_correlations": f"{RESULTS}/tables/rank_correlations.csv",
    "original_vs_variant": f"{RESULTS}/figures/original_vs_variant.png",
}
VARIED = [CONFIG.benchmarks[b].parent for b in BENCHMARKS if CONFIG.benchmarks[b].kind == "variants"]


# How models miss (rules/report.smk, extrembench/report/misses): every benchmark whose problems
# carry a machine-checkable extremal spec (extremal, their variants, formalized).
MISSES_BENCHMARKS = [b for b in BENCHMARKS if CONFIG.benchmarks[b].kind in ("extremal", "variants", "formalized")]
MISSES_OUTPUTS = {
    "table": f"{RESULTS}/tables/misses.csv",
    "figure": f"{RESULTS}/figures/misses.png",
    "checksums": f"{RESULTS}/tables/misses.sha256",
}


def misses_table(benchmark, model, shard):
    return f"{RESULTS}/{benchmark}/misses/{model}/shard-{shard}.parquet"


def all_misses_tables():
    return [misses_table(b, m, s) for b in MISSES_BENCHMARKS for m in MODELS for s in shards(b)]


def variants_table(benchmark, shard):
    return f"{RESULTS}/{benchmark}/variants/shard-{shard}.parquet"


def all_targets():
    misses = list(MISSES_OUTPUTS.values()) if MISSES_BENCHMARKS else []
    return [*LEADERBOARD.values(), *TABLES.values(), *FIGURES.values(), REVIEW, *COMPARISONS.values(), *misses]


# ---------------------------------------------------------------- resources
# Every job's cluster request comes from a size class in config `resources` via
# extrembench.cluster.resources.job_request: generate from its model's class, every other rule from `cpu`.
# Memory and runtime double with each retry (`attempt`), so a job killed for either reruns bigger.
def cpu_resource(key):
    """One `resources:` entry of a CPU rule (the `cpu` size class, CPU partition)."""
    return lambda wildcards, attempt: job_request("cpu", CONFIG.resources["cpu"], CONFIG.cluster, attempt).get(key)


@functools.lru_cache(maxsize=4096)
def _generate_request(model, benchmark, problems_path, problems_stamp, attempt):
    size_class = CONFIG.models[model].size_class
    size = CONFIG.resources[size_class]
    # A shard whose every request is already cached needs no GPU: send it to the CPU partition.
    # Before the problems table exists (a dry run) the model's full ask is shown.
    if size.gpu and problems_stamp is not None:
        if count_missing(Path(problems_path), benchmark=benchmark, model=model, config=CONFIG) == 0:
            size_class, size = "cpu", CONFIG.resources["cpu"]
    return job_request(size_class, size, CONFIG.cluster, attempt)


def generate_resource(key):
    """One `resources:` entry of generate; takes `input`, so Snakemake evaluates it again just
    before submission, when the shard's problems table is built and the cache can be asked."""

    def evaluate(wildcards, input, attempt):
        try:
            stat = os.stat(input.problems)
            stamp = (stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            stamp = None
        return _generate_request(wildcards.model, wildcards.benchmark, input.problems, stamp, attempt).get(key)

    return evaluate


def settings_json(**sections):
    """A params entry of the config sections a job reads: a changed setting reruns it."""
    return json.dumps({name: None if section is None else section.model_dump(mode="json")
                       for name, section in sections.items()}, sort_keys=True)


def llm_stage_settings(stage):
    """The LLM settings a build stage depends on (stage keys + the chosen registry entry)."""
    settings = getattr(CONFIG, stage)
    return settings_json(stage=settings, model=CONFIG.models.get(settings.model))


def model_settings(wildcards):
    """Everything in the registry entry: a changed setting reruns that model's jobs."""
    return settings_json(model=CONFIG.models[wildcards.model])


# ---------------------------------------------------------------- after a failed run
def remove_stale_results(start):
    """A failed job leaves the previous leaderboard, tables and figures out of date: remove the
    ones this run did not rewrite, and say so."""
    from extrembench.core.workflow import remove_stale_results as remove

    removed = remove([*LEADERBOARD.values(), *TABLES.values(), *FIGURES.values()], start)
    if removed:
        print(f"extrembench: a job failed, so the previous results no longer match their inputs; removed "
              f"{', '.join(removed)} (the next successful run rebuilds them)", file=sys.stderr)


# ---------------------------------------------------------------- software environments
def generate_env(wildcards):
    """Conda env of a generate job: SGLang's CUDA stack only where a model needs it."""
    backend = CONFIG.models[wildcards.model].backend
    return {"sglang": "../envs/sglang.yaml", "llamacpp": "../envs/llamacpp.yaml"}.get(backend, "../envs/pipeline.yaml")


def report_front_page() -> str:
    """The HTML report's description: this run's leaderboard when aggregate has written it (a
    report is built after the run), else the static page that says how to get one."""
    front = Path(LEADERBOARD["front_page"]).resolve()
    return str(front) if front.exists() else "report/workflow.rst"
