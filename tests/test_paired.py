"""Paired statistics: exact tests against hand-computed values, intervals and power by simulation.

The simulations are seeded, so every run gives the same counts; sizes are kept small enough for
the whole file to take a few seconds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from extrembench.report.results import paired

# ---------------------------------------------------------------- exact tests (hand-computed)


@pytest.mark.parametrize(
    "n_plus, n_minus, expected",
    [
        (0, 0, 1.0),  # nothing discordant
        (3, 3, 1.0),  # perfectly balanced
        (0, 1, 1.0),  # 2 * 1/2
        (0, 5, 2 / 32),  # 2 * C(5,0) / 2^5
        (5, 0, 2 / 32),  # symmetric
        (1, 5, 2 * (1 + 6) / 64),  # 2 * (C(6,0) + C(6,1)) / 2^6
        (2, 8, 2 * (1 + 10 + 45) / 1024),
        (0, 10, 2 / 1024),
        (4, 6, 2 * (1 + 10 + 45 + 120 + 210) / 1024),  # = 0.75390625
    ],
)
def test_exact_sign_test_hand_computed(n_plus, n_minus, expected):
    assert paired.exact_sign_test(n_plus, n_minus) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n_plus, n_minus", [(k, n - k) for n in (1, 7, 20, 61) for k in range(0, n + 1, 3)])
def test_exact_sign_test_matches_scipy_binomtest(n_plus, n_minus):
    assert paired.exact_sign_test(n_plus, n_minus) == pytest.approx(
        stats.binomtest(n_plus, n_plus + n_minus, 0.5).pvalue, rel=1e-9
    )


@pytest.mark.parametrize(
    "p_values, expected",
    [
        ([0.01, 0.04, 0.03], [0.03, 0.06, 0.06]),  # 3*0.01; 2*0.03; max(0.06, 1*0.04)
        ([0.5], [0.5]),
        ([0.02, 0.02], [0.04, 0.04]),
        ([0.6, 0.3], [0.6, 0.6]),
        ([0.4, 0.5], [0.8, 0.8]),
        ([0.01, float("nan")], [0.01, float("nan")]),  # NaN is not a test
        ([0.9, 0.8, 0.7], [1.0, 1.0, 1.0]),  # capped at 1
        ([], []),
    ],
)
def test_holm_hand_computed(p_values, expected):
    assert paired.holm(p_values) == pytest.approx(expected, nan_ok=True)


@pytest.mark.parametrize(
    "row, expected",
    [
        ([1, 1, 0], 1),
        ([1, 0], None),
        ([0, 0], 0),
        ([None, 1], 1),
        ([], None),
        ([1, 0, None], None),
        ([float("nan"), 0, 0, 1], 0),
    ],
)
def test_majority_verdict(row, expected):
    assert paired.majority_verdict(row) == expected


def test_mcnemar_counts_discordant_majorities_and_skips_ties():
    a = [[1, 1], [0, 0], [1, 1], [1, 0], [1, 1], [None]]
    b = [[0, 0], [0, 0], [1, 1], [1, 1], [0, 1], [1]]
    result = paired.mcnemar_majority(a, b)
    # pair 0: A only; 1, 2: concordant; 3 and 4: a tie on one side; 5: nothing graded on A
    assert (result.n_pairs, result.only_a, result.only_b, result.ties) == (3, 1, 0, 2)
    assert result.p_value == 1.0


def test_mcnemar_significant_when_one_side_wins_everywhere():
    a = [[1, 1, 1]] * 12
    b = [[0, 0, 1]] * 12
    result = paired.mcnemar_majority(a, b)
    assert (result.only_a, result.only_b) == (12, 0)
    assert result.p_value == pytest.approx(2 / 2**12)


def test_paired_bootstrap_degenerate_cases():
    # B solves everything, A nothing: the difference is 1 in every resample
    assert paired.paired_bootstrap([[0, 0]] * 5, [[1, 1]] * 5) == (1.0, 1.0, 1.0)
    # a single side: every problem solved in every trial
    assert paired.accuracy_interval([[1, 1, 1]] * 4) == (1.0, 1.0)
    # nothing graded on one side of every pair: nothing to compare
    assert all(math.isnan(v) for v in paired.paired_bootstrap([[None]], [[1]]))
    with pytest.raises(ValueError, match="3 problems on side A but 2"):
        paired.paired_bootstrap([[1]] * 3, [[1]] * 2)


def test_paired_bootstrap_is_deterministic_for_a_seed():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2, (40, 3)).tolist()
    b = rng.integers(0, 2, (40, 3)).tolist()
    assert paired.paired_bootstrap(a, b, seed=3) == paired.paired_bootstrap(a, b, seed=3)


def test_paired_t_pvalue_edge_cases():
    assert paired.paired_t_pvalue([[1]] * 4, [[1]] * 4) == 1.0  # no difference anywhere
    assert paired.paired_t_pvalue([[0]] * 4, [[1]] * 4) == 0.0  # the same nonzero difference
    assert math.isnan(paired.paired_t_pvalue([[0]], [[1]]))  # one pair: no test
    d = [0.5, -0.25, 1.0, 0.0, 0.75]
    expected = stats.ttest_1samp(d, 0.0).pvalue
    assert paired.paired_t_pvalue([[0]] * 5, [[v] for v in d]) == pytest.approx(expected)


@pytest.mark.parametrize(
    "sd, n, expected",
    [
        # (t_{0.975,99} + t_{0.80,99}) / sqrt(100) = (1.9842170 + 0.8452670) / 10
        (1.0, 100, 0.28294840),
        (0.5, 100, 0.14147420),
        # n = 10: (2.2621572 + 0.8834039) / sqrt(10)
        (1.0, 10, 0.99471460),
    ],
)
def test_minimum_detectable_difference_hand_computed(sd, n, expected):
    assert paired.minimum_detectable_difference(sd, n) == pytest.approx(expected, rel=1e-6)


def test_minimum_detectable_difference_needs_two_problems():
    assert math.isnan(paired.minimum_detectable_difference(1.0, 1))


# ---------------------------------------------------------------- simulation


def _simulate_pair(rng, n_problems, n_trials, shift_a, shift_b):
    """Per-problem solve rates from a latent difficulty z (shared by both sides, so they are
    correlated as real models are) plus side-B noise; the population mean of Phi(u + s) with
    u ~ N(0, 1) is Phi(s / sqrt 2), so the true difference is known exactly."""
    z = rng.normal(size=n_problems)
    w = rng.normal(size=n_problems)
    p = stats.norm.cdf(z + shift_a)
    q = stats.norm.cdf(0.8 * z + 0.6 * w + shift_b)
    a = (rng.uniform(size=(n_problems, n_trials)) < p[:, None]).astype(float)
    b = (rng.uniform(size=(n_problems, n_trials)) < q[:, None]).astype(float)
    return a, b


@pytest.mark.slow  # ~2 s
def test_paired_bootstrap_covers_the_true_difference_in_93_to_97_percent():
    shift_a, shift_b = 0.4, -0.1
    truth = stats.norm.cdf(shift_b / math.sqrt(2)) - stats.norm.cdf(shift_a / math.sqrt(2))
    rng = np.random.default_rng(20240601)
    covered = 0
    for replication in range(400):
        a, b = _simulate_pair(rng, 100, 3, shift_a, shift_b)
        _, low, high = paired.paired_bootstrap(a, b, n_boot=500, seed=replication)
        covered += low <= truth <= high
    assert 0.93 * 400 <= covered <= 0.97 * 400, covered


def test_paired_t_test_holds_its_level_under_no_difference():
    rng = np.random.default_rng(7)
    rejected = 0
    for _ in range(400):
        a, b = _simulate_pair(rng, 100, 3, 0.3, 0.3)
        rejected += paired.paired_t_pvalue(a, b) < 0.05
    assert 0.025 * 400 <= rejected <= 0.08 * 400, rejected


def test_minimum_detectable_difference_has_80_percent_power():
    rng = np.random.default_rng(11)
    n, sd = 100, 0.4
    delta = paired.minimum_detectable_difference(sd, n)
    rejected = 0
    for _ in range(400):
        d = rng.normal(delta, sd, n)
        rejected += paired.paired_t_pvalue([[0.0]] * n, [[v] for v in d]) < 0.05
    assert 0.74 * 400 <= rejected <= 0.86 * 400, rejected


# ---------------------------------------------------------------- rank correlation, two levels


def test_rank_correlation_two_level_perfect_agreement_and_too_few_models():
    rng = np.random.default_rng(2)
    skill = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    a = (rng.uniform(size=(5, 200)) < skill[:, None]).astype(float)
    rho, low, high, n = paired.rank_correlation_two_level(a, fixed_b=skill * 100, method="spearman", n_boot=200)
    assert n == 5 and rho == pytest.approx(1.0) and low <= rho <= high
    tau, *_ = paired.rank_correlation_two_level(a, a[::1], method="kendall", n_boot=50)
    assert tau == pytest.approx(1.0)
    assert math.isnan(paired.rank_correlation_two_level(a[:2], fixed_b=[1, 2])[0])
    rho, low, high, n = paired.rank_correlation_two_level(a[:4], fixed_b=skill[:4], n_boot=50)
    assert n == 4 and all(math.isnan(v) for v in (rho, low, high))  # 4 < MIN_MODELS_FOR_CORRELATION


def test_rank_correlation_two_level_interval_is_wider_than_models_only():
    """Resampling problems too can only add spread: with few problems per benchmark the interval
    is at least as wide as the models-only one."""
    from extrembench.report.results.metrics import rank_correlation

    rng = np.random.default_rng(4)
    skill = np.linspace(0.2, 0.8, 8)
    a = (rng.uniform(size=(8, 30)) < skill[:, None]).astype(float)
    b = (rng.uniform(size=(8, 30)) < skill[:, None]).astype(float)
    _, low2, high2, _ = paired.rank_correlation_two_level(a, b, n_boot=1000, seed=1)
    _, low1, high1 = rank_correlation(a.mean(axis=1), b.mean(axis=1), n_boot=1000, seed=1)
    assert high2 - low2 >= high1 - low1 - 0.05
