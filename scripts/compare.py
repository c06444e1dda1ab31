"""compare: memorization, pairwise and rank-correlation tables and the original-vs-variant figure
(rules/compare.smk)."""

from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.report.results.comparisons import compare

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
compare(
    list(smk.input.grades),
    list(smk.input.variants),
    outputs={k: Path(v) for k, v in smk.output.items()},
    config=Config.model_validate(smk.config),
    published_dir=smk.params.published,
)
