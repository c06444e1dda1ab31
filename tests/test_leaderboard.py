"""Leaderboard, difficulty, technique and correlation tables from constructed grade files, with
every expected value worked out by hand from the rows."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.report.results.leaderboard import (
    build_correlations,
    build_difficulty,
    build_leaderboard,
    build_technique_table,
    pass_at_k_values,
    write_markdown,
)


def grade_row(benchmark="extrem", model="alpha", problem_id="p1", trial=0, correct=True, **fields) -> dict:
    """One row of the GRADES schema; status and extracted follow `correct` unless given."""
    status = {True: "correct", False: "wrong", None: "ungraded"}[correct]
    row = {
        "benchmark": benchmark,
        "model": model,
        "problem_id": problem_id,
        "trial": trial,
        "source_sha256": "0" * 64,
        "cache_key": f"{benchmark}/{model}/{problem_id}/{trial}",
        "gold": "1",
        "answer_type": "number",
        "sense": "min",
        "technique": [],
        "difficulty": None,
        "certificate_kind": None,
        "extracted": "1" if correct else "2",
        "correct": correct,
        "status": status,
        "reason": None,
        "correct_math_verify": correct,
        "correct_amo_official": correct,
        "modes_disagree": False,
        "finish_reason": "stop",
        "prompt_tokens": 50,
        "completion_tokens": 100,
        "grader": "test",
        "grader_version": "0",
        "scope": "final",
        "correct_final": correct,
        "correct_anywhere": correct,
        "reasoning_answer": None,
        "dag_node": "grade",
    }
    row.update(fields)
    return row


def grades_table(rows, tmp_path, name="grades.parquet") -> pd.DataFrame:
    """Write rows as a real grade artifact and read it back, as the aggregate rule does."""
    path = write_artifact(rows, tmp_path / name, "grades")
    return read_artifact(path, "grades").to_pandas()


def alpha_rows() -> list[dict]:
    """extrem × alpha: p1, p2 (min) and p3 (max), three trials.
    p1: ✓ ✓ ✗ ; p2: ✗ (no answer, truncated) ✓ ; p3: ✓ (ungraded) ✓"""
    return [
        grade_row(problem_id="p1", trial=0, correct=True, completion_tokens=100),
        grade_row(problem_id="p1", trial=1, correct=True, completion_tokens=200),
        grade_row(problem_id="p1", trial=2, correct=False, completion_tokens=300),
        grade_row(problem_id="p2", trial=0, correct=False, completion_tokens=400),
        grade_row(
            problem_id="p2",
            trial=1,
            correct=False,
            extracted=None,
            status="no_answer",
            finish_reason="length",
            completion_tokens=1000,
        ),
        grade_row(problem_id="p2", trial=2, correct=True, completion_tokens=600),
        grade_row(problem_id="p3", trial=0, correct=True, sense="max", completion_tokens=700),
        grade_row(problem_id="p3", trial=1, correct=None, sense="max", extracted="5", completion_tokens=None),
        grade_row(problem_id="p3", trial=2, correct=True, sense="max", modes_disagree=True, completion_tokens=900),
    ]


@pytest.fixture
def alpha_leaderboard(tmp_path) -> pd.Series:
    table = build_leaderboard(grades_table(alpha_rows(), tmp_path), ungraded="exclude")
    assert len(table) == 1
    return table.iloc[0]


# Hand computation for alpha_rows():
#   per-trial accuracy (ungraded left out): t0 2/3, t1 1/2 (p3 ungraded), t2 2/3
#   per-problem accuracy: p1 2/3, p2 1/3, p3 2/2
#   pass@2: p1 1 - C(1,2)/C(3,2) = 1, p2 1 - C(2,2)/C(3,2) = 2/3, p3 (n=2, c=2) = 1
#   maj@3: only p1 and p2 have 3 graded samples; p1 2 vs 1 → 1; p2 ✓ vs '2' (no-answer silent) → tie 1/2
TRIAL_ACCURACIES = [Fraction(2, 3), Fraction(1, 2), Fraction(2, 3)]
EXPECTED_ALPHA = {
    "n_problems": 3,
    "n_trials": 3,
    "n_samples": 9,
    "n_graded": 8,
    "extremal": True,
    "accuracy_mean": float(sum(TRIAL_ACCURACIES) / 3),
    "accuracy_std": math.sqrt(float(sum((a - sum(TRIAL_ACCURACIES) / 3) ** 2 for a in TRIAL_ACCURACIES) / 2)),
    "k": 3,
    "avg_at_k": (2 / 3 + 1 / 3 + 1) / 3,
    "pass_at_1": (2 / 3 + 1 / 3 + 1) / 3,
    "pass_at_2": (1 + 2 / 3 + 1) / 3,
    "maj_at_k": (1 + 0.5) / 2,
    "truncation_rate": 1 / 9,
    "no_answer_rate": 1 / 9,
    "ungraded_rate": 1 / 9,
    "mode_disagreements": 1,
    "output_tokens_mean": (100 + 200 + 300 + 400 + 1000 + 600 + 700 + 900) / 8,
    "output_tokens_median": (400 + 600) / 2,
    "n_problems_min_sense": 2,
    "accuracy_min_sense": (2 / 3 + 1 / 3) / 2,
    "n_problems_max_sense": 1,
    "accuracy_max_sense": 1.0,
}


@pytest.mark.parametrize(("column", "expected"), sorted(EXPECTED_ALPHA.items()))
def test_leaderboard_column_matches_hand_computation(alpha_leaderboard, column, expected):
    assert alpha_leaderboard[column] == pytest.approx(expected, abs=1e-12)


# By default an ungraded sample is scored wrong (issue 12): p3 trial 1 becomes a silent wrong sample.
EXPECTED_ALPHA_UNGRADED_WRONG = {
    "n_graded": 8,
    "ungraded_rate": 1 / 9,
    "accuracy_mean": (2 / 3 + 1 / 3 + 2 / 3) / 3,
    "avg_at_k": (2 / 3 + 1 / 3 + 2 / 3) / 3,
    "maj_at_k": (1 + 0.5 + 1) / 3,
    "accuracy_max_sense": 2 / 3,
}


@pytest.mark.parametrize(("column", "expected"), sorted(EXPECTED_ALPHA_UNGRADED_WRONG.items()))
def test_ungraded_samples_count_as_wrong_by_default(tmp_path, column, expected):
    row = build_leaderboard(grades_table(alpha_rows(), tmp_path)).iloc[0]
    assert row[column] == pytest.approx(expected, abs=1e-12)


def test_leaderboard_interval_brackets_the_estimate(alpha_leaderboard):
    assert 0 <= alpha_leaderboard["ci_low"] <= alpha_leaderboard["avg_at_k"] <= alpha_leaderboard["ci_high"] <= 1


def mixed_rows() -> list[dict]:
    rows = alpha_rows()
    rows += [grade_row(model="beta", problem_id=p, trial=0, correct=(p != "p2")) for p in ("p1", "p2", "p3")]
    for model in ("beta", "alpha"):
        for t in range(4):
            rows += [
                grade_row(
                    benchmark="aime2025", model=model, problem_id=f"a{i}", trial=t, sense=None, correct=(i + t) % 3 != 0
                )
                for i in range(3)
            ]
    return rows


def test_leaderboard_rows_sorted_by_benchmark_then_model_with_shared_pass_columns(tmp_path):
    table = build_leaderboard(grades_table(mixed_rows(), tmp_path))
    assert list(zip(table["benchmark"], table["model"])) == [
        ("aime2025", "alpha"),
        ("aime2025", "beta"),
        ("extrem", "alpha"),
        ("extrem", "beta"),
    ]
    assert list(table["extremal"]) == [False, False, True, True]
    assert [c for c in table.columns if c.startswith("pass_at_")] == ["pass_at_1", "pass_at_2", "pass_at_4"]
    beta = table[(table["benchmark"] == "extrem") & (table["model"] == "beta")].iloc[0]
    assert beta["accuracy_std"] == 0.0  # one trial: no spread to report
    assert beta["accuracy_mean"] == pytest.approx(2 / 3)
    assert math.isnan(beta["pass_at_2"]) and math.isnan(beta["pass_at_4"])
    aime = table[table["benchmark"] == "aime2025"]
    assert aime["pass_at_4"].notna().all() and aime["accuracy_min_sense"].isna().all()


def test_leaderboard_is_deterministic_and_ignores_row_order(tmp_path):
    rows = mixed_rows()
    first = build_leaderboard(grades_table(rows, tmp_path, "a.parquet"), seed=3)
    shuffled = [rows[i] for i in np.random.default_rng(0).permutation(len(rows))]
    second = build_leaderboard(grades_table(shuffled, tmp_path, "b.parquet"), seed=3)
    pd.testing.assert_frame_equal(first, second)
    assert not build_leaderboard(grades_table(rows, tmp_path, "c.parquet"), seed=4)[["ci_low", "ci_high"]].equals(
        first[["ci_low", "ci_high"]]
    )


def same_number(a: str, b: str) -> bool:
    return Fraction(a) == Fraction(b)


def test_leaderboard_maj_at_k_uses_the_equivalence_it_is_given(tmp_path):
    answers = ["3", "3", "1/2", "0.5", "2/4"]
    rows = [
        grade_row(problem_id="q", trial=t, correct=(a == "3"), extracted=a, gold="3") for t, a in enumerate(answers)
    ]
    grades = grades_table(rows, tmp_path)
    assert build_leaderboard(grades, equivalent=same_number).iloc[0]["maj_at_k"] == 0.0
    assert build_leaderboard(grades).iloc[0]["maj_at_k"] == 1.0  # default: string equality


def test_leaderboard_names_missing_columns():
    with pytest.raises(ValueError, match=r"lacks columns \['finish_reason'"):
        build_leaderboard(pd.DataFrame([grade_row()]).drop(columns=["finish_reason"]))


@pytest.mark.parametrize(("n_trials", "expected"), [(1, [1]), (3, [1, 2]), (4, [1, 2, 4]), (32, [1, 2, 4, 8, 16, 32])])
def test_pass_at_k_values_are_powers_of_two_up_to_n(n_trials, expected):
    assert pass_at_k_values(n_trials) == expected


def test_difficulty_solve_rates_across_models(tmp_path):
    grades = grades_table(mixed_rows(), tmp_path)
    difficulty = build_difficulty(grades).set_index(["benchmark", "problem_id"])
    p2 = difficulty.loc[("extrem", "p2")]
    # alpha solved p2 in 1 of 3 trials, beta in 0 of 1
    assert (p2["n_models"], p2["models_solved"]) == (2, 1)
    assert p2["solve_rate_mean"] == pytest.approx((1 / 3 + 0) / 2)
    assert (p2["solve_rate_min"], p2["solve_rate_max"]) == (0.0, pytest.approx(1 / 3))
    # p3: alpha 2 of 2 graded (one ungraded), beta 1 of 1
    assert difficulty.loc[("extrem", "p3"), "solve_rate_mean"] == 1.0
    assert difficulty.loc[("extrem", "p3"), "sense"] == "max"


def test_technique_table_counts_a_problem_in_each_of_its_families(tmp_path):
    rows = [
        grade_row(problem_id="p1", trial=0, correct=True, technique=["AM-GM", "SOS"]),
        grade_row(problem_id="p1", trial=1, correct=False, technique=["AM-GM", "SOS"]),
        grade_row(problem_id="p2", trial=0, correct=True, technique=["AM-GM"]),
        grade_row(problem_id="p2", trial=1, correct=True, technique=["AM-GM"]),
        grade_row(problem_id="p3", trial=0, correct=False, technique=[]),
    ]
    table = build_technique_table(grades_table(rows, tmp_path)).set_index("technique")
    assert sorted(table.index) == ["AM-GM", "SOS"]
    assert (table.loc["AM-GM", "n_problems"], table.loc["AM-GM", "accuracy"]) == (2, pytest.approx(0.75))
    assert (table.loc["SOS", "n_problems"], table.loc["SOS", "accuracy"]) == (1, pytest.approx(0.5))


def test_correlations_per_pair_of_benchmarks():
    models = [f"m{i}" for i in range(6)]
    scores = {
        "a": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        "b": [0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
        "c": [0.6, 0.5, 0.4, 0.3, 0.2, 0.1],
    }
    leaderboard = pd.DataFrame(
        [
            {"benchmark": b, "model": m, "accuracy_mean": s}
            for b, values in scores.items()
            for m, s in zip(models, values)
        ]
    )
    table = build_correlations(leaderboard, n_boot=300).set_index(["benchmark_a", "benchmark_b"])
    assert list(table.index) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert table.loc[("a", "b"), ["spearman", "kendall"]].tolist() == pytest.approx([1.0, 1.0])
    assert table.loc[("a", "c"), ["spearman", "kendall"]].tolist() == pytest.approx([-1.0, -1.0])
    assert (table["n_models"] == 6).all() and (table["note"] == "").all()


def test_correlations_with_three_models_are_not_computed():
    leaderboard = pd.DataFrame(
        [{"benchmark": b, "model": m, "accuracy_mean": s} for b in "ab" for m, s in zip("xyz", (0.1, 0.5, 0.9))]
    )
    row = build_correlations(leaderboard, n_boot=50).iloc[0]
    assert row["n_models"] == 3 and row["note"] == "not computed: 3 models < 5"
    assert row[["spearman", "spearman_low", "spearman_high", "kendall"]].isna().all()


def test_correlations_with_one_benchmark_are_an_empty_table():
    leaderboard = pd.DataFrame({"benchmark": ["a"], "model": ["m"], "accuracy_mean": [0.5]})
    table = build_correlations(leaderboard)
    assert table.empty and "spearman_low" in table.columns


def test_markdown_leaderboard(tmp_path):
    table = build_leaderboard(grades_table(mixed_rows(), tmp_path), ungraded="exclude")
    text = write_markdown(table, tmp_path / "out" / "leaderboard.md").read_text()
    lines = [line for line in text.splitlines() if line.startswith("| extrem | alpha |")]
    assert len(lines) == 1
    assert f"{100 * EXPECTED_ALPHA['accuracy_mean']:.1f} ± {100 * EXPECTED_ALPHA['accuracy_std']:.1f}" in lines[0]
    assert "extrembench audit --benchmark B --model M" in text


def test_leaderboard_passes_the_answer_type_and_asks_each_pair_once(tmp_path):
    calls = []

    def typed_equivalent(a: str, b: str, *, answer_type: str = "number") -> bool:
        calls.append((a, b, answer_type))
        return same_number(a, b)

    answers = ["3", "1/2", "0.5", "1/2", "0.5"]
    rows = [
        grade_row(problem_id=p, trial=t, correct=(a == "3"), extracted=a, gold="3", answer_type="set")
        for p in ("q1", "q2")
        for t, a in enumerate(answers)
    ]
    board = build_leaderboard(grades_table(rows, tmp_path), equivalent=typed_equivalent)
    assert board.iloc[0]["maj_at_k"] == 0.0  # '1/2' ≡ '0.5': 4 wrong votes against 1
    assert calls == [("1/2", "0.5", "set")]  # identical strings merged, the pair memoised across problems


def test_judge_decided_rate_counts_the_verdicts_the_judge_decided(tmp_path):
    """Issue 42: no leaderboard column said how many samples a judge decided. A tie or too few
    valid votes is ungraded (the judge decided nothing); an answer boxed in the reasoning and
    judged counts; failed requests are out of every figure."""
    rows = [
        grade_row(problem_id="p1", trial=0, correct=True, answer_type="description", reason="judge:3-0"),
        grade_row(problem_id="p1", trial=1, correct=False, answer_type="description", reason="reasoning-judge:1-2"),
        grade_row(problem_id="p2", trial=0, correct=None, answer_type="description", reason="judge-tie:1-1"),
        grade_row(problem_id="p2", trial=1, correct=True, reason="boxed"),
        grade_row(problem_id="p3", trial=0, correct=None, status="failed", reason="HTTP 500"),
    ]
    board = build_leaderboard(grades_table(rows, tmp_path))
    assert board.iloc[0]["judge_decided_rate"] == 2 / 4
