"""plot: the figures from the leaderboard, date-split, slices and grade tables (rules/report.smk)."""

from pathlib import Path

import pandas as pd

from extrembench.core.artifacts import read_artifact
from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.report.results import figures
from extrembench.report.results.published import published_for_run

start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
board = pd.read_parquet(smk.input.leaderboard)
grades = pd.concat([read_artifact(p, "grades").to_pandas() for p in smk.input.grades], ignore_index=True)
correlations = pd.read_csv(smk.input.correlations)
published = published_for_run(smk.params.published, Config.model_validate(smk.config))
# Published bars only for models this run evaluated: the figure compares, it does not catalogue.
published = published[published["model"].isin(board["model"])]
names = ("main", "scatter", "tokens", "pass_at_k", "heatmap", "cost", "date_split", "slices")
outputs = {name: Path(smk.output[name]) for name in names}
if board.empty:  # no benchmark had a confirmed problem: each figure says so (the run summary names why)
    for out in outputs.values():
        figures.no_result_figure(out)
else:
    figures.plot_main(board, outputs["main"], published=published)
    figures.plot_scatter(board, outputs["scatter"], correlations=correlations)
    figures.plot_accuracy_vs_tokens(board, outputs["tokens"])
    figures.plot_pass_at_k(board, outputs["pass_at_k"])
    figures.plot_heatmap(grades, outputs["heatmap"])
    figures.plot_accuracy_vs_cost(board, outputs["cost"])
    figures.plot_date_split(read_artifact(smk.input.date_split).to_pandas(), outputs["date_split"])
    figures.plot_slices(read_artifact(smk.input.slices).to_pandas(), outputs["slices"])
