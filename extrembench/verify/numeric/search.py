"""The validator's numeric side: a problem as a float model over search coordinates, and the seeded
global search for its extremum (multistart local searches from samples and structured starts,
every sign orthant, rays that push a coordinate out to test divergence), bounded by work counts with
a wall-clock cap only as a safety net (TimeCap). Its candidates are floats; whether one of them is a
witness of the claimed answer is decided by extrembench.verify.numeric.recheck at 50 digits, and the verdict
by extrembench.verify.validate.

Variables map to coordinates that reach every scale: positive -> exp, nonnegative -> sinh (1e-20 to
1e20 and exact zeros), boxes -> identity.
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
from typing import Any

import numpy as np
import sympy
from scipy.optimize import minimize

from extrembench.core.config import Validation
from extrembench.problems.problem import (
    Domain,
    ExtremalSpec,
    Problem,
    min_form_sign,
    parse_problem,
)
from extrembench.verify.blas import one_blas_thread
from extrembench.verify.numeric import components
from extrembench.verify.numeric.components import Orthants

log = logging.getLogger(__name__)

LOG_LIMIT = 46.0  # exp(46) ~ 1e20: the largest/smallest scale the search reaches
FEAS_TOL = 1e-8  # constraint residual, relative to the size of its sides
HP_DIGITS = 50
SHIFT_FROM = 10**6  # an additive constant this large is taken out of the float search (exact checks keep it)


@dataclass(frozen=True)
class SearchResult:
    best_value: float | None
    witness: dict[str, float] | None
    unbounded: bool


# ---------------------------------------------------------------- numeric model
@dataclass(frozen=True)
class Coordinate:
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


def coordinate_of(domain: Domain) -> Coordinate:
    lo = None if domain.lo is None else float(domain.lo)
    hi = None if domain.hi is None else float(domain.hi)
    if lo is not None and hi is not None:
        return Coordinate("box", 0.0, 1.0, lo, hi)
    if lo is None and hi is None:
        return Coordinate("sinh", 0.0, 1.0, -LOG_LIMIT, LOG_LIMIT)
    end, sign, is_open = (lo, 1.0, domain.lo_open) if lo is not None else (hi, -1.0, domain.hi_open)
    if is_open:
        return Coordinate("exp", end, sign, -LOG_LIMIT, LOG_LIMIT)
    return Coordinate("sinh", end, sign, 0.0, LOG_LIMIT)


class Model:
    """Vectorised numeric form of a problem in the search coordinates t."""

    def __init__(self, parsed, sense: str):
        self.parsed = parsed
        self.symbols = parsed.symbols
        self.names = [str(s) for s in self.symbols]
        self.sign = float(min_form_sign(sense))
        self.coords = [coordinate_of(parsed.domains[s]) for s in self.symbols]
        # a large additive constant is searched without: a^2 + b^2 + 10^20 is flat in floats
        constant, _ = parsed.objective.as_coeff_Add()
        self.shift = constant if constant.is_Rational and abs(constant) >= SHIFT_FROM else sympy.Integer(0)
        # every float function is compiled over symbols named by position (p00, p01, ...): sympy
        # orders a sum's terms by its symbols' names, and the floats round in that order, so with
        # the variables' own names a renamed file took another search path (ineq-0504 renamed
        # left a scale-invariant optimum at x ~ 40, where no exact point was found: issue 35)
        place = {s: sympy.Symbol(f"p{i:02d}") for i, s in enumerate(self.symbols)}
        positional = list(place.values())

        def compiled(expr: sympy.Expr, module: str):
            # lambdify prints our own parsed tree (fixed vocabulary) to code, never the raw text
            return sympy.lambdify(positional, expr.xreplace(place), module)

        objective = parsed.objective - self.shift
        self.objective = compiled(objective, "numpy")
        self.equalities, self.inequalities = [], []
        self.scalar_equalities, self.scalar_inequalities = [], []
        for lhs, op, rhs in parsed.constraints:
            diff = lhs - rhs if op in ("=", ">=", ">") else rhs - lhs
            # residuals are relative to the size of the terms, so abc = 10^-12 is as strict as abc = 1
            scale = sum(
                (sympy.Abs(term) for term in sympy.Add.make_args(lhs) + sympy.Add.make_args(rhs)), sympy.Float(1e-300)
            )
            pair = (compiled(diff, "numpy"), compiled(scale, "numpy"))
            relative = compiled(diff / scale, "math")
            if op == "=":
                self.equalities.append(pair)
                self.scalar_equalities.append(relative)
            else:
                self.inequalities.append(pair)
                self.scalar_inequalities.append(relative)
        # plain-float versions for the local searches: ~10x faster than numpy on scalars
        self.scalar_objective = compiled(objective, "math")
        self.scalar_pieces = [compiled(piece, "math") for piece in epigraph_pieces(objective, self.sign)]

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


def build_model(item: Problem | ExtremalSpec) -> tuple[Model, Any]:
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
    return Model(parsed, item.sense), parsed


# ---------------------------------------------------------------- search
@dataclass(frozen=True)
class Candidate:
    t: tuple[float, ...]
    value: float  # signed objective (the search minimises)
    violation: float


def sample_points(model: Model, rng: np.random.Generator, count: int) -> np.ndarray:
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


def structured_starts(model: Model) -> list[np.ndarray]:
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


def _penalised(model: Model, values: np.ndarray, violation: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        merit = np.where(np.isfinite(values), values, np.inf) + 1e3 * (1 + np.abs(np.nan_to_num(values))) * violation
    return np.where(np.isfinite(merit), merit, np.inf)


# every SLSQP run, whoever calls it (multistart, the orthant and ray searches, the claims' divergence
# test): its rounding depends on the BLAS thread count
@one_blas_thread
def _local(model: Model, start: np.ndarray, limit: float | None = None, iterations: int = 150) -> Candidate | None:
    bounds = [
        (c.t_lo, c.t_hi) if c.kind == "box" or limit is None else (max(c.t_lo, -limit), min(c.t_hi, limit))
        for c in model.coords
    ]
    start = np.clip(start, [b[0] for b in bounds], [b[1] for b in bounds])
    constraints = scalar_constraints(model)

    def objective(t):
        # asinh: same minimisers, but an objective running to -1e40 no longer drowns the
        # constraint terms, so SLSQP follows a diverging path while staying feasible
        f = scalar_value(model.scalar_objective, model.x_scalar(t))
        return math.asinh(model.sign * f) if math.isfinite(f) else 1e3

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = minimize(
            objective,
            start,
            method="SLSQP",
            bounds=bounds,
            constraints=constraints,
            options={"maxiter": iterations, "ftol": 1e-15},
        )
    t = np.clip(result.x, [b[0] for b in bounds], [b[1] for b in bounds])
    f, violation = model.values(model.x(t))
    if not np.isfinite(f):
        return None
    if model.scalar_pieces and (polished := _epigraph_polish(model, t, bounds, constraints, iterations)) is not None:
        f2, violation2 = model.values(model.x(polished))
        # kept only where it is no worse on both counts: the polish refines, it never trades
        if np.isfinite(f2) and f2.real <= f.real and violation2 <= max(violation, FEAS_TOL):
            t, f, violation = polished, f2, violation2
    return Candidate(tuple(float(v) for v in t), float(f), float(violation))


def epigraph_pieces(objective: sympy.Expr, sign: float) -> list[sympy.Expr]:
    """The pieces p_i when the searched objective sign*f is max(p_i): a Max asked for its minimum
    or a Min asked for its maximum (-min(a, b) = max(-a, -b)); otherwise none."""
    if sign > 0 and isinstance(objective, sympy.Max):
        return list(objective.args)
    if sign < 0 and isinstance(objective, sympy.Min):
        return [-arg for arg in objective.args]
    return []


def _epigraph_polish(
    model: Model, start: np.ndarray, bounds: list, constraints: list[dict], iterations: int
) -> np.ndarray | None:
    """A max of pieces is not differentiable where pieces cross, which is where its minimum usually
    is: SLSQP's finite differences stall there with the point ~1e-4 off (ineq-0520: a flat direction
    left it 4e-4 from the exact progression, too far to snap). Minimising s subject to s >= p_i(x)
    has the same optimum and smooth data, so it converges to the point itself."""

    def piece_gap(piece):
        def gap(z):
            value = scalar_value(piece, model.x_scalar(z[:-1]))
            return z[-1] - value if math.isfinite(value) else -1e30

        return gap

    def on_x(constraint):
        return {"type": constraint["type"], "fun": lambda z, f=constraint["fun"]: f(z[:-1])}

    level = max(scalar_value(piece, model.x_scalar(start)) for piece in model.scalar_pieces)
    if not math.isfinite(level):
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = minimize(
            lambda z: z[-1],
            np.append(start, level),
            method="SLSQP",
            bounds=[*bounds, (None, None)],
            constraints=[{"type": "ineq", "fun": piece_gap(p)} for p in model.scalar_pieces]
            + [on_x(c) for c in constraints],
            options={"maxiter": iterations, "ftol": 1e-15},
        )
    return np.clip(result.x[:-1], [b[0] for b in bounds], [b[1] for b in bounds])


def scalar_value(func, xs: list[float]) -> float:
    """A lambdified ('math') function at a point; nan where it is undefined or complex."""
    try:
        value = func(*xs)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return math.nan
    if isinstance(value, complex):
        return value.real if abs(value.imag) <= 1e-12 * (1 + abs(value.real)) else math.nan
    return float(value)


def scalar_constraints(model: Model) -> list[dict]:
    """SLSQP constraints on the relative residuals; an undefined residual counts as badly violated."""

    def wrap(func):
        def residual(t):
            value = scalar_value(func, model.x_scalar(t))
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
def wall_cap(seconds: float):
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


def multistart(model: Model, seed: int, effort: Effort, deadline: float) -> list[Candidate]:
    """Local optima from multistart, best first; raises TimeCap past the deadline."""
    rng = np.random.default_rng(seed)
    starts = effort.starts
    samples = sample_points(model, rng, effort.samples_per_variable * len(model.coords) + 200)
    values, violation = model.values(model.x(samples))
    merit = _penalised(model, values, violation)
    # a third of the starts nearest to feasibility, a third best by penalised value, a third random
    picked: list[int] = []
    for order in (np.argsort(violation, kind="stable"), np.argsort(merit, kind="stable")):
        picked += [int(i) for i in order if int(i) not in picked][: starts // 3]
    rest = [i for i in rng.permutation(samples.shape[1]) if int(i) not in picked]
    chosen = [samples[:, i] for i in picked + rest[: starts - len(picked)]]
    found = []
    for start in structured_starts(model) + chosen:
        check_cap(deadline)
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


def _orthant_coordinate(domain: Domain, sign: int) -> Coordinate:
    """The coordinate of a sign-free variable restricted to one closed half of its domain."""
    if sign > 0:
        if domain.hi is None:
            return Coordinate("sinh", 0.0, 1.0, 0.0, LOG_LIMIT)
        hi = float(domain.hi)
        return (
            Coordinate("exp", hi, -1.0, -LOG_LIMIT, math.log(hi))
            if domain.hi_open
            else Coordinate("box", 0.0, 1.0, 0.0, hi)
        )
    if domain.lo is None:
        return Coordinate("sinh", 0.0, -1.0, 0.0, LOG_LIMIT)
    lo = float(domain.lo)
    return (
        Coordinate("exp", lo, 1.0, -LOG_LIMIT, math.log(-lo))
        if domain.lo_open
        else Coordinate("box", 0.0, 1.0, lo, 0.0)
    )


def _restricted(model: Model, orthants: Orthants, pattern: str) -> Model:
    signs = dict(zip(orthants.free, pattern))
    restricted = copy.copy(model)
    restricted.coords = [
        _orthant_coordinate(model.parsed.domains[s], 1 if signs[name] == "+" else -1) if name in signs else c
        for s, name, c in zip(model.symbols, model.names, model.coords)
    ]
    return restricted


def orthant_search(model: Model, seed: int, effort: Effort, deadline: float) -> tuple[list[Candidate], Coverage]:
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
        samples = sample_points(restricted, rng, ORTHANT_SAMPLES_PER_VARIABLE * len(model.coords) + 40)
        values, violation = restricted.values(restricted.x(samples))
        merit = _penalised(restricted, values, violation)
        unit = np.array([c.t(c.sign * 1.0 if c.kind == "sinh" else 1.0) for c in restricted.coords])
        bounds = [(c.t_lo, c.t_hi) for c in restricted.coords]
        unit = np.clip(unit, [b[0] for b in bounds], [b[1] for b in bounds])
        starts = [unit, samples[:, int(np.argmin(merit))]][:ORTHANT_STARTS]
        for start in starts:
            check_cap(deadline)
            # within |t| <= ORTHANT_LIMIT: a local search running off to 1e17 leaves the constraint
            # by more than the tolerance; stopped at the limit it stays feasible, and the rays
            # (push_rays) then carry it further out exactly
            f, v = restricted.values(restricted.x(start))
            here = Candidate(tuple(float(u) for u in start), float(f), float(v)) if np.isfinite(f) else None
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


def check_cap(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise TimeCap


def feasible_candidates(candidates: list[Candidate]) -> list[Candidate]:
    return [c for c in candidates if c.violation <= FEAS_TOL]


def diverges(model: Model, start: Candidate) -> tuple[bool, list[float], list[dict[str, float]]]:
    """Follow the optima of the search restricted to |t| <= L for growing L (a feasible path whose
    coordinates run to 0 or infinity); the objective diverges when its decrements do not die out.
    Also returns the path's points (an exact `unbounded` certificate is fitted to them)."""
    path, points = [], []
    for limit in (8.0, 16.0, 24.0, 32.0, 40.0):
        candidate = _local(model, np.array(start.t), limit)
        if candidate is None or candidate.violation > FEAS_TOL:
            return False, path, points
        path.append(candidate.value)
        points.append(witness_of(model, candidate))
    steps = [a - b for a, b in zip(path, path[1:])]
    growing = all(s > 0 for s in steps) and steps[-1] >= 0.5 * steps[0] and steps[-1] > 1e-9 * (1 + abs(path[-1]))
    return growing, path, points


RAY_FACTORS = (10.0, 100.0, 1e3, 1e4, 1e5, 1e6)  # one coordinate pushed out this far, the rest re-optimised
RAY_STEP = math.log(10.0) + 0.5  # how far (in search coordinates) the others may move per push


def _near(c: Coordinate, t: float, x: float) -> Coordinate:
    """The coordinate within RAY_STEP of t and on the side of 0 where x is (a ray stays in the
    orthant it starts in)."""
    lo, hi = max(c.t_lo, t - RAY_STEP), min(c.t_hi, t + RAY_STEP)
    if c.kind == "sinh" and c.offset == 0 and c.t_lo < 0 < c.t_hi and x != 0:
        lo, hi = (max(lo, 0.0), hi) if c.sign * x > 0 else (lo, min(hi, 0.0))
    return replace(c, t_lo=lo, t_hi=max(lo, hi))


def push_rays(model: Model, start: Candidate, iterations: int, deadline: float):
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
            check_cap(deadline)
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
            points.append(witness_of(model, candidate))
        if len(points) >= 2:
            yield values, points


def at_limit(model: Model, candidate: Candidate) -> bool:
    return any(c.kind != "box" and abs(t) >= LOG_LIMIT - 1 for c, t in zip(model.coords, candidate.t))


def witness_of(model: Model, candidate: Candidate) -> dict[str, float]:
    return {name: float(x) for name, x in zip(model.names, model.x(np.array(candidate.t)))}


def search_extremum(problem_or_spec: Problem | ExtremalSpec, *, seed: int, effort: Effort = Effort()) -> SearchResult:
    """Numeric global search alone (no claim involved): best feasible value found, its point, and
    whether the objective diverges in the asked direction. Raises TimeCap past effort.time_cap_s."""
    model, _ = build_model(problem_or_spec)
    feasible = feasible_candidates(multistart(model, seed, effort, time.monotonic() + effort.time_cap_s))
    feasible = _rescored(model, feasible[:RESCORED]) + feasible[RESCORED:]
    if not feasible:
        return SearchResult(None, None, False)
    best = feasible[0]
    unbounded = at_limit(model, best) and diverges(model, best)[0]
    return SearchResult(model.reported(best.value), witness_of(model, best), unbounded)


RESCORED = 8  # the best float candidates whose objective is re-evaluated at HP_DIGITS


def _rescored(model: Model, candidates: list[Candidate]) -> list[Candidate]:
    """Candidates with the objective re-evaluated at their own float coordinates in 50 digits, best
    first; those where it is undefined dropped. Far out (coordinates near 1e19) a difference of cube
    roots cancels in floats to 32 where its value is <= 0, and whether it did depended on the BLAS
    thread count (one machine's answer, not the problem's). The float value is kept where it agrees."""
    out = []
    for candidate in candidates:
        point = {s: sympy.Float(v, HP_DIGITS) for s, v in zip(model.symbols, model.x(np.array(candidate.t)))}
        exact = hp_value(model.parsed.objective - model.shift, point)
        if exact is None:
            continue
        value = model.sign * float(exact)
        if abs(value - candidate.value) > 1e-9 * (1 + abs(value)):
            candidate = replace(candidate, value=value)
        out.append(candidate)
    return sorted(out, key=lambda c: c.value)


def hp_value(expr: sympy.Expr, point: dict, digits: int = HP_DIGITS) -> sympy.Expr | None:
    """50-digit value of expr at point; None where it is undefined or not real."""
    value = sympy.N(expr.subs(point), digits)
    if not value.is_number or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return None
    real, imaginary = value.as_real_imag()
    if abs(imaginary) > 1e-40 * (1 + abs(real)):
        return None
    return real
