"""results/figures/misses.png: the misses table as stacked bars, one per (model, benchmark)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from extrembench.report.misses.classes import CLASSES
from extrembench.report.results.figures import save_figure, styled

# Okabe–Ito hues for the classes a reader compares, greys for the ones without a value to place.
CLASS_COLOURS = {
    "correct": "#009E73",
    "no_answer": "#DDDDDD",
    "answer_in_reasoning_only": "#56B4E9",
    "unparsable": "#AAAAAA",
    "non_real": "#777777",
    "beyond_extremum": "#D55E00",
    "suboptimal_attained": "#E69F00",
    "wrong_sense_value": "#CC79A7",
    "suboptimal_unexplained": "#0072B2",
    "undecided": "#F0E442",
}


@styled
def plot_misses(table: pd.DataFrame, out_png: str | Path) -> tuple[Path, Path]:
    """Stacked horizontal bars, one per (model, benchmark): the share of each class, correct first.
    Without a row (no graded sample: every problem refuted or invalid) the figure says so."""
    if table.empty:
        return _empty_figure(out_png)
    labels = [f"{m}\n{b}" for b, m in zip(table["benchmark"], table["model"])]
    figure = Figure(figsize=(7.5, 2.0 + 0.55 * max(len(table), 1)), layout="constrained")
    axes = figure.add_subplot(1, 1, 1)
    positions = np.arange(len(table))[::-1]
    left = np.zeros(len(table))
    for name in CLASSES:
        shares = table[f"{name}_share"].to_numpy(dtype=float) * 100 if len(table) else np.zeros(0)
        if not np.any(shares > 0):
            continue
        axes.barh(positions, shares, left=left, color=CLASS_COLOURS[name], label=name.replace("_", " "), height=0.7)
        for y, x0, width in zip(positions, left, shares):
            if width >= 6:
                axes.text(x0 + width / 2, y, f"{width:.0f}", ha="center", va="center", fontsize=7)
        left += shares
    axes.set_yticks(positions, labels)
    axes.set_xlim(0, 100)
    axes.set_xlabel("share of samples (%)")
    axes.set_title("How models miss: every graded sample by class (docs/metrics.md)")
    figure.legend(loc="outside lower center", ncol=4, frameon=False)
    return save_figure(figure, out_png)


def _empty_figure(out_png: str | Path) -> tuple[Path, Path]:
    figure = Figure(figsize=(6.0, 2.0), layout="constrained")
    axes = figure.add_subplot(1, 1, 1)
    axes.set_axis_off()
    axes.set_title("How models miss (docs/metrics.md)")
    message = "No graded sample: no benchmark had a confirmed problem to ask (see tables/review.csv)."
    axes.text(0.5, 0.5, message, ha="center", va="center", wrap=True, transform=axes.transAxes)
    return save_figure(figure, out_png)
