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

from extrembench.core.artifacts import MISSES, read_artifact, write_csv
from extrembench.report.misses.classes import CLASSES, KINDS
from extrembench.report.results import metrics
from extrembench.report.results.aggregate import write_checksums
from extrembench.report.results.leaderboard import group_seed

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
    # misses that state a final answer (abstentions and answers left in the reasoning have no value
    # to place): the denominator of "how often is a wrong answer the all-equal value"
    answered = missed - row["no_answer"] - row["answer_in_reasoning_only"]
    row["n_answered_missed"] = answered
    row["all_equal_share_of_answered_misses"] = row["attained_all_equal"] / answered if answered else float("nan")
    return row


def build_misses_table(misses: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """One row per (benchmark, model), sorted; the class counts of each row sum to n_samples."""
    rows = [
        misses_row(benchmark, model, frame.reset_index(drop=True), seed)
        for (benchmark, model), frame in misses.groupby(["benchmark", "model"], sort=True)
    ]
    # no sample at all (every problem refuted or invalid): the same columns, so readers of the
    # table (the figure, audit, the end-of-run summary) need no special case
    columns = list(misses_row("", "", pd.DataFrame(columns=MISSES.names), seed))
    table = pd.DataFrame(rows, columns=columns)
    if not table.empty:
        counted = table[list(CLASSES)].sum(axis=1)
        if not (counted == table["n_samples"]).all():  # the classes are exclusive and exhaustive
            raise ValueError("misses table: class counts do not sum to the sample count")
    return table


MISSES_SEED = 0  # the bootstrap seed of misses.csv; `extrembench audit` recomputes with it


def read_misses(paths) -> pd.DataFrame:
    frames = [read_artifact(p, "misses").to_pandas() for p in paths]
    frames = [f for f in frames if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=MISSES.names)


def write_misses_report(paths, *, table: Path, figure: Path, checksums: Path) -> pd.DataFrame:
    from extrembench.report.misses.figure import plot_misses  # matplotlib: only the report rule draws

    """The table and figure, and `checksums`: the sha256 of every misses shard read and of every
    file written, which `extrembench audit` rechecks before it re-derives the table's numbers."""
    paths = sorted(str(p) for p in paths)
    built = build_misses_table(read_misses(paths), seed=MISSES_SEED)
    write_csv(built, table)
    png, pdf = plot_misses(built, figure)
    write_checksums([*paths, table, png, pdf], checksums)
    return built
