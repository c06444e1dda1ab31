"""Pure metric functions: pass@k, maj@k, the two-level bootstrap interval, rank correlation.

Each function takes plain numbers or arrays and returns plain numbers, so it can be checked
against an independent computation (brute-force enumeration, an analytic formula) in tests.
Definitions are spelled out in docs/metrics.md.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from scipy import stats


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples of which c are correct: 1 - C(n-c, k) / C(n, k).

    Computed as 1 - prod_{i=n-c+1}^{n} (1 - k/i), which never forms the huge binomials."""
    if not (0 <= c <= n):
        raise ValueError(f"pass_at_k: need 0 <= c <= n, got n={n}, c={c}")
    if not (1 <= k <= n):
        raise ValueError(f"pass_at_k: need 1 <= k <= n, got n={n}, k={k}")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def group_wrong_answers(answers: Sequence[str], equivalent: Callable[[str, str], bool]) -> list[int]:
    """Sizes of the classes of mutually equivalent answers. Identical strings are merged first, so
    `equivalent` (possibly slow: a symbolic check) is called only between distinct strings; each
    distinct string joins the first class whose representative (earliest member) it matches."""
    counts = Counter(answers)  # first-seen order
    representatives: list[str] = []
    sizes: list[int] = []
    for answer, count in counts.items():
        for index, representative in enumerate(representatives):
            if equivalent(representative, answer):
                sizes[index] += count
                break
        else:
            representatives.append(answer)
            sizes.append(count)
    return sizes


def majority_credit(n_correct: int, wrong_class_sizes: Sequence[int], n_silent: int, k: int) -> float:
    """Expected majority-vote credit over all k-subsets of the samples, exactly.

    The correct samples form one class, each wrong class votes for itself, silent samples (no
    answer) vote for nothing. A subset scores 1 when the correct class has strictly the most votes,
    1/(t+1) when it ties with t wrong classes (a uniformly random tie-break), 0 otherwise and when
    nobody votes. Counted per vote count s of the correct class by a generating polynomial over
    (samples picked, classes tied); a wrong class smaller than s can neither tie nor win, so it
    joins the free pool with the silent samples. Cost is polynomial in n rather than C(n, k)."""
    n = n_correct + sum(wrong_class_sizes) + n_silent
    if not (1 <= k <= n):
        raise ValueError(f"majority_credit: need 1 <= k <= n, got n={n}, k={k}")
    # Exact integer counts (object arrays of Python ints): C(n, k) overflows a float past n ≈ 1000.
    # Tie credit 1/(t+1) is scaled by lcm(1..J+1) to stay integral.
    scale = math.lcm(*range(1, len(wrong_class_sizes) + 2))
    total = 0
    for s in range(1, min(k, n_correct) + 1):
        rest = k - s
        contenders = [size for size in wrong_class_sizes if size >= s]
        free = n - n_correct - sum(contenders)
        # ways[p, t]: ways to pick p non-correct samples with t contenders at exactly s votes, none above
        ways = np.zeros((rest + 1, len(contenders) + 1), dtype=object)
        ways[0, 0] = 1
        for size in contenders:
            new = np.zeros_like(ways)
            for a in range(0, min(s - 1, rest) + 1):
                new[a:, :] += math.comb(size, a) * ways[: rest + 1 - a, :]
            if s <= rest:
                new[s:, 1:] += math.comb(size, s) * ways[: rest + 1 - s, :-1]
            ways = new
        tie_credit = np.array([scale // (t + 1) for t in range(len(contenders) + 1)], dtype=object)
        free_ways = np.array([math.comb(free, rest - p) for p in range(rest + 1)], dtype=object)
        total += math.comb(n_correct, s) * int(free_ways.dot(ways.dot(tie_credit)))
    return float(Fraction(total, scale * math.comb(n, k)))


def maj_at_k(
    answers: Sequence[str | None], correct: Sequence[bool | None], k: int, equivalent: Callable[[str, str], bool]
) -> float:
    """maj@k of one problem: the expected score of a majority vote over k samples drawn without
    replacement from the problem's graded samples (the mean over all k-subsets).

    Samples graded correct form one class (each is equivalent to the gold answer); wrong answers are
    grouped by `equivalent`, so '1/2' and '0.5' vote together; a sample with no answer (None or
    empty) votes for nothing; ungraded samples (correct is None) are left out. Ties are split
    evenly. Returns NaN when no sample is graded; k must not exceed the graded count."""
    if len(answers) != len(correct):
        raise ValueError(f"maj_at_k: {len(answers)} answers but {len(correct)} correctness flags")
    graded = [(a, bool(c)) for a, c in zip(answers, correct) if c is not None]
    if not graded:
        return float("nan")
    n_correct = sum(1 for _, c in graded if c)
    wrong = [a for a, c in graded if not c and a]
    n_silent = len(graded) - n_correct - len(wrong)
    return _cached_majority_credit(n_correct, tuple(sorted(group_wrong_answers(wrong, equivalent))), n_silent, k)


@functools.lru_cache(maxsize=65536)
def _cached_majority_credit(n_correct: int, wrong_class_sizes: tuple[int, ...], n_silent: int, k: int) -> float:
    # Many problems share a vote pattern (all correct, one wrong answer, ...): count each once.
    return majority_credit(n_correct, wrong_class_sizes, n_silent, k)


def graded_values(row) -> np.ndarray:
    """A problem's trial outcomes without the ungraded ones (None or NaN)."""
    values = np.array([np.nan if v is None else float(v) for v in np.ravel(row)], dtype=float)
    return values[~np.isnan(values)]


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central `level` interval of bootstrap replicates."""
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


def _per_problem_arrays(correct_matrix) -> tuple[np.ndarray, np.ndarray]:
    """(graded trial count, correct fraction) per problem with at least one graded trial.

    Accepts a 2-D array (problems × trials, NaN = ungraded) or a sequence of per-problem sequences
    of varying length (None/NaN = ungraded)."""
    counts, rates = [], []
    for row in correct_matrix:
        values = graded_values(row)
        if values.size:
            counts.append(values.size)
            rates.append(values.mean())
    return np.array(counts, dtype=np.int64), np.array(rates, dtype=float)


def bootstrap_ci(correct_matrix, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval for the mean over problems of per-problem accuracy, by a two-level
    bootstrap: resample problems with replacement, then resample each drawn problem's graded
    trials with replacement. The second level is drawn as Binomial(T_i, c_i/T_i), which is exactly
    the number of correct trials in T_i draws with replacement. (NaN, NaN) when nothing is graded."""
    if not (0 < level < 1):
        raise ValueError(f"bootstrap_ci: level must be in (0, 1), got {level}")
    counts, rates = _per_problem_arrays(correct_matrix)
    if counts.size == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, counts.size, size=(n_boot, counts.size))
    trials = counts[picks]
    resampled = rng.binomial(trials, rates[picks]) / trials
    return percentile_interval(resampled.mean(axis=1), level)


MIN_MODELS_FOR_CORRELATION = 5
"""Fewest models a rank correlation is computed from (docs/metrics.md). With 3 models Spearman's
rho takes only 4 values (±1, ±0.5) and resampling 3 models of one consistent order gives [1, 1]
nearly every time: the number says nothing about the benchmarks."""


def correlation_note(n_models: int, minimum: int = MIN_MODELS_FOR_CORRELATION) -> str:
    """'' when a correlation over n_models is computed, else why not, for tables and figures."""
    return "" if n_models >= minimum else f"not computed: {n_models} models < {minimum}"


def correlation(x: np.ndarray, y: np.ndarray, method: str) -> float:
    if np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")  # a constant ranking has no correlation (scipy would warn and say NaN)
    if method == "spearman":
        return float(stats.spearmanr(x, y).statistic)
    return float(stats.kendalltau(x, y).statistic)  # tau-b: ties in either ranking are corrected


def rank_correlation(
    x, y, *, method: str = "spearman", n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """(rho, low, high): Spearman's rho or Kendall's tau-b between paired scores (one pair per
    model), with a percentile interval from resampling the pairs. All NaN with fewer than
    MIN_MODELS_FOR_CORRELATION pairs (correlation_note says so); bootstrap resamples whose ranking
    is constant are skipped."""
    if method not in ("spearman", "kendall"):
        raise ValueError(f"rank_correlation: method must be 'spearman' or 'kendall', got {method!r}")
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"rank_correlation: x and y must be 1-D of equal length, got {x.shape} and {y.shape}")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    nan = float("nan")
    if x.size < MIN_MODELS_FOR_CORRELATION:
        return (nan, nan, nan)
    rho = correlation(x, y, method)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, x.size, size=(n_boot, x.size))
    resampled = np.array([correlation(x[p], y[p], method) for p in picks])
    resampled = resampled[~np.isnan(resampled)]
    if resampled.size == 0:
        return (rho, nan, nan)
    return (rho, *percentile_interval(resampled, level))
