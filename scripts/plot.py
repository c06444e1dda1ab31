"""plot: the five figures from the leaderboard and grade tables (rules/report.smk)."""

from pathlib import Path

import pandas as pd

from extrembench.core.artifacts import read_artifact
from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.report import figures
from extrembench.report.published import published_for_run

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
board = pd.read_parquet(smk.input.leaderboard)
grades = pd.concat([read_artifact(p, "grades").to_pandas() for p in smk.input.grades], ignore_index=True)
correlations = pd.read_csv(smk.input.correlations)
published = published_for_run(smk.params.published, Config.model_validate(smk.config))
# Published bars only for models this run evaluated: the figure compares, it does not catalogue.
published = published[published["model"].isin(board["model"])]
figures.plot_main(board, Path(smk.output.main), published=published)
figures.plot_scatter(board, Path(smk.output.scatter), correlations=correlations)
figures.plot_accuracy_vs_tokens(board, Path(smk.output.tokens))
figures.plot_pass_at_k(board, Path(smk.output.pass_at_k))
figures.plot_heatmap(grades, Path(smk.output.heatmap))
figures.plot_accuracy_vs_cost(board, Path(smk.output.cost))
