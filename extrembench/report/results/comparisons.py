"""Grade rows → the paired comparison tables: memorization (original vs variant per model),
pairwise (model vs model on one benchmark, Holm-corrected) and rank correlations with intervals
over problems and models (also against the published numbers).

Statistics live in extrembench.report.results.paired; this module only lines the data up. Every random draw is
seeded from `seed` and the names of what is compared, so identical input gives identical bytes.
Columns: docs/metrics.md.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from extrembench.core.artifacts import SCHEMAS, read_artifact, write_csv
from extrembench.core.config import Config
from extrembench.report.results import paired
from extrembench.report.results.figures import plot_original_vs_variant
from extrembench.report.results.leaderboard import graded_flags, group_seed, trials_by_problem
from extrembench.report.results.leaderboard import problem_mean_accuracy as _accuracy
from extrembench.report.results.metrics import correlation_note
from extrembench.report.results.published import published_for_run

ALPHA = 0.05

# the columns of each table, in order (docs/metrics.md)
PAIRWISE_COLUMNS = [
    "benchmark",
    "model_a",
    "model_b",
    "n_problems",
    "n_trials_a",
    "n_trials_b",
    "accuracy_a",
    "accuracy_b",
    "difference",
    "diff_low",
    "diff_high",
    "p_value",
    "p_holm",
    "significant",
    "mdd_80",
]

MEMORIZATION_COLUMNS = [
    "benchmark",
    "variant_benchmark",
    "model",
    "kind",
    "n_parents",
    "n_variants",
    "accuracy_original",
    "original_low",
    "original_high",
    "accuracy_variant",
    "variant_low",
    "variant_high",
    "difference",
    "diff_low",
    "diff_high",
    "only_original",
    "only_variant",
    "majority_ties",
    "p_mcnemar",
    "p_holm",
    "significant",
]


def build_pairwise(grades: pd.DataFrame, *, seed: int = 0, n_boot: int = 2000) -> pd.DataFrame:
    """One row per benchmark and pair of models (model_a < model_b by name), over the problems both
    answered: accuracy of each, difference (a − b) with a two-level bootstrap interval, the paired
    t-test p-value, Holm's adjustment over every row of the table, and the minimum detectable
    difference at 80 % power for this benchmark's problems and trials."""
    rows = []
    for benchmark, frame in grades.groupby("benchmark", sort=True):
        by_model = {m: trials_by_problem(f) for m, f in frame.groupby("model", sort=True)}
        trials = frame.groupby("model")["trial"].nunique().to_dict()
        models = sorted(by_model)
        for i, a in enumerate(models):
            for b in models[i + 1 :]:
                rows.append(_pairwise_row(benchmark, a, b, by_model, trials, seed=seed, n_boot=n_boot))
    return _holm_table(rows, PAIRWISE_COLUMNS, "p_value")


def _pairwise_row(
    benchmark: str,
    a: str,
    b: str,
    by_model: dict[str, dict[str, np.ndarray]],
    trials: dict[str, int],
    *,
    seed: int,
    n_boot: int,
) -> dict:
    """Model a against model b on one benchmark, over the problems both answered (no p_holm yet)."""
    shared = sorted(set(by_model[a]) & set(by_model[b]))
    rows_a = [by_model[a][p] for p in shared]
    rows_b = [by_model[b][p] for p in shared]
    difference, low, high = paired.paired_bootstrap(
        rows_b, rows_a, n_boot=n_boot, seed=group_seed(seed, "pairwise", benchmark, a, b)
    )
    sd, n = paired.difference_sd(rows_a, rows_b)
    return {
        "benchmark": benchmark,
        "model_a": a,
        "model_b": b,
        "n_problems": n,
        "n_trials_a": int(trials[a]),
        "n_trials_b": int(trials[b]),
        "accuracy_a": _accuracy(rows_a),
        "accuracy_b": _accuracy(rows_b),
        "difference": difference,
        "diff_low": low,
        "diff_high": high,
        "p_value": paired.paired_t_pvalue(rows_a, rows_b),
        "mdd_80": paired.minimum_detectable_difference(sd, n),
    }


def _holm_table(rows: list[dict], columns: list[str], p_column: str) -> pd.DataFrame:
    """The rows with `p_holm` (Holm's adjustment of `p_column` over every row) and `significant`."""
    table = pd.DataFrame(rows, columns=[c for c in columns if c not in ("p_holm", "significant")])
    table["p_holm"] = paired.holm(table[p_column].tolist()) if len(table) else []
    table["significant"] = table["p_holm"] < ALPHA
    return table[columns]


def build_memorization(
    grades: pd.DataFrame, variants: pd.DataFrame, *, seed: int = 0, n_boot: int = 2000
) -> pd.DataFrame:
    """One row per (parent benchmark, model, variant kind): each model's accuracy on the parent
    problems that have a confirmed variant of that kind and on those variants (a parent's variant
    score pools the trials of all its variants of the kind), the paired difference (variant −
    original) with a two-level bootstrap interval, and the exact McNemar test on per-problem
    majority verdicts, Holm-adjusted over every row.

    `variants`: rows of the vary stage (benchmark, variant_benchmark, problem_id, parent_id, kind,
    status); only confirmed variants count."""
    confirmed = variants[variants["status"] == "confirmed"]
    rows = []
    for (benchmark, variant_benchmark, kind), group in confirmed.groupby(
        ["benchmark", "variant_benchmark", "kind"], sort=True
    ):
        original = grades[grades["benchmark"] == benchmark]
        varied = grades[grades["benchmark"] == variant_benchmark]
        children = variant_children(group, benchmark, kinds=[kind])
        for model in sorted(set(original["model"]) & set(varied["model"])):
            by_parent = trials_by_problem(original[original["model"] == model])
            by_variant = trials_by_problem(varied[varied["model"] == model])
            key = group_seed(seed, "memorization", benchmark, model, kind)
            row = _memorization_row(children, by_parent, by_variant, seed=key, n_boot=n_boot)
            rows.append(
                {"benchmark": benchmark, "variant_benchmark": variant_benchmark, "model": model, "kind": kind, **row}
            )
    return _holm_table(rows, MEMORIZATION_COLUMNS, "p_mcnemar")


def variant_children(variants: pd.DataFrame, benchmark: str, *, kinds) -> dict[str, list[str]]:
    """parent id → its confirmed variants of `kinds` (sorted ids), for one parent benchmark."""
    mine = variants[
        (variants["benchmark"] == benchmark) & (variants["status"] == "confirmed") & variants["kind"].isin(list(kinds))
    ]
    return mine.groupby("parent_id")["problem_id"].apply(sorted).to_dict()


def paired_variant_rows(
    children: dict[str, list[str]], by_parent: dict[str, np.ndarray], by_variant: dict[str, np.ndarray]
) -> tuple[list[str], list[np.ndarray], list[np.ndarray]]:
    """(parents, original rows, variant rows): each answered parent with at least one answered
    variant, paired with the trials of all its answered variants pooled into one row (a parent
    counts once however many variants it has, so the pairs stay independent)."""
    parents = [p for p in sorted(children) if p in by_parent and any(v in by_variant for v in children[p])]
    rows_o = [by_parent[p] for p in parents]
    rows_v = [np.concatenate([by_variant[v] for v in children[p] if v in by_variant]) for p in parents]
    return parents, rows_o, rows_v


def _memorization_row(
    children: dict[str, list[str]],
    by_parent: dict[str, np.ndarray],
    by_variant: dict[str, np.ndarray],
    *,
    seed: int,
    n_boot: int,
) -> dict:
    """One model's parents against their variants of one kind: the columns after `kind` (no p_holm yet)."""
    parents, rows_o, rows_v = paired_variant_rows(children, by_parent, by_variant)
    difference, low, high = paired.paired_bootstrap(rows_o, rows_v, n_boot=n_boot, seed=seed)
    o_low, o_high = _single_ci(rows_o, n_boot, seed + 1)
    v_low, v_high = _single_ci(rows_v, n_boot, seed + 2)
    test = paired.mcnemar_majority(rows_o, rows_v)
    return {
        "n_parents": len(parents),
        "n_variants": sum(v in by_variant for p in parents for v in children[p]),
        "accuracy_original": _accuracy(rows_o),
        "original_low": o_low,
        "original_high": o_high,
        "accuracy_variant": _accuracy(rows_v),
        "variant_low": v_low,
        "variant_high": v_high,
        "difference": difference,
        "diff_low": low,
        "diff_high": high,
        "only_original": test.only_a,
        "only_variant": test.only_b,
        "majority_ties": test.ties,
        "p_mcnemar": test.p_value,
    }


def _single_ci(rows, n_boot: int, seed: int) -> tuple[float, float]:
    return paired.accuracy_interval(rows, n_boot=n_boot, seed=seed % 2**63)


def _rate_matrix(grades: pd.DataFrame, benchmark: str, models: list[str]) -> np.ndarray:
    """models × problems of per-problem solve rates on one benchmark (NaN: not answered)."""
    frame = grades[grades["benchmark"] == benchmark].assign(_flag=lambda f: graded_flags(f))
    wide = frame.groupby(["model", "problem_id"])["_flag"].mean().unstack("problem_id")
    return wide.reindex(models).to_numpy(dtype=float)


def build_rank_correlations(
    grades: pd.DataFrame, published: pd.DataFrame | None = None, *, seed: int = 0, n_boot: int = 1000
) -> pd.DataFrame:
    """Spearman and Kendall rank correlations across models between every pair of benchmarks of
    the run (intervals resample models and each benchmark's problems), and between each benchmark
    of the run and each benchmark with published numbers (`published`: benchmark, model, accuracy
    under the run's names; intervals resample models and the run's problems, published values
    are taken as given)."""
    columns = ["benchmark_a", "benchmark_b", "source_b", "n_models", "resampled"]
    for method in ("spearman", "kendall"):
        columns += [method, f"{method}_low", f"{method}_high"]
    columns.append("note")
    rows = []
    benchmarks = sorted(grades["benchmark"].unique())
    models = sorted(grades["model"].unique())
    matrices = {b: _rate_matrix(grades, b, models) for b in benchmarks}
    pairs = [(a, b, "run") for i, a in enumerate(benchmarks) for b in benchmarks[i + 1 :]]
    if published is not None and not published.empty:
        pairs += [(a, b, "published") for a in benchmarks for b in sorted(published["benchmark"].unique())]
    for a, b, source in pairs:
        row = {
            "benchmark_a": a,
            "benchmark_b": b,
            "source_b": source,
            "resampled": "models, problems" if source == "run" else "models, problems of benchmark_a",
        }
        for method in ("spearman", "kendall"):
            key = group_seed(seed, "rank", a, b, source, method)
            if source == "run":
                result = paired.rank_correlation_two_level(
                    matrices[a], matrices[b], method=method, n_boot=n_boot, seed=key
                )
            else:
                quoted = published[published["benchmark"] == b].set_index("model")["accuracy"]
                result = paired.rank_correlation_two_level(
                    matrices[a], fixed_b=quoted.reindex(models).to_numpy(), method=method, n_boot=n_boot, seed=key
                )
            rho, low, high, n_models = result
            row.update({"n_models": n_models, method: rho, f"{method}_low": low, f"{method}_high": high})
        row["note"] = correlation_note(row["n_models"])
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def compare(grade_files, variant_files, *, outputs, config: Config, published_dir: str | None, seed: int = 0) -> None:
    """The compare job: read grade and variant artifacts, write the three tables and the figure."""

    grades = pd.concat([read_artifact(p, "grades").to_pandas() for p in grade_files], ignore_index=True)
    frames = [read_artifact(p, "variants").to_pandas() for p in variant_files]
    variants = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SCHEMAS["variants"].names)
    memorization = build_memorization(grades, variants, seed=seed)
    write_csv(memorization, outputs["memorization"])
    write_csv(build_pairwise(grades, seed=seed), outputs["pairwise"])
    published = published_for_run(published_dir, config)
    write_csv(
        build_rank_correlations(grades, published[["benchmark", "model", "accuracy"]], seed=seed),
        outputs["rank_correlations"],
    )
    plot_original_vs_variant(memorization, outputs["original_vs_variant"])
    logging.getLogger(__name__).info(
        "compare: %d memorization rows, %d variant candidates read", len(memorization), len(variants)
    )
