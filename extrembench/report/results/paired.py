"""Paired statistics: two score sets on the same problems (two models on one benchmark, or one
model on original problems and on their variants).

Pure functions on plain arrays, so each can be checked against hand-computed values and by
simulation (tests/test_paired.py). Per-problem data are given as aligned sequences of trial
outcomes (1/0, None/NaN = ungraded); problem i of side A is paired with problem i of side B.
Definitions and when a difference counts as significant: docs/metrics.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from extrembench.report.results.metrics import MIN_MODELS_FOR_CORRELATION, correlation, percentile_interval
from extrembench.report.results.metrics import graded_values as _graded


def paired_counts(a_rows: Sequence, b_rows: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(graded trials A, correct A, graded trials B, correct B) per problem graded on both sides
    (correct = the sum of the graded scores);
    a problem with no graded trial on either side has nothing to pair and is left out."""
    if len(a_rows) != len(b_rows):
        raise ValueError(f"paired data: {len(a_rows)} problems on side A but {len(b_rows)} on side B")
    ta, ca, tb, cb = [], [], [], []
    for a, b in zip(a_rows, b_rows):
        a, b = _graded(a), _graded(b)
        if a.size and b.size:
            ta.append(a.size), ca.append(a.sum()), tb.append(b.size), cb.append(b.sum())
    # correct counts stay floats: rows may hold fractional scores (a per-problem rate given as one value)
    return (
        np.array(ta, dtype=np.int64),
        np.array(ca, dtype=float),
        np.array(tb, dtype=np.int64),
        np.array(cb, dtype=float),
    )


def paired_bootstrap(
    a_rows: Sequence, b_rows: Sequence, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """(difference, low, high) of the mean per-problem accuracy, B minus A, with a percentile
    interval from a two-level bootstrap: resample problems with replacement (the same draw on both
    sides, which keeps the pairing), then each drawn problem's trials on each side (drawn as
    Binomial(T, c/T), the count of correct trials in T draws with replacement). All NaN when no
    problem is graded on both sides.

    Why the problem-level differences are shrunk first: an observed per-problem difference already
    carries its trials' noise, so drawing trials again on top of it counts that noise twice and
    the interval over-covers (98-99 % instead of 95 % at 3 trials). As in Davison & Hinkley (1997,
    sec. 3.8), the differences are shrunk towards their mean by the factor that removes, in
    expectation, the variance the trial draw adds back, so the resampled variance matches the
    observed one while both levels are still drawn."""
    if not (0 < level < 1):
        raise ValueError(f"paired_bootstrap: level must be in (0, 1), got {level}")
    difference, replicates = paired_replicates(a_rows, b_rows, n_boot=n_boot, seed=seed)
    if replicates.size == 0:
        return (float("nan"),) * 3
    return (difference, *percentile_interval(replicates, level))


def paired_replicates(
    a_rows: Sequence, b_rows: Sequence, *, n_boot: int = 2000, seed: int = 0
) -> tuple[float, np.ndarray]:
    """(difference B − A, its n_boot bootstrap replicates) as paired_bootstrap draws them (its
    docstring says how); (NaN, empty) when no problem is graded on both sides."""
    ta, ca, tb, cb = paired_counts(a_rows, b_rows)
    if ta.size == 0:
        return float("nan"), np.array([])
    pa, pb = ca / ta, cb / tb
    d = pb - pa
    difference = float(d.mean())
    spread = float(d.var())
    added = float(np.mean(pa * (1 - pa) / ta + pb * (1 - pb) / tb))  # what the trial draw adds back
    shrink = math.sqrt(max(0.0, 1.0 - added / spread)) if spread > 0 else 1.0
    centre = difference + shrink * (d - difference)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, ta.size, size=(n_boot, ta.size))
    noise_a = rng.binomial(ta[picks], np.clip(pa[picks], 0, 1)) / ta[picks] - pa[picks]
    noise_b = rng.binomial(tb[picks], np.clip(pb[picks], 0, 1)) / tb[picks] - pb[picks]
    return difference, (centre[picks] + noise_b - noise_a).mean(axis=1)


def accuracy_interval(rows: Sequence, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """The same two-level interval for one side's mean accuracy (paired against a side that
    scores 0 everywhere, with no trial noise)."""
    _, low, high = paired_bootstrap([[0.0]] * len(rows), rows, n_boot=n_boot, seed=seed, level=level)
    return low, high


def accuracy_replicates(rows: Sequence, *, n_boot: int = 2000, seed: int = 0) -> tuple[float, np.ndarray]:
    """(mean accuracy, the bootstrap replicates behind accuracy_interval); (NaN, empty) when
    nothing is graded."""
    return paired_replicates([[0.0]] * len(rows), rows, n_boot=n_boot, seed=seed)


def independent_difference(
    a_rows: Sequence, b_rows: Sequence, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """(difference, low, high) of mean accuracy B − A when A and B are different problems (nothing
    to pair, e.g. problems dated before and after a model's cut-off): each side resampled on its
    own by the same two-level bootstrap (seeds seed and seed + 1), the interval taken over the
    differences of the replicates. All NaN when either side has nothing graded."""
    mean_a, a = accuracy_replicates(a_rows, n_boot=n_boot, seed=seed)
    mean_b, b = accuracy_replicates(b_rows, n_boot=n_boot, seed=seed + 1)
    if a.size == 0 or b.size == 0:
        return (float("nan"),) * 3
    return (mean_b - mean_a, *percentile_interval(b - a, level))


def majority_verdict(row) -> int | None:
    """1 when more than half of the graded trials are correct, 0 when fewer than half, None on an
    exact tie or with nothing graded (a tie says nothing about which side is better)."""
    graded = _graded(row)
    if graded.size == 0 or 2 * graded.sum() == graded.size:
        return None
    return int(2 * graded.sum() > graded.size)


def exact_sign_test(n_plus: int, n_minus: int) -> float:
    """Two-sided exact binomial (sign / McNemar) test of n_plus vs n_minus discordant pairs under
    p = 1/2: the probability of a split at least as uneven. 1.0 with no discordant pair.
    Computed with exact integers: min(1, 2 * sum_{k <= min} C(n, k) / 2^n)."""
    if n_plus < 0 or n_minus < 0:
        raise ValueError(f"exact_sign_test: counts must be >= 0, got {n_plus}, {n_minus}")
    n = n_plus + n_minus
    if n == 0 or n_plus == n_minus:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(n_plus, n_minus) + 1))
    return min(1.0, 2 * tail / 2**n)


@dataclass(frozen=True)
class McNemar:
    n_pairs: int  # problems with a majority verdict on both sides
    only_a: int  # solved (by majority) on side A only
    only_b: int  # solved on side B only
    ties: int  # problems left out: an exact tie of trials on either side
    p_value: float


def mcnemar_majority(a_rows: Sequence, b_rows: Sequence) -> McNemar:
    """Exact McNemar test on per-problem majority verdicts (majority_verdict on each side)."""
    if len(a_rows) != len(b_rows):
        raise ValueError(f"paired data: {len(a_rows)} problems on side A but {len(b_rows)} on side B")
    only_a = only_b = pairs = ties = 0
    for a, b in zip(a_rows, b_rows):
        va, vb = majority_verdict(a), majority_verdict(b)
        if _graded(a).size == 0 or _graded(b).size == 0:
            continue
        if va is None or vb is None:
            ties += 1
            continue
        pairs += 1
        only_a += int(va == 1 and vb == 0)
        only_b += int(va == 0 and vb == 1)
    return McNemar(pairs, only_a, only_b, ties, exact_sign_test(only_a, only_b))


def paired_t_pvalue(a_rows: Sequence, b_rows: Sequence) -> float:
    """Two-sided p-value of the paired t-test on per-problem accuracies (B − A). With no spread
    in the differences: 1.0 when they are all 0, 0.0 when they all equal one nonzero value."""
    ta, ca, tb, cb = paired_counts(a_rows, b_rows)
    d = cb / tb - ca / ta if ta.size else np.array([])
    if d.size < 2:
        return float("nan")
    if np.all(d == d[0]):
        return 1.0 if d[0] == 0 else 0.0
    return float(stats.ttest_1samp(d, 0.0).pvalue)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (family-wise error over the given tests); NaN stays NaN and
    is not counted as a test."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    present = np.flatnonzero(~np.isnan(p))
    order = present[np.argsort(p[present], kind="stable")]
    m, running = len(order), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()


def minimum_detectable_difference(sd_difference: float, n: int, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest true mean difference a two-sided paired t-test at level `alpha` detects with
    probability `power`, for n problems whose per-problem differences have standard deviation
    sd_difference: (t_{1-alpha/2, n-1} + t_{power, n-1}) * sd / sqrt(n)."""
    if n < 2 or not math.isfinite(sd_difference):
        return float("nan")
    df = n - 1
    return float((stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)) * sd_difference / math.sqrt(n))


def difference_sd(a_rows: Sequence, b_rows: Sequence) -> tuple[float, int]:
    """(standard deviation of the per-problem accuracy differences, number of paired problems):
    what the minimum detectable difference is computed from (it already holds the trial noise of
    this benchmark's trial count)."""
    ta, ca, tb, cb = paired_counts(a_rows, b_rows)
    if ta.size < 2:
        return float("nan"), int(ta.size)
    return float(np.std(cb / tb - ca / ta, ddof=1)), int(ta.size)


def _two_level_replicates(a, b, mean_b, *, method: str, n_boot: int, seed: int) -> np.ndarray:
    """The bootstrap correlations of rank_correlation_two_level (models, then each benchmark's
    problems, resampled; `b` None: `mean_b` fixed), the undefined ones left out."""
    n_models = a.shape[0]
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        models = rng.integers(0, n_models, n_models)
        problems_a = rng.integers(0, a.shape[1], a.shape[1])
        with np.errstate(all="ignore"):
            x = np.nanmean(a[np.ix_(models, problems_a)], axis=1)
            if b is not None:
                y = np.nanmean(b[np.ix_(models, rng.integers(0, b.shape[1], b.shape[1]))], axis=1)
            else:
                y = mean_b[models]
        ok = ~(np.isnan(x) | np.isnan(y))
        if ok.sum() >= 3:
            values.append(correlation(x[ok], y[ok], method))
    return np.array([v for v in values if not np.isnan(v)])


def rank_correlation_two_level(
    rates_a,
    rates_b=None,
    *,
    fixed_b=None,
    method: str = "spearman",
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float, float, int]:
    """(rho, low, high, n_models): rank correlation across models of their accuracies on two
    benchmarks, with a percentile interval from resampling models and, within each benchmark,
    problems (one problem draw per benchmark per replicate, shared by all models, since every
    model answered the same problems).

    rates_a / rates_b: models × problems arrays of per-problem solve rates (NaN = not answered);
    or `fixed_b`, one accuracy per model that is not resampled (published numbers). Models
    without a value on either side are left out; NaN everywhere with fewer than
    MIN_MODELS_FOR_CORRELATION models."""
    if method not in ("spearman", "kendall"):
        raise ValueError(f"rank_correlation_two_level: method must be 'spearman' or 'kendall', got {method!r}")
    a = np.atleast_2d(np.asarray(rates_a, dtype=float))
    b = None if rates_b is None else np.atleast_2d(np.asarray(rates_b, dtype=float))
    fixed = None if fixed_b is None else np.asarray(fixed_b, dtype=float)
    if (b is None) == (fixed is None):
        raise ValueError("rank_correlation_two_level: give exactly one of rates_b and fixed_b")
    mean_b = np.nanmean(b, axis=1) if b is not None else fixed
    with np.errstate(all="ignore"):
        mean_a = np.nanmean(a, axis=1)
    keep = ~(np.isnan(mean_a) | np.isnan(mean_b))
    a, mean_a, mean_b = a[keep], mean_a[keep], mean_b[keep]
    b = b[keep] if b is not None else None
    nan = float("nan")
    n_models = int(keep.sum())
    if n_models < MIN_MODELS_FOR_CORRELATION:
        return (nan, nan, nan, n_models)
    rho = correlation(mean_a, mean_b, method)
    values = _two_level_replicates(a, b, mean_b, method=method, n_boot=n_boot, seed=seed)
    if values.size == 0:
        return (rho, nan, nan, n_models)
    return (rho, *percentile_interval(values, level), n_models)
