"""Accuracy by date (issue 40): each dated model's accuracy on problems set before its split date
against those set on or after it, per benchmark, with bootstrap intervals (docs/metrics.md).

The split date is the model's `knowledge_cutoff` when the registry gives one, else its
`release_date`. Dates may be partial (YYYY or YYYY-MM): a problem goes to a side only when every
day its date may stand for lies on that side of every day the split date may stand for; the rest
are counted as undecided, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from extrembench.core.artifacts import read_artifact
from extrembench.core.dates import date_span
from extrembench.report.results import paired
from extrembench.report.results.leaderboard import group_seed, problem_mean_accuracy, trials_by_problem

BEFORE, AFTER, UNDECIDED, UNDATED = "before", "after", "undecided", "undated"
ALL = "all benchmarks"  # the row pooling a model's problems over every benchmark of the run

DATE_SPLIT = pa.schema(
    [
        ("benchmark", pa.string()),
        ("model", pa.string()),
        ("split_date", pa.string()),  # null: the model has no date in the registry
        ("split_basis", pa.string()),  # knowledge_cutoff | release_date
        ("n_before", pa.int64()),  # problems with a graded trial, dated before the split date
        ("accuracy_before", pa.float64()),
        ("before_low", pa.float64()),
        ("before_high", pa.float64()),
        ("n_after", pa.int64()),  # ... dated on or after it
        ("accuracy_after", pa.float64()),
        ("after_low", pa.float64()),
        ("after_high", pa.float64()),
        ("difference", pa.float64()),  # after − before
        ("diff_low", pa.float64()),
        ("diff_high", pa.float64()),
        ("n_undecided", pa.int64()),  # the split date falls inside the problem's date
        ("n_undated", pa.int64()),
        ("note", pa.string()),  # why a number is missing ('' when none is)
    ]
)
_STATS = [f.name for f in DATE_SPLIT if f.type == pa.float64()]


def split_date(model) -> tuple[str | None, str | None]:
    """(date, which field it is) a model's accuracy is split at: the knowledge cut-off when given
    (what the model can have read), else the release date; (None, None) without either."""
    if getattr(model, "knowledge_cutoff", None):
        return model.knowledge_cutoff, "knowledge_cutoff"
    if getattr(model, "release_date", None):
        return model.release_date, "release_date"
    return None, None


def date_side(problem_date: str | None, split: str) -> str:
    """'before' when every day `problem_date` may mean is before every day `split` may mean,
    'after' when every such day is on or after every day of the split, 'undated' without a date,
    else 'undecided' ('2025' against '2025-08-14' could be either side)."""
    if _undated(problem_date):
        return UNDATED
    first, last = date_span(problem_date)
    split_first, split_last = date_span(split)
    if last < split_first:
        return BEFORE
    if first >= split_last:
        return AFTER
    return UNDECIDED


def _undated(value) -> bool:
    return value is None or pd.isna(value)


def read_problem_dates(conversion_files: Sequence[str | Path]) -> pd.DataFrame:
    """(benchmark, problem_id, date) of every converted problem (date null when the file has none)."""
    frames = [read_artifact(p, "conversions").select(["benchmark", "problem_id", "date"]) for p in conversion_files]
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in ("benchmark", "problem_id", "date")})
    return pa.concat_tables(frames).to_pandas()


def build_date_split(
    grades: pd.DataFrame,
    dates: pd.DataFrame,
    splits: Mapping[str, tuple[str | None, str | None]],
    *,
    seed: int = 0,
    n_boot: int = 2000,
) -> pd.DataFrame:
    """One row per (benchmark, model) of `grades`, and per model graded on several benchmarks one
    more (benchmark ALL) pooling its problems; `splits`: model → split_date(model). A model
    without a date, or a benchmark without a dated problem, gets a row whose note says so."""
    by_problem = dates.drop_duplicates(["benchmark", "problem_id"]).set_index(["benchmark", "problem_id"])["date"]
    rows = []
    for (benchmark, model), frame in grades.groupby(["benchmark", "model"], sort=True):
        trials = {(benchmark, p): t for p, t in trials_by_problem(frame).items()}
        rows.append(_model_row(benchmark, model, trials, by_problem, splits, seed, n_boot))
    # the fresh slice is a benchmark of its own: only pooled do a model's problems fall on both sides
    for model, frame in grades.groupby("model", sort=True):
        if frame["benchmark"].nunique() > 1:
            trials = {
                (benchmark, p): t
                for benchmark, part in frame.groupby("benchmark", sort=True)
                for p, t in trials_by_problem(part).items()
            }
            rows.append(_model_row(ALL, model, trials, by_problem, splits, seed, n_boot))
    return pd.DataFrame(rows, columns=DATE_SPLIT.names)


def _model_row(benchmark: str, model: str, trials: dict, by_problem, splits, seed: int, n_boot: int) -> dict:
    """One table row: `trials` maps (benchmark, problem_id) to that problem's trial outcomes."""
    date, basis = splits.get(model, (None, None))
    problem_dates = {key: by_problem.get(key) for key in trials}
    key = group_seed(seed, "date_split", benchmark, model)
    row = _split_row(trials, problem_dates, date, seed=key, n_boot=n_boot)
    return {"benchmark": benchmark, "model": model, "split_date": date, "split_basis": basis, **row}


def _split_row(trials: dict, problem_dates: dict, split: str | None, *, seed: int, n_boot: int) -> dict:
    """The columns after split_basis for one model on one benchmark."""
    empty = dict.fromkeys(_STATS, float("nan")) | {"n_before": 0, "n_after": 0, "n_undecided": 0}
    n_undated = sum(map(_undated, problem_dates.values()))
    if split is None:
        return empty | {"n_undated": n_undated, "note": "the model has no knowledge_cutoff or release_date"}
    if n_undated == len(trials):
        return empty | {"n_undated": n_undated, "note": "no problem of this benchmark has a date"}
    sides = {side: [] for side in (BEFORE, AFTER, UNDECIDED, UNDATED)}
    for problem in sorted(trials):
        sides[date_side(problem_dates[problem], split)].append(trials[problem])
    return _side_stats(sides[BEFORE], sides[AFTER], seed=seed, n_boot=n_boot) | {
        "n_undecided": len(sides[UNDECIDED]),
        "n_undated": len(sides[UNDATED]),
    }


def _side_stats(before: list, after: list, *, seed: int, n_boot: int) -> dict:
    """Accuracy and interval of each side and their difference; seeds shared with the difference
    so the three intervals come from the same replicates."""
    before_low, before_high = paired.accuracy_interval(before, n_boot=n_boot, seed=seed)
    after_low, after_high = paired.accuracy_interval(after, n_boot=n_boot, seed=seed + 1)
    difference, low, high = paired.independent_difference(before, after, n_boot=n_boot, seed=seed)
    graded = [_n_graded(before), _n_graded(after)]
    sides = ("before", "on or after")
    notes = [f"no graded problem dated {side} the split date" for side, n in zip(sides, graded) if n == 0]
    return {
        "n_before": graded[0],
        "accuracy_before": problem_mean_accuracy(before),
        "before_low": before_low,
        "before_high": before_high,
        "n_after": graded[1],
        "accuracy_after": problem_mean_accuracy(after),
        "after_low": after_low,
        "after_high": after_high,
        "difference": difference,
        "diff_low": low,
        "diff_high": high,
        "note": "; ".join(notes),
    }


def _n_graded(rows: list) -> int:
    return sum(bool(np.any(~np.isnan(np.asarray(r, dtype=float)))) for r in rows)
