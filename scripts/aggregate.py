"""aggregate: every grade table → leaderboard (rules/report.smk)."""

from pathlib import Path

from extrembench import stages
from extrembench.workflow import start_job

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
stages.aggregate(list(smk.input.grades), parquet=Path(smk.output.parquet), csv=Path(smk.output.csv),
                 markdown=Path(smk.output.md), config=smk.config)
