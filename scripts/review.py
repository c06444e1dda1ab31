"""review: every built problem the validator did not confirm, with why (rules/build.smk)."""

from pathlib import Path

from extrembench.build.review import review_table
from extrembench.workflow import start_job

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
review_table(list(smk.input.problems), Path(smk.output.review))
