"""vary: variants of one shard's confirmed problems (rules/problems.smk)."""

from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.generation.cheap import answering_guess
from extrembench.generation.constant import benchmark_constant
from extrembench.sources.variants import vary_shard
from extrembench.verify.numeric.search import Effort, search_extremum
from extrembench.verify.validate import check_problem

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
config = Config.model_validate(smk.config)
settings = config.benchmarks[wc.benchmark].variants
validation = config.validation
effort = Effort.from_settings(validation)


# The validator with the run's validation settings: the same check every parent passed.
def check(problem):
    return check_problem(problem, seed=validation.seed, effort=effort)


def search(problem):
    return search_extremum(problem, seed=validation.seed, effort=effort)


# The constant guess answers a variant what it answers its parent's set (generation/constant.py).
constant = benchmark_constant(config, wc.benchmark)


def guessed(problem):
    return answering_guess(problem, constant)


vary_shard(
    Path(smk.input.table),
    list(smk.input.problems),
    {"variants": Path(smk.output.variants), "problems": Path(smk.output.problems)},
    benchmark=wc.benchmark,
    variant_benchmark=f"{wc.benchmark}-variants",
    per_problem=settings.per_problem,
    seed=settings.seed,
    kinds=settings.kinds,
    share=settings.share,
    dag_node=node,
    check=check,
    search=search,
    guessed=guessed,
)
