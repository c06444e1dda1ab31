"""plot: the figures from the leaderboard and grade tables (rules/report.smk)."""

from pathlib import Path

import pandas as pd

from extrembench.artifacts import read_artifact
from extrembench.figures import plot_main
from extrembench.workflow import start_job

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
leaderboard = pd.read_parquet(smk.input.leaderboard)
plot_main(leaderboard, Path(smk.output.main))
