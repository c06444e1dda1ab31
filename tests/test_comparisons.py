"""The paired comparison tables built from grade rows: memorization, pairwise, rank correlations,
and the original-vs-variant figure written from them."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from extrembench.report.results import comparisons, figures


def _grades(rows):
    """rows: (benchmark, model, problem_id, [trial outcomes])."""
    out = []
    for benchmark, model, problem, outcomes in rows:
        for trial, correct in enumerate(outcomes):
            out.append(
                {"benchmark": benchmark, "model": model, "problem_id": problem, "trial": trial, "correct": correct}
            )
    return pd.DataFrame(out)


def _variants(rows):
    return pd.DataFrame(
        [
            {
                "benchmark": "b",
                "variant_benchmark": "b-variants",
                "problem_id": v,
                "parent_id": p,
                "kind": k,
                "status": s,
            }
            for v, p, k, s in rows
        ]
    )


def test_memorization_pairs_parents_with_pooled_variants():
    grades = _grades(
        [
            ("b", "m", "p1", [1, 1]),
            ("b", "m", "p2", [1, 1]),
            ("b", "m", "p3", [0, 0]),
            ("b-variants", "m", "p1~constants-1", [0, 0]),
            ("b-variants", "m", "p1~constants-2", [0, 1]),
            ("b-variants", "m", "p2~constants-1", [1, 1]),
            ("b-variants", "m", "p3~constants-1", [0, 0]),
            ("b-variants", "m", "p1~rename-1", [1, 1]),
        ]
    )
    variants = _variants(
        [
            ("p1~constants-1", "p1", "constants", "confirmed"),
            ("p1~constants-2", "p1", "constants", "confirmed"),
            ("p2~constants-1", "p2", "constants", "confirmed"),
            ("p3~constants-1", "p3", "constants", "confirmed"),
            ("p3~constants-9", "p3", "constants", "dropped"),
            ("p1~rename-1", "p1", "rename", "confirmed"),
        ]
    )
    table = comparisons.build_memorization(grades, variants, n_boot=200).set_index("kind")
    row = table.loc["constants"]
    assert (row["n_parents"], row["n_variants"]) == (3, 4)
    assert row["accuracy_original"] == pytest.approx(2 / 3)
    # p1 pools 0,0,0,1 → 1/4; p2 → 1; p3 → 0
    assert row["accuracy_variant"] == pytest.approx((0.25 + 1 + 0) / 3)
    assert row["difference"] == pytest.approx((0.25 + 1 + 0) / 3 - 2 / 3)
    # majority verdicts: p1 1 → 0 (only original), p2 and p3 concordant
    assert (row["only_original"], row["only_variant"], row["majority_ties"]) == (1, 0, 0)
    assert row["p_mcnemar"] == 1.0
    assert row["diff_low"] <= row["difference"] <= row["diff_high"]
    assert table.loc["rename", "n_parents"] == 1
    assert list(table["p_holm"]) == [1.0, 1.0]


def test_pairwise_difference_holm_and_mdd():
    rows = []
    for i in range(30):
        rows += [
            ("b", "strong", f"p{i}", [1, 1, 1]),
            ("b", "weak", f"p{i}", [0, 0, int(i % 3 == 0)]),
            ("b", "same", f"p{i}", [1, 1, 1]),
        ]
    table = comparisons.build_pairwise(_grades(rows), n_boot=300)
    assert list(zip(table["model_a"], table["model_b"])) == [("same", "strong"), ("same", "weak"), ("strong", "weak")]
    same_strong = table.iloc[0]
    assert same_strong["difference"] == 0 and same_strong["p_value"] == 1.0 and not same_strong["significant"]
    strong_weak = table.iloc[2]
    assert strong_weak["difference"] == pytest.approx(1 - 10 / 90)
    assert strong_weak["significant"] and strong_weak["p_holm"] <= 3 * strong_weak["p_value"]
    assert strong_weak["n_problems"] == 30 and strong_weak["mdd_80"] > 0
    assert math.isnan(same_strong["mdd_80"]) or same_strong["mdd_80"] == 0


def test_rank_correlations_run_and_published():
    rows = []
    skills = {"m1": 0.1, "m2": 0.4, "m3": 0.7, "m4": 0.85, "m5": 0.95}
    for model, skill in skills.items():
        for i in range(20):
            rows.append(("x", model, f"p{i}", [int(i < 20 * skill)]))
            rows.append(("y", model, f"q{i}", [int(i < 20 * skill)]))
    published = pd.DataFrame({"benchmark": ["pub"] * 5, "model": list(skills), "accuracy": [0.2, 0.3, 0.5, 0.6, 0.9]})
    table = comparisons.build_rank_correlations(_grades(rows), published, n_boot=200)
    assert list(zip(table["benchmark_a"], table["benchmark_b"], table["source_b"])) == [
        ("x", "y", "run"),
        ("x", "pub", "published"),
        ("y", "pub", "published"),
    ]
    assert (table["n_models"] == 5).all()
    assert table["spearman"].tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert (table["spearman_low"] <= table["spearman"] + 1e-12).all()
    assert (table["note"] == "").all()


def test_rank_correlations_with_three_models_say_not_computed_instead_of_one():
    """The default run's 3 models gave rho = 1.00 [1.00, 1.00]: no number, a reason."""
    rows = [
        (b, m, f"p{i}", [int(i < 20 * s)])
        for b in "xy"
        for m, s in {"a": 0.1, "b": 0.5, "c": 0.9}.items()
        for i in range(20)
    ]
    row = comparisons.build_rank_correlations(_grades(rows), n_boot=50).iloc[0]
    assert row["n_models"] == 3 and row["note"] == "not computed: 3 models < 5"
    assert all(math.isnan(row[c]) for c in ("spearman", "spearman_low", "kendall", "kendall_high"))


def test_original_vs_variant_figure_is_written(tmp_path):
    memorization = pd.DataFrame(
        [
            {
                "model": m,
                "kind": k,
                "accuracy_original": o,
                "original_low": o - 0.1,
                "original_high": min(1, o + 0.1),
                "accuracy_variant": v,
                "variant_low": v - 0.1,
                "variant_high": min(1, v + 0.1),
                "difference": v - o,
                "significant": abs(v - o) > 0.2,
            }
            for m, k, o, v in [("a", "constants", 0.9, 0.6), ("a", "rename", 0.9, 0.88), ("b", "constants", 0.3, 0.28)]
        ]
    )
    png, pdf = figures.plot_original_vs_variant(memorization, tmp_path / "f.png")
    assert png.stat().st_size > 1000 and pdf.exists()
    empty, _ = figures.plot_original_vs_variant(memorization.iloc[0:0], tmp_path / "e.png")
    assert empty.exists()
