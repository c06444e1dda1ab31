"""aggregate: every grade table → leaderboard and tables (rules/report.smk)."""

from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.report.results.aggregate import aggregate

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
aggregate(
    list(smk.input.grades),
    outputs={k: Path(v) for k, v in smk.output.items()},
    config=Config.model_validate(smk.config),
    published_dir=smk.params.published,
    generation_files=list(smk.input.generations),
    conversion_files=list(smk.input.conversions),
    variant_files=list(smk.input.variants),
    dependents=list(smk.params.dependents),
)
