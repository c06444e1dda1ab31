"""Check a problem's answer by computation, and the `extrembench check` subcommand.

Pipeline per problem (statuses in docs/problem-format.md):
1. load + schema + safe parse; source.inequality derivation must agree (convert); a given
   statement must state the same formulas (LaTeX parsed back, compared at feasible points);
2. global numeric search (search_extremum): every variable is mapped to an unconstrained or boxed
   coordinate (positive -> exp, nonnegative -> sinh, so 1e-20..1e20 scales and exact zeros are both
   reachable), seeded multistart SLSQP from the best of a random sample, plus structured starts
   (all ones, corners);
3. verdict: a feasible point beating the claim -> refuted (unbounded when a path of feasible optima
   with growing coordinates keeps decreasing); the claim never approached -> refuted; otherwise a
   near-optimal point is snapped to small rationals and re-checked in 50-digit precision -> confirmed,
   or found only at an open boundary / infinity -> not_attained, else inconclusive.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import math
import signal
import threading
import time
import warnings
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import sympy
from scipy.optimize import minimize

from extrembench.core.config import Validation
from extrembench.problems.derive import convert_problem
from extrembench.problems.expr import ExpressionError
from extrembench.problems.problem import (
    Domain,
    ExtremalSpec,
    Problem,
    ProblemError,
    declared_id,
    load_problem,
    min_form_sign,
    parse_problem,
)
from extrembench.verify import components
from extrembench.verify.certificates.certify import certify as build_certificate
from extrembench.verify.certificates.refutation_check import point_floats
from extrembench.verify.components import Orthants
from extrembench.verify.infeasibility import prove_empty
from extrembench.verify.refutation import (
    exact_feasible_point,
    level_certificate,
    unbounded_certificate,
    witness_certificate,
)

log = logging.getLogger(__name__)

DEFAULT_IGNORED_KEYS = ("expected_status",)
LOG_LIMIT = 46.0  # exp(46) ~ 1e20: the largest/smallest scale the search reaches
REL_TOL = 1e-6  # claim vs best value: |difference| <= REL_TOL * (1 + |answer|)
FEAS_TOL = 1e-8  # constraint residual, relative to the size of its sides
HP_DIGITS = 50
EXACT_TOL = 1e-30  # 50-digit re-check of a rational witness
NUMERIC_TOL = 1e-11  # 50-digit re-check of a witness that could not be made exact
SHIFT_FROM = 10**6  # an additive constant this large is taken out of the float search (exact checks keep it)
BOUNDARY_RATIO = 1e-6  # a coordinate this close to an open end (relative to the point's scale) is "at" it


@dataclass(frozen=True)
class CheckResult:
    id: str
    status: str
    best_value: float | None
    witness: dict[str, float] | None
    reason: str
    # a re-checkable proof of the status (docs/problem-format.md): confirmed -> extrembench.verify.certificates
    # (bound | sos | numeric), refuted -> extrembench.verify.refutation; each re-checkable alone
    certificate: dict | None = None

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "status": self.status,
            "best_value": self.best_value,
            "witness": self.witness,
            "reason": self.reason,
            "certificate": self.certificate,
        }


@dataclass(frozen=True)
class SearchResult:
    best_value: float | None
    witness: dict[str, float] | None
    unbounded: bool


# ---------------------------------------------------------------- numeric model
@dataclass(frozen=True)
class _Coordinate:
    """x = offset + sign * g(t), t in [t_lo, t_hi]; g = exp | sinh | identity."""

    kind: str
    offset: float
    sign: float
    t_lo: float
    t_hi: float

    def x(self, t, lib=np):
        """x at t, with numpy (arrays) or with math (a float: ~10x faster in the local searches)."""
        if self.kind == "exp":
            return self.offset + self.sign * lib.exp(t)
        if self.kind == "sinh":
            return self.offset + self.sign * lib.sinh(t)
        return t

    def t(self, x: float) -> float:
        if self.kind == "exp":
            return math.log(max(self.sign * (x - self.offset), 1e-300))
        if self.kind == "sinh":
            return math.asinh(self.sign * (x - self.offset))
        return x


def _coordinate(domain: Domain) -> _Coordinate:
    lo = None if domain.lo is None else float(domain.lo)
    hi = None if domain.hi is None else float(domain.hi)
    if lo is not None and hi is not None:
        return _Coordinate("box", 0.0, 1.0, lo, hi)
    if lo is None and hi is None:
        return _Coordinate("sinh", 0.0, 1.0, -LOG_LIMIT, LOG_LIMIT)
    end, sign, is_open = (lo, 1.0, domain.lo_open) if lo is not None else (hi, -1.0, domain.hi_open)
    if is_open:
        return _Coordinate("exp", end, sign, -LOG_LIMIT, LOG_LIMIT)
    return _Coordinate("sinh", end, sign, 0.0, LOG_LIMIT)


class _Model:
    """Vectorised numeric form of a problem in the search coordinates t."""

    def __init__(self, parsed, sense: str):
        self.parsed = parsed
        self.symbols = parsed.symbols
        self.names = [str(s) for s in self.symbols]
        self.sign = float(min_form_sign(sense))
        self.coords = [_coordinate(parsed.domains[s]) for s in self.symbols]
        # a large additive constant is searched without: a^2 + b^2 + 10^20 is flat in floats
        constant, _ = parsed.objective.as_coeff_Add()
        self.shift = constant if constant.is_Rational and abs(constant) >= SHIFT_FROM else sympy.Integer(0)
        objective = parsed.objective - self.shift
        # lambdify prints our own parsed tree (fixed vocabulary) to numpy code, never the raw text
        self.objective = sympy.lambdify(self.symbols, objective, "numpy")
        self.equalities, self.inequalities = [], []
        self.scalar_equalities, self.scalar_inequalities = [], []
        for lhs, op, rhs in parsed.constraints:
            diff = lhs - rhs if op in ("=", ">=", ">") else rhs - lhs
            # residuals are relative to the size of the terms, so abc = 10^-12 is as strict as abc = 1
            scale = sum(
                (sympy.Abs(term) for term in sympy.Add.make_args(lhs) + sympy.Add.make_args(rhs)), sympy.Float(1e-300)
            )
            pair = (sympy.lambdify(self.symbols, diff, "numpy"), sympy.lambdify(self.symbols, scale, "numpy"))
            relative = sympy.lambdify(self.symbols, diff / scale, "math")
            if op == "=":
                self.equalities.append(pair)
                self.scalar_equalities.append(relative)
            else:
                self.inequalities.append(pair)
                self.scalar_inequalities.append(relative)
        # plain-float versions for the local searches: ~10x faster than numpy on scalars
        self.scalar_objective = sympy.lambdify(self.symbols, objective, "math")

    def reported(self, value: float) -> float:
        """A searched (signed, shifted) value as the objective's own value."""
        return self.sign * value + float(self.shift)

    def target(self) -> float:
        """The claim in the searched (signed, shifted) scale."""
        return self.sign * float((self.parsed.answer - self.shift).evalf(30))

    def x_scalar(self, t) -> list[float]:
        return [c.x(float(t[i]), math) for i, c in enumerate(self.coords)]

    def x(self, t: np.ndarray) -> list:
        return [c.x(t[i]) for i, c in enumerate(self.coords)]

    def values(self, xs: list) -> tuple[np.ndarray, np.ndarray]:
        """(signed objective, relative constraint violation) for points given coordinate-wise."""
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = np.asarray(self.sign * np.asarray(self.objective(*xs), dtype=complex), dtype=complex)
            violation = np.zeros(np.shape(f), dtype=float)
            for func, scale in self.equalities:
                violation = violation + np.abs(np.asarray(func(*xs), dtype=complex)) / np.abs(
                    np.asarray(scale(*xs), dtype=complex)
                )
            for func, scale in self.inequalities:
                value = np.asarray(func(*xs), dtype=complex)
                bad = np.where(np.abs(value.imag) > 1e-12, np.inf, np.maximum(0.0, -value.real))
                violation = violation + bad / np.abs(np.asarray(scale(*xs), dtype=complex))
        f_real = np.where(np.abs(f.imag) > 1e-9 * (1 + np.abs(f.real)), np.nan, f.real)
        violation = np.where(np.isfinite(violation), violation, np.inf)
        return f_real, violation


def _model(item: Problem | ExtremalSpec) -> tuple[_Model, Any]:
    problem = (
        item
        if isinstance(item, Problem)
        else Problem(
            id="spec",
            sense=item.sense,
            variables=dict(item.variables),
            constraints=tuple(item.constraints),
            objective=item.objective,
            answer=item.answer,
        )
    )
    parsed = parse_problem(problem)
    return _Model(parsed, item.sense), parsed


# ---------------------------------------------------------------- search
@dataclass(frozen=True)
class _Candidate:
    t: tuple[float, ...]
    value: float  # signed objective (the search minimises)
    violation: float


def _sample(model: _Model, rng: np.random.Generator, count: int) -> np.ndarray:
    columns = []
    # a common log-scale shift for a third of the samples, so constraints like abc = 10^12 or
    # 10^-12 have nearly feasible samples (SLSQP cannot cross 12 orders of magnitude by itself)
    log_shift = np.where(rng.uniform(size=count) < 1 / 3, rng.uniform(-30.0, 30.0, count), 0.0)
    for c in model.coords:
        if c.kind == "box":
            u = rng.uniform(c.t_lo, c.t_hi, count)
            ends = rng.uniform(size=count)
            u = np.where(ends < 0.1, c.t_lo, np.where(ends > 0.9, c.t_hi, u))
        elif c.kind == "exp":
            u = np.clip(rng.normal(0.0, 1.5, count) + log_shift, c.t_lo, c.t_hi)
        elif c.t_lo == 0.0:
            u = np.where(rng.uniform(size=count) < 0.15, 0.0, np.abs(rng.normal(0.0, 1.5, count)) + np.abs(log_shift))
        else:
            u = rng.normal(0.0, 1.5, count) + np.sign(rng.normal(size=count)) * np.abs(log_shift)
        columns.append(u)
    return np.array(columns)


def _structured_starts(model: _Model) -> list[np.ndarray]:
    """All-ones and the lower corner (the equality case of most olympiad inequalities), and zero
    where the domain allows it (optima at the origin, single-point sets like x^2 + y^2 = 0)."""
    ones = np.array([c.t(1.0) if c.kind != "box" else min(max(1.0, c.t_lo), c.t_hi) for c in model.coords])
    low = np.array([c.t_lo if c.kind == "box" else (0.0 if c.t_lo == 0.0 else c.t(1.0)) for c in model.coords])
    zero = np.array(
        [
            min(max(0.0, c.t_lo), c.t_hi)
            if c.kind == "box"
            else (c.t(0.0) if c.kind == "sinh" and c.t_lo <= c.t(0.0) <= c.t_hi else c.t(1.0))
            for c in model.coords
        ]
    )
    return [ones, low, zero]


def _penalised(model: _Model, values: np.ndarray, violation: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        merit = np.where(np.isfinite(values), values, np.inf) + 1e3 * (1 + np.abs(np.nan_to_num(values))) * violation
    return np.where(np.isfinite(merit), merit, np.inf)


def _local(model: _Model, start: np.ndarray, limit: float | None = None, iterations: int = 150) -> _Candidate | None:
    bounds = [
        (c.t_lo, c.t_hi) if c.kind == "box" or limit is None else (max(c.t_lo, -limit), min(c.t_hi, limit))
        for c in model.coords
    ]
    start = np.clip(start, [b[0] for b in bounds], [b[1] for b in bounds])

    def objective(t):
        # asinh: same minimisers, but an objective running to -1e40 no longer drowns the
        # constraint terms, so SLSQP follows a diverging path while staying feasible
        f = _scalar(model.scalar_objective, model.x_scalar(t))
        return math.asinh(model.sign * f) if math.isfinite(f) else 1e3

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = minimize(
            objective,
            start,
            method="SLSQP",
            bounds=bounds,
            constraints=_scalar_constraints(model),
            options={"maxiter": iterations, "ftol": 1e-15},
        )
    t = np.clip(result.x, [b[0] for b in bounds], [b[1] for b in bounds])
    f, violation = model.values(model.x(t))
    if not np.isfinite(f):
        return None
    return _Candidate(tuple(float(v) for v in t), float(f), float(violation))


def _scalar(func, xs: list[float]) -> float:
    """A lambdified ('math') function at a point; nan where it is undefined or complex."""
    try:
        value = func(*xs)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return math.nan
    if isinstance(value, complex):
        return value.real if abs(value.imag) <= 1e-12 * (1 + abs(value.real)) else math.nan
    return float(value)


def _scalar_constraints(model: _Model) -> list[dict]:
    """SLSQP constraints on the relative residuals; an undefined residual counts as badly violated."""

    def wrap(func):
        def residual(t):
            value = _scalar(func, model.x_scalar(t))
            return value if math.isfinite(value) else -1e30

        return residual

    return [{"type": "eq", "fun": wrap(f)} for f in model.scalar_equalities] + [
        {"type": "ineq", "fun": wrap(f)} for f in model.scalar_inequalities
    ]


@dataclass(frozen=True)
class Effort:
    """How much search a check does, counted in work, never in seconds, so the same file, seed and
    code give the same verdict on any machine however busy. `time_cap_s` is only a safety net: a
    check that exceeds it stops with status inconclusive (reason "time cap"), never another verdict."""

    starts: int = 14  # random local searches (plus the all-ones and lower-corner starts)
    iterations: int = 150  # SLSQP iterations per local search
    samples_per_variable: int = 300  # random sample the starts are picked from
    time_cap_s: float = 1800.0  # holds now (a timer signal): 300 s cut ineq-0042 and 0057 short on a loaded 2-core box

    @classmethod
    def from_settings(cls, validation: Validation) -> Effort:
        return cls(starts=validation.starts, iterations=validation.iterations, time_cap_s=validation.time_cap_s)


class TimeCap(BaseException):
    """The wall-clock safety net of Effort was hit; the check reports inconclusive. A BaseException
    (like KeyboardInterrupt): the catch-alls that keep a certifier bug from stopping a batch must
    not turn the cap into another verdict."""


@contextlib.contextmanager
def _wall_cap(seconds: float):
    """Raise TimeCap in this thread once `seconds` have passed, wherever the check is (the SDP, the
    box search, a sympy simplification): a timer signal, so no code path can run past the cap by
    more than its longest single C call. Only in the main thread and when no other timer is set
    (signals go to the main thread; a caller's own alarm is left alone); elsewhere the counted
    work and the search's own deadline checks are the bound."""
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return

    def fire(signum, frame):
        raise TimeCap

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _search(model: _Model, seed: int, effort: Effort, deadline: float) -> list[_Candidate]:
    """Local optima from multistart, best first; raises TimeCap past the deadline."""
    rng = np.random.default_rng(seed)
    starts = effort.starts
    samples = _sample(model, rng, effort.samples_per_variable * len(model.coords) + 200)
    values, violation = model.values(model.x(samples))
    merit = _penalised(model, values, violation)
    # a third of the starts nearest to feasibility, a third best by penalised value, a third random
    picked: list[int] = []
    for order in (np.argsort(violation, kind="stable"), np.argsort(merit, kind="stable")):
        picked += [int(i) for i in order if int(i) not in picked][: starts // 3]
    rest = [i for i in rng.permutation(samples.shape[1]) if int(i) not in picked]
    chosen = [samples[:, i] for i in picked + rest[: starts - len(picked)]]
    found = []
    for start in _structured_starts(model) + chosen:
        _check_cap(deadline)
        candidate = _local(model, start, iterations=effort.iterations)
        if candidate is not None:
            found.append(candidate)
    return sorted(found, key=lambda c: (c.violation > FEAS_TOL, c.value))


# ---------------------------------------------------------------- every sign orthant
ORTHANT_STARTS = 2  # local searches per orthant: from x = (+-1, ...) and from the best sample in it
ORTHANT_SAMPLES_PER_VARIABLE = 40
ORTHANT_LIMIT = 16.0  # |t| bound of the orthant searches (|x| up to ~4e6)
MAX_ORTHANT_SEARCHES = 256  # a work count: past it the remaining orthants stay unvisited


@dataclass(frozen=True)
class Coverage:
    """Which sign orthants of the sign-free variables a search visited (components.orthants);
    `unvisited` names the parts no search ran in (a numeric confirmation is then refused)."""

    free: tuple[str, ...]
    visited: tuple[str, ...]
    unvisited: tuple[str, ...]
    complete: bool

    def record(self) -> dict | None:
        """What a numeric certificate records (None when no variable is sign-free)."""
        if not self.free:
            return None
        return {"free": list(self.free), "visited": list(self.visited), "complete": self.complete}

    def missing(self) -> str:
        if self.complete:
            return ""
        if not self.unvisited:
            return f"the sign orthants of {', '.join(self.free)} (too many sign-free variables to enumerate)"
        shown = "; ".join(self.unvisited[:4]) + (
            f"; and {len(self.unvisited) - 4} more" if len(self.unvisited) > 4 else ""
        )
        return f"{len(self.unvisited)} sign orthant(s) of {', '.join(self.free)} never searched ({shown})"


def _orthant_coordinate(domain: Domain, sign: int) -> _Coordinate:
    """The coordinate of a sign-free variable restricted to one closed half of its domain."""
    if sign > 0:
        if domain.hi is None:
            return _Coordinate("sinh", 0.0, 1.0, 0.0, LOG_LIMIT)
        hi = float(domain.hi)
        return (
            _Coordinate("exp", hi, -1.0, -LOG_LIMIT, math.log(hi))
            if domain.hi_open
            else _Coordinate("box", 0.0, 1.0, 0.0, hi)
        )
    if domain.lo is None:
        return _Coordinate("sinh", 0.0, -1.0, 0.0, LOG_LIMIT)
    lo = float(domain.lo)
    return (
        _Coordinate("exp", lo, 1.0, -LOG_LIMIT, math.log(-lo))
        if domain.lo_open
        else _Coordinate("box", 0.0, 1.0, lo, 0.0)
    )


def _restricted(model: _Model, orthants: Orthants, pattern: str) -> _Model:
    signs = dict(zip(orthants.free, pattern))
    restricted = copy.copy(model)
    restricted.coords = [
        _orthant_coordinate(model.parsed.domains[s], 1 if signs[name] == "+" else -1) if name in signs else c
        for s, name, c in zip(model.symbols, model.names, model.coords)
    ]
    return restricted


def _orthant_search(model: _Model, seed: int, effort: Effort, deadline: float) -> tuple[list[_Candidate], Coverage]:
    """A small multistart search inside each closed sign orthant of the sign-free variables (one
    per orbit under the problem's exact symmetries), its local optima in the model's own
    coordinates, and the coverage. Bounded by counts: ORTHANT_STARTS per orthant, at most
    MAX_ORTHANT_SEARCHES in all, the orthants in a fixed order (all '+' first)."""
    orthants = components.orthants(model.parsed)
    if not orthants.free:
        return [], Coverage((), (), (), True)
    found, visited = [], []
    budget = MAX_ORTHANT_SEARCHES
    for k, pattern in enumerate(orthants.patterns):
        if budget < ORTHANT_STARTS:
            break
        restricted = _restricted(model, orthants, pattern)
        rng = np.random.default_rng([seed, k])
        samples = _sample(restricted, rng, ORTHANT_SAMPLES_PER_VARIABLE * len(model.coords) + 40)
        values, violation = restricted.values(restricted.x(samples))
        merit = _penalised(restricted, values, violation)
        unit = np.array([c.t(c.sign * 1.0 if c.kind == "sinh" else 1.0) for c in restricted.coords])
        bounds = [(c.t_lo, c.t_hi) for c in restricted.coords]
        unit = np.clip(unit, [b[0] for b in bounds], [b[1] for b in bounds])
        starts = [unit, samples[:, int(np.argmin(merit))]][:ORTHANT_STARTS]
        for start in starts:
            _check_cap(deadline)
            # within |t| <= ORTHANT_LIMIT: a local search running off to 1e17 leaves the constraint
            # by more than the tolerance; stopped at the limit it stays feasible, and the rays
            # (_rays) then carry it further out exactly
            f, v = restricted.values(restricted.x(start))
            here = _Candidate(tuple(float(u) for u in start), float(f), float(v)) if np.isfinite(f) else None
            for candidate in (here, _local(restricted, start, limit=ORTHANT_LIMIT, iterations=effort.iterations)):
                if candidate is None:
                    continue
                x = restricted.x_scalar(np.array(candidate.t))
                t = tuple(float(c.t(value)) for c, value in zip(model.coords, x))
                found.append(replace(candidate, t=t))
        budget -= len(starts)
        visited.append(pattern)
    unvisited = [orthants.describe(p) for p in orthants.patterns[len(visited) :]]
    coverage = Coverage(orthants.free, tuple(visited), tuple(unvisited), orthants.complete and not unvisited)
    return sorted(found, key=lambda c: (c.violation > FEAS_TOL, c.value)), coverage


def _check_cap(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise TimeCap


def _feasible(candidates: list[_Candidate]) -> list[_Candidate]:
    return [c for c in candidates if c.violation <= FEAS_TOL]


def _diverges(model: _Model, start: _Candidate) -> tuple[bool, list[float], list[dict[str, float]]]:
    """Follow the optima of the search restricted to |t| <= L for growing L (a feasible path whose
    coordinates run to 0 or infinity); the objective diverges when its decrements do not die out.
    Also returns the path's points (an exact `unbounded` certificate is fitted to them)."""
    path, points = [], []
    for limit in (8.0, 16.0, 24.0, 32.0, 40.0):
        candidate = _local(model, np.array(start.t), limit)
        if candidate is None or candidate.violation > FEAS_TOL:
            return False, path, points
        path.append(candidate.value)
        points.append(_witness(model, candidate))
    steps = [a - b for a, b in zip(path, path[1:])]
    growing = all(s > 0 for s in steps) and steps[-1] >= 0.5 * steps[0] and steps[-1] > 1e-9 * (1 + abs(path[-1]))
    return growing, path, points


RAY_FACTORS = (10.0, 100.0, 1e3, 1e4, 1e5, 1e6)  # one coordinate pushed out this far, the rest re-optimised
RAY_STEP = math.log(10.0) + 0.5  # how far (in search coordinates) the others may move per push


def _near(c: _Coordinate, t: float, x: float) -> _Coordinate:
    """The coordinate within RAY_STEP of t and on the side of 0 where x is (a ray stays in the
    orthant it starts in)."""
    lo, hi = max(c.t_lo, t - RAY_STEP), min(c.t_hi, t + RAY_STEP)
    if c.kind == "sinh" and c.offset == 0 and c.t_lo < 0 < c.t_hi and x != 0:
        lo, hi = (max(lo, 0.0), hi) if c.sign * x > 0 else (lo, min(hi, 0.0))
    return replace(c, t_lo=lo, t_hi=max(lo, hi))


def _rays(model: _Model, start: _Candidate, iterations: int, deadline: float):
    """Paths of feasible points along which one unbounded coordinate is pushed outward from a point
    beating the claim (x fixed at 10x, 100x, ... its value, the others re-optimised from the
    previous point), each yielded when the objective keeps decreasing along it: its points are the
    far points an exact `unbounded` certificate is fitted to. A critical point such as (-1, -1) on
    the branch x*y = 1, x, y < 0 is where a local search stays; the push leaves it. Bounded work:
    len(RAY_FACTORS) local searches per coordinate."""
    x0 = model.x_scalar(np.array(start.t))
    for i, c in enumerate(model.coords):
        if c.kind == "box" or x0[i] == 0 or (c.kind == "exp" and c.sign * (x0[i] - c.offset) <= 0):
            continue
        t, values, points = np.array(start.t), [], []
        # from a far start (a point already at 1e16) the pushes begin at 10, so the path stays in floats
        base = x0[i] - c.offset if abs(x0[i] - c.offset) <= 1e3 else math.copysign(1.0, x0[i] - c.offset)
        for factor in RAY_FACTORS:
            _check_cap(deadline)
            fixed = c.t(c.offset + base * factor)
            pinned = copy.copy(model)
            # the other coordinates move at most ~10x per push: re-optimised freely, one that can
            # also run off (x + y + z on x*y*z = 1) would leave no path to fit
            pinned.coords = [
                replace(c, t_lo=fixed, t_hi=fixed)
                if k == i
                else (other if other.kind == "box" else _near(other, t[k], x0[k]))
                for k, other in enumerate(model.coords)
            ]
            t = np.array([*t[:i], fixed, *t[i + 1 :]])
            candidate = _local(pinned, t, iterations=iterations)
            if candidate is None or candidate.violation > FEAS_TOL or (values and not candidate.value < values[-1]):
                break
            t = np.array(candidate.t)
            values.append(candidate.value)
            points.append(_witness(model, candidate))
        if len(points) >= 2:
            yield values, points


def _at_limit(model: _Model, candidate: _Candidate) -> bool:
    return any(c.kind != "box" and abs(t) >= LOG_LIMIT - 1 for c, t in zip(model.coords, candidate.t))


def _witness(model: _Model, candidate: _Candidate) -> dict[str, float]:
    return {name: float(x) for name, x in zip(model.names, model.x(np.array(candidate.t)))}


def search_extremum(problem_or_spec: Problem | ExtremalSpec, *, seed: int, effort: Effort = Effort()) -> SearchResult:
    """Numeric global search alone (no claim involved): best feasible value found, its point, and
    whether the objective diverges in the asked direction. Raises TimeCap past effort.time_cap_s."""
    model, _ = _model(problem_or_spec)
    feasible = _feasible(_search(model, seed, effort, time.monotonic() + effort.time_cap_s))
    feasible = _rescored(model, feasible[:RESCORED]) + feasible[RESCORED:]
    if not feasible:
        return SearchResult(None, None, False)
    best = feasible[0]
    unbounded = _at_limit(model, best) and _diverges(model, best)[0]
    return SearchResult(model.reported(best.value), _witness(model, best), unbounded)


RESCORED = 8  # the best float candidates whose objective is re-evaluated at HP_DIGITS


def _rescored(model: _Model, candidates: list[_Candidate]) -> list[_Candidate]:
    """Candidates with the objective re-evaluated at their own float coordinates in 50 digits, best
    first; those where it is undefined dropped. Far out (coordinates near 1e19) a difference of cube
    roots cancels in floats to 32 where its value is <= 0, and whether it did depended on the BLAS
    thread count (one machine's answer, not the problem's). The float value is kept where it agrees."""
    out = []
    for candidate in candidates:
        point = {s: sympy.Float(v, HP_DIGITS) for s, v in zip(model.symbols, model.x(np.array(candidate.t)))}
        exact = _hp(model.parsed.objective - model.shift, point)
        if exact is None:
            continue
        value = model.sign * float(exact)
        if abs(value - candidate.value) > 1e-9 * (1 + abs(value)):
            candidate = replace(candidate, value=value)
        out.append(candidate)
    return sorted(out, key=lambda c: c.value)


# ---------------------------------------------------------------- high-precision re-check
def _snap(value: float, max_denominator: int = 24) -> sympy.Expr | None:
    """A simple closed form near `value`: p/q, ±sqrt(p/q) or p/q*pi with q <= max_denominator
    (the equality cases of olympiad inequalities); None when none is within 1e-4 relative."""
    tolerance = 1e-4 * max(1.0, abs(value))  # loose: a wrong snap fails the exact re-check anyway
    candidates = []
    for transform, back in (
        (lambda v: v, lambda r: r),
        (lambda v: v * v, lambda r: sympy.sqrt(r) if value > 0 else -sympy.sqrt(r)),
        (lambda v: v / math.pi, lambda r: r * sympy.pi),
    ):
        if candidates and abs(value) > 1e3:  # sqrt(p/q) and p/q*pi forms are for moderate values
            break
        fraction = Fraction(transform(value)).limit_denominator(max_denominator)
        candidate = back(sympy.Rational(fraction.numerator, fraction.denominator))
        candidates.append((abs(float(candidate) - value), len(candidates), candidate))
    error, _, closest = min(candidates)
    return closest if error <= tolerance else None


def _mp_point(model: _Model, x: list[float], mode: str) -> dict | None:
    """Witness in 50-digit numbers. mode 'exact': every coordinate snapped to a closed form (None
    if one does not snap); 'mixed': the coordinates that snap are snapped; 'numeric': none. The
    coordinates left as floats are projected back onto the equality constraints by Newton steps."""
    point, free = {}, []
    for s, value in zip(model.symbols, x):
        closed_form = _snap(float(value)) if mode != "numeric" else None
        if closed_form is None and mode == "exact":
            return None
        if closed_form is None:
            free.append(s)
            point[s] = sympy.Float(float(value), HP_DIGITS)
        else:
            point[s] = closed_form
    return _newton_project(model, point, free)


def _newton_project(model: _Model, point: dict, free: list) -> dict:
    """Move the `free` coordinates of a 50-digit point onto the equality constraints (minimum-norm
    Newton steps); the other coordinates stay as they are."""
    parsed = model.parsed
    residuals = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "="]
    free = [s for s in free if not _is_at_closed_end(parsed.domains[s], point[s])]
    if not free or not residuals or len(free) < len(residuals):
        return point
    start, point = point, dict(point)
    g = sympy.Matrix(residuals).subs({s: v for s, v in point.items() if s not in free})
    jacobian = g.jacobian(free)
    with mpmath.workdps(HP_DIGITS + 10):
        g_f = sympy.lambdify(free, g, "mpmath")
        j_f = sympy.lambdify(free, jacobian, "mpmath")
        values = [mpmath.mpf(str(sympy.N(point[s], HP_DIGITS + 5))) for s in free]
        for _ in range(30):
            try:
                residual = mpmath.matrix(g_f(*values))
                if mpmath.norm(residual) < mpmath.mpf(10) ** (-HP_DIGITS):
                    break
                jac = mpmath.matrix(j_f(*values))
                step = jac.T * mpmath.lu_solve(jac * jac.T, residual)
            except (ZeroDivisionError, ValueError, TypeError):
                break
            values = [v - step[k] for k, v in enumerate(values)]
        if any(isinstance(v, mpmath.mpc) for v in values):
            # a step left the real domain (e.g. a square root of a negative number): no projection
            return start
        for s, v in zip(free, values):
            point[s] = sympy.Float(mpmath.nstr(v, HP_DIGITS + 5), HP_DIGITS)
    return point


def _push_improves(model: _Model, point: dict) -> str | None:
    """Whether moving a far-out coordinate 100x further out (or 100x closer to an open end), with
    the equality constraints restored, still improves the objective at 50 digits: then the value is
    only approached ("x -> infinity"), however close the float point came (1 + 1/x at x = 1e13
    equals 1 to 13 digits)."""
    parsed = model.parsed
    here = _hp(parsed.objective, point)
    if here is None:
        return None
    for s in model.symbols:
        domain, value = parsed.domains[s], point[s]
        pushes = []
        # only far-out coordinates are pushed: at an attained optimum a push cannot improve, but a
        # float witness a hair above the answer could be "improved" by a big enough move
        if domain.hi is None and value >= 10:
            pushes.append((value * 100, f"{s} -> infinity"))
        if domain.lo is None and value <= -10:
            pushes.append((value * 100, f"{s} -> -infinity"))
        for end, is_open in ((domain.lo, domain.lo_open), (domain.hi, domain.hi_open)):
            if end is not None and is_open and 0 < abs(value - end) <= 1e-2:
                pushes.append((end + (value - end) / 100, f"{s} -> {end}"))
        for new_value, description in pushes:
            moved = _newton_project(
                model, {**point, s: sympy.N(new_value, HP_DIGITS)}, [other for other in model.symbols if other != s]
            )
            # relative, not absolute: exp(-x) improves from 1e-(1e10) to 1e-(1e12)
            if (
                _recheck_feasible(model, moved)
                and (there := _hp(parsed.objective, moved)) is not None
                and model.sign * (there - here) < -(sympy.Float(10) ** (10 - HP_DIGITS)) * (abs(here) + abs(there))
            ):
                return description
    return None


def _recheck_feasible(model: _Model, point: dict) -> bool:
    for s in model.symbols:
        if not model.parsed.domains[s].contains(point[s]):
            return False
    for lhs, op, rhs in model.parsed.constraints:
        measured = _constraint_slack(lhs, op, rhs, point)
        if measured is None:
            return False
        slack, scale = measured
        if (op == "=" and abs(slack) > NUMERIC_TOL * scale) or (op != "=" and slack < -NUMERIC_TOL * scale):
            return False
    return True


def _is_at_closed_end(domain: Domain, value) -> bool:
    return any(
        end is not None and not is_open and value == end
        for end, is_open in ((domain.lo, domain.lo_open), (domain.hi, domain.hi_open))
    )


def _magnitude_digits(answer: sympy.Expr) -> int:
    """Decimal digits of the answer's integer part (0 below 1), capped."""
    try:
        size = abs(float(answer.evalf(20)))
    except (TypeError, ValueError, OverflowError):
        return 0
    return 400 if not math.isfinite(size) else min(400, max(0, math.ceil(math.log10(1 + size))))


def _answer_scale(objective: sympy.Expr, answer: sympy.Expr):
    """What a relative tolerance on the answer is relative to: 1 + |answer|, or 1 + |answer - c|
    when the objective adds a constant c (a^2 + b^2 + 10^20: only the varying part's size counts,
    so a claim of 10^20 + 1 is not within 1e-11 * 10^20 of the minimum). Never larger than before."""
    constant, _ = objective.as_coeff_Add()
    scale = 1 + abs(sympy.N(answer, 20))
    if constant != 0 and constant.is_Rational:
        scale = min(scale, 1 + abs(sympy.N(answer - constant, 20)))
    return scale


def _hp(expr: sympy.Expr, point: dict, digits: int = HP_DIGITS) -> sympy.Expr | None:
    """50-digit value of expr at point; None where it is undefined or not real."""
    value = sympy.N(expr.subs(point), digits)
    if not value.is_number or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return None
    real, imaginary = value.as_real_imag()
    if abs(imaginary) > 1e-40 * (1 + abs(real)):
        return None
    return real


def _constraint_slack(lhs: sympy.Expr, op: str, rhs: sympy.Expr, point: dict) -> tuple[sympy.Expr, sympy.Expr] | None:
    """(slack, scale) of a constraint at a 50-digit point: slack >= 0 when it holds (= 0 for '='),
    scale the largest term, so tolerances are relative (abc = 10^-12 is as strict as abc = 1)."""
    left, right = _hp(lhs, point), _hp(rhs, point)
    if left is None or right is None:
        return None
    terms = [_hp(term, point) for term in sympy.Add.make_args(lhs) + sympy.Add.make_args(rhs)]
    scale = max([abs(t) for t in terms if t is not None] + [sympy.Float(1e-300)])
    return ((left - right) if op in ("=", ">=", ">") else (right - left)), scale


def _recheck(model: _Model, point: dict, answer: sympy.Expr, tol: float) -> tuple[str, str]:
    """('ok' | 'boundary' | 'fail', detail) for a 50-digit witness: in the domain, constraints hold,
    objective equals the answer. 'boundary' = equal to the answer but only on an open end or where a
    strict constraint is tight."""
    parsed = model.parsed
    on_boundary = []
    for s in model.symbols:
        domain, value = parsed.domains[s], point[s]
        if not _in_closure(domain, value):
            return "fail", f"{s} = {sympy.N(value, 12)} is outside its domain"
        if not domain.contains(value) or _near_open_end(domain, value, point):
            on_boundary.append(f"{s} -> {_end_text(domain, value)}")
    for lhs, op, rhs in parsed.constraints:
        measured = _constraint_slack(lhs, op, rhs, point)
        if measured is None:
            return "fail", f"constraint {lhs} {op} {rhs} is undefined at the witness"
        slack, scale = measured
        if op == "=" and abs(slack) > tol * scale:
            return "fail", f"constraint {lhs} = {rhs} is off by {sympy.N(slack, 3)}"
        if op != "=" and slack < -tol * scale:
            return "fail", f"constraint {lhs} {op} {rhs} is violated by {sympy.N(-slack, 3)}"
        if op in (">", "<") and slack <= tol * scale:
            on_boundary.append(f"strict constraint {lhs} {op} {rhs} is tight")
    # digits for the answer's magnitude too: 10^20 + 1 and 10^20 differ in the 21st digit
    digits = HP_DIGITS + _magnitude_digits(answer)
    value = _hp(parsed.objective, point, digits)
    if value is None:
        return ("boundary", "; ".join(on_boundary)) if on_boundary else ("fail", "objective undefined at the witness")
    gap = abs(value - sympy.N(answer, digits))
    if gap > tol * _answer_scale(parsed.objective, answer):
        return "fail", f"objective at the witness is {sympy.N(value, 15)}, not the answer (gap {sympy.N(gap, 3)})"
    if on_boundary:
        return "boundary", "; ".join(on_boundary)
    return "ok", ""


def _in_closure(domain: Domain, value) -> bool:
    return (domain.lo is None or value >= domain.lo) and (domain.hi is None or value <= domain.hi)


def _near_open_end(domain: Domain, value, point: dict) -> bool:
    scale = max([abs(float(v)) for v in point.values()] + [1e-300])
    for end, is_open in ((domain.lo, domain.lo_open), (domain.hi, domain.hi_open)):
        if end is not None and is_open and abs(float(value - end)) <= BOUNDARY_RATIO * max(scale, 1e-300):
            return True
    return False


def _end_text(domain: Domain, value) -> str:
    ends = [e for e in (domain.lo, domain.hi) if e is not None]
    return str(min(ends, key=lambda e: abs(float(value - e)))) if ends else "?"


def _attainment(model: _Model, candidates: list[_Candidate], answer: sympy.Expr) -> tuple[str, _Candidate, str]:
    """Status among confirmed / not_attained / inconclusive for candidates whose value matches."""
    notes = []
    limit_seen = None
    for candidate in candidates[:6]:
        x = model.x(np.array(candidate.t))
        escaping = _escaping(model, candidate)
        if escaping:
            limit_seen = limit_seen or (candidate, f"the value is only approached, as {escaping}")
            continue
        verdict, point, detail = _best_recheck(model, x, answer)
        if verdict == "ok" and (escaping := _push_improves(model, point)):
            limit_seen = limit_seen or (candidate, f"the value is only approached, as {escaping}")
            continue
        if verdict == "ok":
            kind = "exact closed-form witness" if detail == "exact" else "witness re-checked to 50 digits"
            t = np.array([c.t(float(point[s])) for c, s in zip(model.coords, model.symbols)])
            value, _ = model.values(model.x(t))
            confirmed = replace(candidate, t=tuple(t), value=float(value))
            return "confirmed", confirmed, f"{kind}: constraints hold and the objective equals the answer"
        if verdict == "boundary":
            limit_seen = limit_seen or (candidate, f"the value is reached only in the limit, where {detail}")
        elif detail:
            notes.append(detail)
    if limit_seen:
        return "not_attained", limit_seen[0], limit_seen[1]
    return (
        "inconclusive",
        candidates[0],
        "best value matches the answer but no witness passed the 50-digit re-check"
        + (f" ({notes[0]})" if notes else ""),
    )


def _best_recheck(model: _Model, x: list, answer: sympy.Expr) -> tuple[str, dict | None, str]:
    """Re-check a near-optimal point: first snapped to small rationals (exact), then as a 50-digit
    projection of the float. An exact snap landing on an open end with the answer's value settles
    it as a limit point: the float near that end must not then pass on a looser tolerance."""
    failure = ""
    for mode, tol in (("exact", EXACT_TOL), ("mixed", NUMERIC_TOL), ("numeric", NUMERIC_TOL)):
        for scaled in _scalings(model, x):
            point = _mp_point(model, scaled, mode)
            if point is None:
                continue
            verdict, detail = _recheck(model, point, answer, tol)
            if verdict == "ok":
                return "ok", point, mode
            if verdict == "boundary":
                return "boundary", point, detail
            failure = failure or detail
    return "fail", None, failure


def _escaping(model: _Model, candidate: _Candidate) -> str | None:
    """Which variables run to an open end or to infinity at this point ("b -> 0; c -> infinity"),
    or None. A coordinate at the search's scale limit, relatively tiny next to an open end, or
    huge next to the others marks an approach to the boundary rather than an attained optimum."""
    x = [float(v) for v in model.x(np.array(candidate.t))]
    magnitudes = [abs(v) for v in x]
    scale = max(magnitudes + [1e-300])
    smallest = min([m for m in magnitudes if m > 0] or [1.0])
    found = []
    for name, c, t, value, s in zip(model.names, model.coords, candidate.t, x, model.symbols):
        domain = model.parsed.domains[s]
        if (
            c.kind != "box"
            and (t >= LOG_LIMIT - 1 or abs(value) >= 1e12 * max(1.0, smallest))
            and (c.kind != "exp" or c.sign * (value - c.offset) > 1)
        ):
            found.append(f"{name} -> {'-' if value < 0 else ''}infinity")
            continue
        if (
            c.kind == "exp"
            and (t <= -LOG_LIMIT + 1 or abs(value - c.offset) <= BOUNDARY_RATIO * min(scale, 1.0))
            or c.kind == "box"
            and _near_open_end(domain, sympy.Float(value), {0: scale})
        ):
            found.append(f"{name} -> {_end_text(domain, sympy.Float(value))}")
    return "; ".join(found) or None


def _scalings(model: _Model, x: list) -> list[list[float]]:
    """The point itself and, when objective and constraints are scale invariant there, the point
    rescaled so its largest coordinate is 1 (homogeneous problems float to any scale)."""
    points = [list(map(float, x))]
    largest = max(abs(float(v)) for v in x)
    if largest > 0 and abs(largest - 1) > 1e-12 and all(c.kind != "box" for c in model.coords):
        scaled = [float(v) / largest for v in x]
        f1, _ = model.values(list(map(np.float64, x)))
        f2, v2 = model.values(list(map(np.float64, scaled)))
        if np.isfinite(f1) and np.isfinite(f2) and abs(f1 - f2) <= 1e-9 * (1 + abs(f1)) and v2 <= FEAS_TOL:
            points.append(scaled)
    return points


# ---------------------------------------------------------------- the check
def _invalid(problem_id: str, error: Exception) -> CheckResult:
    return CheckResult(problem_id, "invalid", None, None, str(error))


def check_problem(
    problem: Problem | str | Path,
    *,
    seed: int = 0,
    effort: Effort = Effort(),
    ignore_keys=DEFAULT_IGNORED_KEYS,
    certify: bool = True,
) -> CheckResult:
    """Validate one problem; a path that fails to load gives status 'invalid', never an exception.
    certify=False leaves a confirmed answer without its certificate (same status: the certificate
    is built after the verdict), for callers that need only statuses."""
    if not isinstance(problem, Problem):
        try:
            problem = load_problem(problem, ignore_keys=ignore_keys)
        except ProblemError as exc:
            return _invalid(declared_id(Path(problem)), exc)
    try:
        with _wall_cap(effort.time_cap_s):
            return _check_loaded(problem, seed, effort, certify)
    except TimeCap:
        return CheckResult(
            problem.id,
            "inconclusive",
            None,
            None,
            f"time cap: the check ran longer than {effort.time_cap_s:g} s (a safety net, not a "
            "budget; the search is bounded by counts and should never reach it)",
        )
    except Exception as exc:  # a validator failure must not stop a batch; it is reported, not hidden
        return CheckResult(
            problem.id, "inconclusive", None, None, f"the validator failed on this problem: {type(exc).__name__}: {exc}"
        )


def _check_loaded(problem: Problem, seed: int, effort: Effort, certify: bool = True) -> CheckResult:
    deadline = time.monotonic() + effort.time_cap_s
    try:
        convert_problem(problem)  # raises when the source inequality disagrees with the curated fields
        model, parsed = _model(problem)
    except (ProblemError, ExpressionError) as exc:
        return _invalid(problem.id, exc)
    candidates = _search(model, seed, effort, deadline)
    # every sign orthant of the sign-free variables searched too (a hyperbola's other branch);
    # its points join only where they change the verdict, so the usual witness stays the same
    in_orthants, coverage = _orthant_search(model, seed, effort, deadline)
    feasible = _feasible(candidates)
    if not feasible:
        feasible = _feasible(in_orthants)
    if not feasible:
        exact = _exactly_feasible(model, candidates + in_orthants, deadline)
        if exact is None:
            return _no_feasible_point(problem.id, parsed, candidates)
        feasible = [exact]
    statement_error = _statement_mismatch(problem, model, feasible)
    if statement_error:
        return CheckResult(problem.id, "invalid", None, None, f"statement: {statement_error}")
    answer = float((parsed.answer - model.shift).evalf(30))
    target = model.target()
    tol = REL_TOL * (1 + abs(answer))
    beating = [c for c in _feasible(in_orthants) if c.value < min(target - tol, feasible[0].value)]
    if beating:
        feasible = sorted(feasible + beating, key=lambda c: c.value)
    best = feasible[0]
    if best.value < target - tol:
        return _refute_by_witness(problem, model, [c for c in feasible if c.value < target - tol], deadline)
    if best.value > target + tol:
        return _refute_unreachable(problem, model, best)
    matching = [c for c in feasible if c.value <= target + tol]
    status, chosen, reason = _attainment(model, matching, parsed.answer)
    # within the search's tolerance, yet not an exact match: the exact point decides. A confirmed
    # claim is only tried for a point below it (a level proof past a right claim cannot close and
    # would spend its whole box budget failing)
    if status != "confirmed" or (
        best.value < target
        and (not reason.startswith("exact closed-form") or best.value < target - FLOAT_NOISE * (1 + abs(target)))
    ):
        refuted = _refute_near_claim(problem, model, matching, deadline, levels=status != "confirmed")
        if refuted is not None:
            return refuted
    result = CheckResult(problem.id, status, model.reported(chosen.value), _witness(model, chosen), reason)
    if status == "confirmed" and (certify or not coverage.complete):
        certificate = build_certificate(problem, result.witness, reason, components=coverage.record())
        if certificate["kind"] == "numeric" and not coverage.complete:
            # a proof covers the whole set; the search alone covers only the orthants it visited
            return replace(
                result,
                status="inconclusive",
                reason=f"{reason}, but the numeric search did not cover the feasible set: {coverage.missing()}",
            )
        result = replace(result, certificate=certificate if certify else None)
    return result


def _no_feasible_point(problem_id: str, parsed, candidates: list[_Candidate]) -> CheckResult:
    """The search found no feasible point: invalid only with an exact proof that there is none
    (issue 29), else undecided."""
    emptiness = prove_empty(parsed)
    if emptiness is not None:
        return CheckResult(problem_id, "invalid", None, None, emptiness.reason)
    closest = min((c.violation for c in candidates), default=float("inf"))
    return CheckResult(
        problem_id,
        "inconclusive",
        None,
        None,
        "no feasible point found: no point of the search satisfies the constraints, and none near its "
        f"closest points does so exactly (smallest relative violation {closest:.3g}); the feasible set is "
        "not proven empty (no linear, sign or elimination argument applies)",
    )


def _least_violation(model: _Model, starts: list[_Candidate], deadline: float) -> list[_Candidate]:
    """Points of least absolute constraint violation, from the given points and the structured
    starts. A set such as (x - 1)^2 + (y - 2)^2 <= 0 is a single point where every relative
    residual is 1 except exactly there, so the relative measure the search uses gives no slope to
    follow; the absolute violation (a square distance here) leads to it, and the exact snap then
    decides. Bounded work: one L-BFGS-B run of at most 300 iterations per start."""

    def violation(t):
        xs = model.x_scalar(t)
        total = 0.0
        for func, _ in model.equalities:
            total += abs(_scalar(func, xs))
        for func, _ in model.inequalities:
            total += max(0.0, -_scalar(func, xs))
        return total if math.isfinite(total) else 1e300

    bounds = [(c.t_lo, c.t_hi) for c in model.coords]
    out = []
    for start in _structured_starts(model) + [np.array(c.t) for c in starts]:
        _check_cap(deadline)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = minimize(
                violation,
                np.clip(start, [b[0] for b in bounds], [b[1] for b in bounds]),
                method="L-BFGS-B",
                bounds=bounds,
                options={"maxiter": 300},
            )
        f, v = model.values(model.x(result.x))
        if np.isfinite(f):
            out.append(_Candidate(tuple(float(t) for t in result.x), float(f), float(v)))
    return out


def _exactly_feasible(model: _Model, candidates: list[_Candidate], deadline: float) -> _Candidate | None:
    """A feasible point proven exactly (rational / algebraic coordinates) near one of the search's
    closest points, as a candidate: a set whose only points sit where a relative residual test
    cannot pass (the origin, a single point like x^2 + y^2 = 0) is not empty."""

    closest = sorted(candidates, key=lambda c: c.violation)[:4]
    for candidate in closest + _least_violation(model, closest, deadline):
        _check_cap(deadline)
        point = exact_feasible_point(model.parsed, _witness(model, candidate))
        if point is None:
            continue
        x = point_floats(point)
        t = np.array([c.t(x[name]) for c, name in zip(model.coords, model.names)])
        value, _ = model.values([np.float64(x[name]) for name in model.names])
        if np.isfinite(value):
            return _Candidate(tuple(float(v) for v in t), float(value), 0.0)
    return None


FLOAT_NOISE = 1e-14  # a best value this far below the claim (relative) is more than rounding
NEAR_CLAIM_CANDIDATES = 2  # float points within tolerance of the claim that are snapped and re-evaluated


def _refute_near_claim(
    problem: Problem, model: _Model, matching: list[_Candidate], deadline: float, levels: bool
) -> CheckResult | None:
    """A claim the search matched only to tolerance: the nearest points snapped to rationals and
    low-height algebraic numbers (refutation.exact_points) and evaluated exactly; refuted when one
    beats the claim, whatever the gap's size (the objective equals -1/10^10 at x = 1/2 exactly,
    below a claimed 0), or when the exact value there lies past a claim no point reaches (10^20
    claimed 10^20 - 1) and a level proof closes. None when neither settles it."""
    refuted = _refute_by_witness(problem, model, matching[:NEAR_CLAIM_CANDIDATES], deadline)
    if refuted.status == "refuted":
        return refuted
    claim = model.parsed.answer
    for candidate in matching[:NEAR_CLAIM_CANDIDATES] if levels else []:
        _check_cap(deadline)
        point = exact_feasible_point(model.parsed, _witness(model, candidate))
        value = None if point is None else _exact_objective(model.parsed, point)
        if value is None or not (model.sign * (value - claim)).is_positive:
            continue
        # the exact value lies past the claim: a proof that nothing reaches the claim refutes it
        certificate, detail = level_certificate(
            model.parsed, problem.answer, Fraction(value.p, value.q), _witness(model, candidate)
        )
        if certificate is not None:
            return CheckResult(
                problem.id,
                "refuted",
                float(value),
                _witness(model, candidate),
                f"the claimed {problem.answer} is never reached: an exactly feasible point gives {value}, and {detail}",
                certificate,
            )
    return None


def _exact_objective(parsed, point: dict) -> sympy.Rational | None:
    """The objective at an exact point of rational coordinates, when that value is rational."""
    if not all(isinstance(v, str) for v in point.values()):
        return None
    try:
        values = {s: sympy.Rational(Fraction(point[str(s)])) for s in parsed.symbols}
    except (ValueError, ZeroDivisionError):
        return None
    value = parsed.objective.xreplace(values)
    return value if value.is_Rational else None


MAX_REFUTATION_CANDIDATES = 5  # float points beating the claim that are tried as exact witnesses


def _refute_by_witness(problem: Problem, model: _Model, better: list[_Candidate], deadline: float) -> CheckResult:
    """refuted with an exact witness certificate, or inconclusive when no float point beating the
    claim can be made exactly feasible with a rigorously better objective."""

    word = "below" if problem.sense == "min" else "above"
    answer = float(model.parsed.answer.evalf(30))
    why = ""
    for candidate in better[:MAX_REFUTATION_CANDIDATES]:
        _check_cap(deadline)
        certificate, detail = witness_certificate(model.parsed, problem.answer, _witness(model, candidate))
        if certificate is None:
            why = why or detail
            continue
        witness = point_floats(certificate["point"])
        value, _ = model.values([np.float64(witness[name]) for name in model.names])
        best_value = model.reported(float(value))
        reason = f"an exactly feasible point gives {best_value:.12g}, {word} the claimed {answer:.12g} ({detail})"
        if _at_limit(model, candidate):
            diverging, path, points = _diverges(model, candidate)
            shown = ", ".join(f"{model.reported(v):.6g}" for v in path)
            # the exact path is checked on its own, so a fit is tried even when the numeric path
            # stopped early (a local search that left the feasible set at a larger limit)
            unbounded, detail = unbounded_certificate(model.parsed, problem.answer, points)
            if unbounded is not None:
                return CheckResult(
                    problem.id,
                    "refuted",
                    best_value,
                    witness,
                    f"unbounded {word}: {detail} (numerically the objective goes {shown}, ...)",
                    unbounded,
                )
            if diverging:
                reason = (
                    f"unbounded {word} (numerically: along feasible points with coordinates running to 0 or "
                    f"infinity the objective goes {shown}, ...); certified by {reason}"
                )
        # rays from this point and from up to two moderate ones (a far point's neighbours need
        # more than a 10x move per push to follow a coordinate brought back to 10)
        moderate = [c for c in better if c is not candidate and max(map(abs, _witness(model, c).values())) <= 1e3]
        rays = (ray for start in [candidate, *moderate[:2]] for ray in _rays(model, start, 60, deadline))
        for path, points in rays:
            unbounded, detail = unbounded_certificate(model.parsed, problem.answer, points)
            if unbounded is not None:
                shown = ", ".join(f"{model.reported(v):.6g}" for v in path)
                return CheckResult(
                    problem.id,
                    "refuted",
                    best_value,
                    witness,
                    f"unbounded {word}: {detail} (numerically, pushing one coordinate out, the objective goes {shown}, ...)",
                    unbounded,
                )
        return CheckResult(problem.id, "refuted", best_value, witness, reason, certificate)
    best = better[0]
    return CheckResult(
        problem.id,
        "inconclusive",
        model.reported(best.value),
        _witness(model, best),
        f"a point feasible to float tolerance gives {model.reported(best.value):.12g}, {word} the claimed "
        f"{answer:.12g}, but no exactly feasible point near it beats the claim ({why})",
    )


def _refute_unreachable(problem: Problem, model: _Model, best: _Candidate) -> CheckResult:
    """The claim lies beyond every value the search found: refuted only with a proof that no
    feasible point reaches it (scaling, or a bound or sos proof of a level past it), inconclusive otherwise."""

    answer = float(model.parsed.answer.evalf(30))
    best_value = model.reported(best.value)
    # with a large constant taken out, the best value is exact from its float part and the constant
    level_from = (
        best_value if model.shift == 0 else Fraction(model.sign * best.value) + Fraction(model.shift.p, model.shift.q)
    )
    certificate, detail = level_certificate(model.parsed, problem.answer, level_from, _witness(model, best))
    if certificate is None:
        return CheckResult(
            problem.id,
            "inconclusive",
            best_value,
            _witness(model, best),
            f"the claimed {answer:.12g} is never reached nor approached by the search (best feasible "
            f"value {best_value:.12g}), but no proof that no feasible point reaches it was found ({detail})",
        )
    return CheckResult(
        problem.id,
        "refuted",
        best_value,
        _witness(model, best),
        f"the claimed {answer:.12g} is never reached nor approached: the best feasible value found is "
        f"{best_value:.12g}, and {detail}",
        certificate,
    )


def _statement_mismatch(problem: Problem, model: _Model, feasible: list[_Candidate]) -> str | None:
    if problem.statement is None:
        return None
    from extrembench.verify.statement_check import statement_mismatch  # the LaTeX grammar is only needed here

    points = [_witness(model, c) for c in _spread_feasible_points(model, seed=1, count=6)] + [
        _witness(model, feasible[0])
    ]
    return statement_mismatch(problem.statement, model.parsed, points)


def _spread_feasible_points(model: _Model, seed: int, count: int) -> list[_Candidate]:
    """Feasible points spread over the set: random samples projected onto the constraints
    (nearest feasible point in search coordinates), so formulas are compared away from the optimum."""
    rng = np.random.default_rng(seed)
    samples = _sample(model, rng, count)
    if not model.equalities and not model.inequalities:
        values, _ = model.values(model.x(samples))
        return [_Candidate(tuple(samples[:, i]), float(values[i]), 0.0) for i in range(count) if np.isfinite(values[i])]
    points = []
    for i in range(count):
        start = samples[:, i]
        bounds = [(c.t_lo, c.t_hi) for c in model.coords]
        constraints = _scalar_constraints(model)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = minimize(
                lambda t, start=start: float(np.sum((t - start) ** 2)),
                start,
                method="SLSQP",
                bounds=bounds,
                constraints=constraints,
                options={"maxiter": 200},
            )
        value, violation = model.values(model.x(result.x))
        if np.isfinite(value) and violation <= FEAS_TOL:
            points.append(_Candidate(tuple(float(v) for v in result.x), float(value), float(violation)))
    return points
