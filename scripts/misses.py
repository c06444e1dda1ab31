"""misses: one (benchmark, model, shard) of an extremal benchmark (rules/report.smk)."""

from pathlib import Path

from extrembench.core.workflow import start_job
from extrembench.report.misses.stage import misses_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
misses_shard(Path(smk.input.grades), Path(smk.input.problems), Path(smk.output.misses), dag_node=node)
