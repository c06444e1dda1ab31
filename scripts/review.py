"""review: every built problem the validator did not confirm, with why (rules/problems.smk)."""

from pathlib import Path

from extrembench.core.workflow import start_job
from extrembench.sources.review import review_table

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
review_table(list(smk.input.problems), Path(smk.output.review))
