"""misses_report: every misses shard → results/tables/misses.csv and results/figures/misses.png."""

from pathlib import Path

from extrembench.core.workflow import start_job
from extrembench.report.misses.table import write_misses_report

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
write_misses_report(
    list(smk.input.misses),
    table=Path(smk.output.table),
    figure=Path(smk.output.figure),
    checksums=Path(smk.output.checksums),
)
