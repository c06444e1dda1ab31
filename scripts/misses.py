"""misses: one (benchmark, model, shard) of an extremal benchmark (rules/report.smk)."""

from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.report.misses_stage import misses_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
settings = Config.model_validate(smk.config).grading
misses_shard(
    Path(smk.input.grades),
    Path(smk.input.generations),
    Path(smk.input.problems),
    Path(smk.output.misses),
    dag_node=node,
    mode=settings.mode,
    timeout_s=settings.timeout_s,
)
