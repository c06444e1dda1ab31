"""misses rows → results/tables/misses.csv and results/figures/misses.png (docs/metrics.md).

One table row per (benchmark, model): the count of each class (they sum to `n_samples`), its share
of the samples and a 95 % two-level bootstrap interval over problems (report/metrics.bootstrap_ci on
the class's 0/1 indicator, seeded per benchmark, model and class), and the breakdowns a reader asks
for next: the kind of suboptimal_attained point and the proof behind beyond_extremum.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from extrembench.core.artifacts import MISSES, read_artifact, write_csv
from extrembench.report import metrics
from extrembench.report.aggregate import write_checksums
from extrembench.report.figures import save_figure, styled
from extrembench.report.leaderboard import group_seed
from extrembench.report.misses import CLASSES, KINDS

BEYOND_PROOFS = ("bound", "sos", "numeric")


def _indicators(frame: pd.DataFrame, mask: pd.Series) -> list[np.ndarray]:
    """Per problem, the 0/1 indicator of `mask` over its samples (trials)."""
    flags = mask.astype(float)
    return [flags[group.index].to_numpy() for _, group in frame.groupby("problem_id", sort=True)]


def misses_row(benchmark: str, model: str, frame: pd.DataFrame, seed: int) -> dict:
    row: dict = {
        "benchmark": benchmark,
        "model": model,
        "n_problems": int(frame["problem_id"].nunique()),
        "n_samples": len(frame),
    }
    for name in CLASSES:
        mask = frame["miss_class"] == name
        low, high = metrics.bootstrap_ci(_indicators(frame, mask), seed=group_seed(seed, benchmark, model, name))
        row[name] = int(mask.sum())
        row[f"{name}_share"] = float(mask.mean()) if len(frame) else float("nan")
        row[f"{name}_low"], row[f"{name}_high"] = low, high
    attained = frame["miss_class"] == "suboptimal_attained"
    for kind in KINDS:
        row[f"attained_{kind}"] = int((attained & (frame["kind"] == kind)).sum())
    beyond = frame["miss_class"] == "beyond_extremum"
    for proof in BEYOND_PROOFS:
        row[f"beyond_by_{proof}"] = int((beyond & (frame["proof"] == proof)).sum())
    in_reasoning = frame["miss_class"] == "answer_in_reasoning_only"
    row["in_reasoning_right"] = int((in_reasoning & (frame["reasoning_correct"] == True)).sum())  # noqa: E712 (nullable)
    missed = len(frame) - row["correct"]
    row["n_missed"] = missed
    row["all_equal_share_of_missed"] = row["attained_all_equal"] / missed if missed else float("nan")
    return row


def build_misses_table(misses: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """One row per (benchmark, model), sorted; the class counts of each row sum to n_samples."""
    rows = [
        misses_row(benchmark, model, frame.reset_index(drop=True), seed)
        for (benchmark, model), frame in misses.groupby(["benchmark", "model"], sort=True)
    ]
    table = pd.DataFrame(rows)
    if not table.empty:
        counted = table[list(CLASSES)].sum(axis=1)
        if not (counted == table["n_samples"]).all():  # the classes are exclusive and exhaustive
            raise ValueError("misses table: class counts do not sum to the sample count")
    return table


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
    """Stacked horizontal bars, one per (model, benchmark): the share of each class, correct first."""
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


MISSES_SEED = 0  # the bootstrap seed of misses.csv; `extrembench audit` recomputes with it


def read_misses(paths) -> pd.DataFrame:
    frames = [read_artifact(p, "misses").to_pandas() for p in paths]
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=MISSES.names)


def write_misses_report(paths, *, table: Path, figure: Path, checksums: Path) -> pd.DataFrame:
    """The table and figure, and `checksums`: the sha256 of every misses shard read and of every
    file written, which `extrembench audit` rechecks before it re-derives the table's numbers."""
    paths = sorted(str(p) for p in paths)
    built = build_misses_table(read_misses(paths), seed=MISSES_SEED)
    write_csv(built, table)
    png, pdf = plot_misses(built, figure)
    write_checksums([*paths, table, png, pdf], checksums)
    return built
