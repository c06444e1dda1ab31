"""Originals, variants and fresh problems side by side (issue 40): per model, accuracy on the
original problems that have a confirmed variant, on those variants (paired: same problems, so the
difference measures memorisation), on the fresh benchmark (problems newer than the models: the
difference against the originals measures freshness), and on the whole originals benchmark.

Which benchmark is which comes from the config: a `variants` benchmark names its `parent` (the
originals), and the benchmarks listed under `aggregate.fresh` are the fresh slice (docs/metrics.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from extrembench.core.artifacts import SCHEMAS, read_artifact
from extrembench.report.results import paired
from extrembench.report.results.comparisons import paired_variant_rows, variant_children
from extrembench.report.results.leaderboard import group_seed, problem_mean_accuracy, trials_by_problem

# Only answer-changing variants count as fresh versions: a renamed or rephrased problem keeps its
# answer, so a model that recalls the published answer still gets it right (they are the controls
# of the memorization table, not fresh problems).
VARIANT_KINDS = ("constants",)


def _side(name: str) -> list[tuple[str, pa.DataType]]:
    """n, accuracy and 95 % interval of one slice."""
    return [(f"n_{name}", pa.int64()), (f"accuracy_{name}", pa.float64())] + [
        (f"{name}_{end}", pa.float64()) for end in ("low", "high")
    ]


def _difference(name: str) -> list[tuple[str, pa.DataType]]:
    return [(column, pa.float64()) for column in _names(name)]


def _names(name: str) -> list[str]:
    """The difference columns of one slice: the value and its interval."""
    return [f"{name}_difference", f"{name}_diff_low", f"{name}_diff_high"]


SLICES = pa.schema(
    [
        ("benchmark", pa.string()),  # the originals (parent of variant_benchmark); null: no variants benchmark
        ("variant_benchmark", pa.string()),
        ("fresh_benchmark", pa.string()),  # the run's benchmarks of aggregate.fresh, ", "-joined; null: none
        ("model", pa.string()),
        *_side("all"),  # every graded problem of `benchmark`
        *_side("originals"),  # the problems of `benchmark` paired with a graded variant
        *_side("variants"),  # their variants, a parent's variants pooled into one row
        *_difference("variants"),  # variants − originals, paired bootstrap
        *_side("fresh"),
        *_difference("fresh"),  # fresh − all, independent bootstrap (different problems)
        ("note", pa.string()),  # why a number is missing ('' when none is)
    ]
)


def slice_benchmarks(config) -> tuple[dict[str, str], list[str]]:
    """({originals benchmark: its variants benchmark}, [fresh benchmarks]) among the evaluated ones."""
    evaluated = {name: config.benchmarks[name] for name in config.evaluate.benchmarks}
    pairs = {spec.parent: name for name, spec in evaluated.items() if spec.kind == "variants"}
    fresh = [name for name in evaluated if name in config.aggregate.fresh]
    return dict(sorted(pairs.items())), fresh


def build_slices(
    grades: pd.DataFrame,
    variants: pd.DataFrame,
    *,
    pairs: Mapping[str, str],
    fresh: Sequence[str],
    models: Sequence[str],
    seed: int = 0,
    n_boot: int = 2000,
) -> pd.DataFrame:
    """One row per (originals benchmark of `pairs`, model); one row per model with benchmark null
    when the run has no variants benchmark. Every model of `models` gets its rows, graded or not:
    what is missing is said in `note`, never left as a silent gap."""
    fresh_grades = grades[grades["benchmark"].isin(fresh)]
    rows = []
    for benchmark, variant_benchmark in dict(pairs).items() or [(None, None)]:
        children = variant_children(variants, benchmark, kinds=VARIANT_KINDS) if benchmark else {}
        for model in sorted(set(models)):
            mine = grades[grades["model"] == model]
            row = {"benchmark": benchmark, "variant_benchmark": variant_benchmark, "model": model}
            row["fresh_benchmark"] = ", ".join(fresh) or None
            key = group_seed(seed, "slices", benchmark or "", model)
            stats, notes = _model_row(mine, fresh_grades[fresh_grades["model"] == model], children, row, key, n_boot)
            rows.append(row | stats | {"note": "; ".join(notes)})
    return pd.DataFrame(rows, columns=SLICES.names)


def _model_row(mine, fresh_grades, children, names: dict, seed: int, n_boot: int) -> tuple[dict, list[str]]:
    """The statistics of one model's row and the notes on what it lacks."""
    benchmark, variant_benchmark = names["benchmark"], names["variant_benchmark"]
    by_original = trials_by_problem(mine[mine["benchmark"] == benchmark]) if benchmark else {}
    by_variant = trials_by_problem(mine[mine["benchmark"] == variant_benchmark]) if benchmark else {}
    originals, varied, n_variants = _paired(children, by_original, by_variant)
    all_rows, fresh_rows = list(by_original.values()), list(trials_by_problem(fresh_grades).values())
    stats = _side_stats("all", all_rows, seed, n_boot)
    stats |= _side_stats("originals", originals, seed + 1, n_boot)
    stats |= _side_stats("variants", varied, seed + 2, n_boot) | {"n_variants": n_variants}
    stats |= dict(zip(_names("variants"), paired.paired_bootstrap(originals, varied, n_boot=n_boot, seed=seed)))
    stats |= _side_stats("fresh", fresh_rows, seed + 3, n_boot)
    fresh_difference = paired.independent_difference(all_rows, fresh_rows, n_boot=n_boot, seed=seed + 4)
    stats |= dict(zip(_names("fresh"), fresh_difference))
    return stats, _missing(stats, names)


def _paired(children, by_original, by_variant) -> tuple[list, list, int]:
    """(original rows, variant rows, variant problems) of the parents graded on both sides: the
    pairing of the memorization table, narrowed so the two accuracies are over the very problems
    their difference is."""
    parents, originals, varied = paired_variant_rows(children, by_original, by_variant)
    both = [i for i, (o, v) in enumerate(zip(originals, varied)) if _graded(o) and _graded(v)]
    n_variants = sum(v in by_variant and _graded(by_variant[v]) for i in both for v in children[parents[i]])
    return [originals[i] for i in both], [varied[i] for i in both], n_variants


def _graded(row) -> bool:
    return bool(np.any(~np.isnan(np.asarray(row, dtype=float))))


def _side_stats(name: str, rows: list, seed: int, n_boot: int) -> dict:
    low, high = paired.accuracy_interval(rows, n_boot=n_boot, seed=seed)
    return {
        f"n_{name}": sum(map(_graded, rows)),
        f"accuracy_{name}": problem_mean_accuracy(rows),
        f"{name}_low": low,
        f"{name}_high": high,
    }


def _missing(stats: dict, names: dict) -> list[str]:
    """Notes for the slices of a row without a graded problem."""
    benchmark, variant_benchmark, fresh = names["benchmark"], names["variant_benchmark"], names["fresh_benchmark"]
    notes = []
    if benchmark is None:
        notes.append("no variants benchmark in the run (list <benchmark>-variants under evaluate.benchmarks)")
    elif stats["n_all"] == 0:
        notes.append(f"no graded problem of {benchmark}")
    elif stats["n_originals"] == 0:
        kinds = "/".join(VARIANT_KINDS)
        notes.append(f"no graded problem of {benchmark} has a confirmed {kinds} variant graded on {variant_benchmark}")
    if fresh is None:
        notes.append("no benchmark of aggregate.fresh in the run")
    elif stats["n_fresh"] == 0:
        notes.append(f"no graded problem of {fresh}")
    return notes


def read_variants(variant_files: Sequence[str | Path]) -> pd.DataFrame:
    """The vary stage's rows (empty, with its columns, when the run varies nothing)."""
    frames = [read_artifact(p, "variants").to_pandas() for p in variant_files]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SCHEMAS["variants"].names)
