"""Each metric against an independent computation: brute-force enumeration of subsets, exact
binomial arithmetic, analytic intervals, rank correlations computed from their definitions."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from extrembench.report.results.metrics import (
    MIN_MODELS_FOR_CORRELATION,
    bootstrap_ci,
    correlation_note,
    maj_at_k,
    majority_credit,
    pass_at_k,
    rank_correlation,
)

# ---------------------------------------------------------------- pass@k


def brute_pass_at_k(n: int, c: int, k: int) -> float:
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(samples, k))
    return sum(any(s) for s in subsets) / len(subsets)


SMALL_CASES = [(n, c, k) for n in range(1, 8) for c in range(0, n + 1) for k in range(1, n + 1)]


@pytest.mark.parametrize(("n", "c", "k"), SMALL_CASES)
def test_pass_at_k_matches_enumeration_of_all_k_subsets(n, c, k):
    assert pass_at_k(n, c, k) == pytest.approx(brute_pass_at_k(n, c, k), abs=1e-12)


@pytest.mark.parametrize(
    ("n", "c", "k"),
    [(1000, 1, 1), (1000, 999, 500), (5000, 7, 64), (10000, 2500, 100), (200, 3, 199)],
)
def test_pass_at_k_large_n_matches_exact_rational(n, c, k):
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-10, abs=1e-15)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, -1, 1), (3, 1, 0), (3, 1, 4)])
def test_pass_at_k_rejects_impossible_arguments(n, c, k):
    with pytest.raises(ValueError, match="pass_at_k"):
        pass_at_k(n, c, k)


# ---------------------------------------------------------------- maj@k


def same_number(a: str, b: str) -> bool:
    """A small stand-in for the grader's equivalence: equal as exact rationals."""
    return Fraction(a) == Fraction(b)


def brute_maj_at_k(answers, correct, k, canonical) -> float:
    """Mean over all k-subsets of the graded samples of the majority-vote score; correct samples
    vote 'CORRECT', wrong ones their canonical form, empty answers nothing; ties split evenly."""
    votes_of = [("CORRECT" if c else (canonical(a) if a else None)) for a, c in zip(answers, correct) if c is not None]
    scores = []
    for subset in itertools.combinations(votes_of, k):
        tally: dict = {}
        for vote in subset:
            if vote is not None:
                tally[vote] = tally.get(vote, 0) + 1
        if "CORRECT" not in tally:
            scores.append(0.0)
            continue
        top = max(tally.values())
        leaders = [v for v, count in tally.items() if count == top]
        scores.append(1.0 / len(leaders) if "CORRECT" in leaders else 0.0)
    return sum(scores) / len(scores)


MAJ_CASES = [
    # three spellings of one wrong answer outvote two correct samples
    (["3", "3", "1/2", "0.5", "2/4"], [True, True, False, False, False], 5, 0.0),
    # a 1-1 tie between the correct class and one wrong class is worth half
    (["3", "1/2"], [True, False], 2, 0.5),
    # a three-way tie: a third
    (["3", "1/2", "7"], [True, False, False], 3, 1 / 3),
    # silent samples vote for nothing: 1 correct vote wins alone
    (["3", None, None], [True, False, False], 3, 1.0),
    # ungraded samples are left out: only the two correct samples count
    (["3", "3", "5", "5", "5"], [True, True, None, None, None], 2, 1.0),
    # k = 1 is the share of correct samples
    (["3", "2", "0.4", None], [True, False, False, False], 1, 0.25),
]


@pytest.mark.parametrize(("answers", "correct", "k", "expected"), MAJ_CASES)
def test_maj_at_k_known_values(answers, correct, k, expected):
    assert maj_at_k(answers, correct, k, same_number) == pytest.approx(expected, abs=1e-12)


def test_maj_at_k_groups_by_equivalence_not_string_equality():
    answers = ["3", "3", "1/2", "0.5", "2/4"]
    correct = [True, True, False, False, False]
    assert maj_at_k(answers, correct, 5, same_number) == 0.0
    # with string equality the three wrong spellings are three classes of one vote each
    assert maj_at_k(answers, correct, 5, lambda a, b: a == b) == 1.0


RANDOM_PROBLEMS = []
_rng = np.random.default_rng(7)
for _ in range(40):
    _n = int(_rng.integers(1, 9))
    _answers, _correct = [], []
    for _ in range(_n):
        _kind = _rng.choice(["correct", "wrong", "silent", "ungraded"], p=[0.35, 0.4, 0.15, 0.1])
        _answers.append({"correct": "3", "silent": None}.get(_kind, str(_rng.choice(["1/2", "0.5", "2", "4/2", "7"]))))
        _correct.append({"correct": True, "ungraded": None}.get(_kind, False))
    _graded = sum(c is not None for c in _correct)
    if _graded:
        RANDOM_PROBLEMS.append((_answers, _correct, int(_rng.integers(1, _graded + 1))))


@pytest.mark.parametrize(("answers", "correct", "k"), RANDOM_PROBLEMS)
def test_maj_at_k_matches_enumeration_of_all_k_subsets(answers, correct, k):
    expected = brute_maj_at_k(answers, correct, k, Fraction)
    assert maj_at_k(answers, correct, k, same_number) == pytest.approx(expected, abs=1e-12)


def test_majority_credit_scales_past_brute_force():
    # C(64, 32) ≈ 1.8e18 subsets; the generating-polynomial count stays exact. With 40 of 64
    # samples correct and 24 spread over 3 wrong classes, the correct class almost always wins.
    value = majority_credit(40, [8, 8, 8], 0, 32)
    assert 0.99 < value <= 1.0
    # symmetric case: 2 classes of 32, one correct, k odd → no ties, exactly one half by symmetry
    assert majority_credit(32, [32], 0, 31) == pytest.approx(0.5, abs=1e-12)


def test_maj_at_k_all_ungraded_is_nan_and_lengths_must_match():
    assert math.isnan(maj_at_k(["1"], [None], 1, same_number))
    with pytest.raises(ValueError, match="2 answers but 1"):
        maj_at_k(["1", "2"], [True], 1, same_number)


# ---------------------------------------------------------------- bootstrap


@pytest.mark.parametrize(
    ("matrix", "expected"),
    [
        (np.ones((10, 3)), (1.0, 1.0)),
        (np.zeros((7, 1)), (0.0, 0.0)),
        ([[1, 1], [1], [1, 1, 1]], (1.0, 1.0)),  # ragged: problems with different trial counts
        ([[0, np.nan], [0, 0]], (0.0, 0.0)),  # NaN = ungraded, left out
    ],
)
def test_bootstrap_all_equal_data_gives_degenerate_interval(matrix, expected):
    assert bootstrap_ci(matrix, n_boot=500, seed=3) == expected


def test_bootstrap_single_problem_is_the_binomial_interval():
    # One problem, 20 trials, 10 correct: each replicate is Binomial(20, 0.5)/20, whose 2.5 % and
    # 97.5 % quantiles are 6/20 and 14/20.
    low, high = bootstrap_ci([[1] * 10 + [0] * 10], n_boot=20000, seed=1)
    assert (stats.binom.ppf(0.025, 20, 0.5) / 20, stats.binom.ppf(0.975, 20, 0.5) / 20) == (0.3, 0.7)
    assert (low, high) == (0.3, 0.7)


def test_bootstrap_large_case_matches_analytic_normal_interval():
    # Two-level resampling: one replicate problem mean has variance Var(m_I) + E[v_I / T] with m_i,
    # v_i the observed mean and (biased) variance of problem i's trials; the statistic averages P
    # independent replicates.
    rng = np.random.default_rng(11)
    problems, trials = 400, 4
    rates = rng.beta(2, 2, size=problems)
    matrix = (rng.random((problems, trials)) < rates[:, None]).astype(float)
    means = matrix.mean(axis=1)
    within = matrix.var(axis=1)  # ddof=0: resampling with replacement
    sd = math.sqrt((means.var() + (within / trials).mean()) / problems)
    z = stats.norm.ppf(0.975)
    low, high = bootstrap_ci(matrix, n_boot=6000, seed=5)
    assert low == pytest.approx(means.mean() - z * sd, abs=0.12 * sd)
    assert high == pytest.approx(means.mean() + z * sd, abs=0.12 * sd)


def test_bootstrap_is_seeded_and_nan_without_graded_data():
    matrix = [[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 0, 0]]
    assert bootstrap_ci(matrix, seed=4) == bootstrap_ci(matrix, seed=4)
    assert all(math.isnan(v) for v in bootstrap_ci([[np.nan, None]]))
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci(matrix, level=95)


# ---------------------------------------------------------------- rank correlation


def average_ranks(values) -> np.ndarray:
    values = list(values)
    ranks = np.empty(len(values))
    for i, v in enumerate(values):
        below = sum(1 for w in values if w < v)
        equal = sum(1 for w in values if w == v)
        ranks[i] = below + (equal + 1) / 2
    return ranks


def spearman_by_definition(x, y) -> float:
    return float(np.corrcoef(average_ranks(x), average_ranks(y))[0, 1])


def kendall_tau_b_by_definition(x, y) -> float:
    concordant = discordant = ties_x = ties_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            ties_x += 1
        elif dy == 0:
            ties_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    return (concordant - discordant) / math.sqrt(
        (concordant + discordant + ties_x) * (concordant + discordant + ties_y)
    )


CORRELATION_CASES = [
    ([0.85, 0.84, 0.82, 0.81, 0.76], [0.81, 0.85, 0.90, 0.92, 0.93]),
    ([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [0.15, 0.1, 0.35, 0.3, 0.6, 0.5]),
    ([0.5, 0.5, 0.7, 0.2, 0.9], [0.3, 0.4, 0.4, 0.1, 0.8]),  # ties in both
    ([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]),
]


@pytest.mark.parametrize(("x", "y"), CORRELATION_CASES)
def test_rank_correlation_point_estimates_match_definitions(x, y):
    rho, low, high = rank_correlation(x, y, method="spearman", n_boot=200)
    tau, _, _ = rank_correlation(x, y, method="kendall", n_boot=200)
    assert rho == pytest.approx(spearman_by_definition(x, y), abs=1e-12)
    assert tau == pytest.approx(kendall_tau_b_by_definition(np.array(x), np.array(y)), abs=1e-12)
    assert -1 <= low <= high <= 1


@pytest.mark.parametrize("method", ["spearman", "kendall"])
def test_rank_correlation_monotone_data_has_degenerate_interval(method):
    assert rank_correlation([1, 2, 3, 4, 5], [10, 20, 30, 40, 50], method=method, n_boot=300) == pytest.approx(
        (1.0, 1.0, 1.0), abs=1e-12
    )


@pytest.mark.parametrize(
    ("n_models", "computed", "note"),
    [
        (0, False, "not computed: 0 models < 5"),
        (3, False, "not computed: 3 models < 5"),  # the default run: gave rho = 1.00 [1.00, 1.00]
        (4, False, "not computed: 4 models < 5"),
        (5, True, ""),
        (13, True, ""),  # the paper grid
    ],
)
def test_rank_correlation_needs_five_models_and_says_so(n_models, computed, note):
    assert MIN_MODELS_FOR_CORRELATION == 5  # docs/metrics.md states this minimum
    x = np.arange(n_models, dtype=float)
    rho, low, high = rank_correlation(x, x[::-1], n_boot=50)
    assert (not math.isnan(rho)) == computed and math.isnan(low) == (not computed)
    assert correlation_note(n_models) == note


def test_rank_correlation_needs_five_pairs_and_a_known_method():
    assert all(math.isnan(v) for v in rank_correlation([0.1, np.nan, 0.3, 0.4, 0.5], [0.2, 0.5, 0.4, 0.1, 0.3]))
    with pytest.raises(ValueError, match="method"):
        rank_correlation([1, 2, 3], [1, 2, 3], method="pearson")
