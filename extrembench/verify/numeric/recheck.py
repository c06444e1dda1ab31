"""The 50-digit re-check of a near-optimal float point: snapped to closed forms where it snaps
(p/q, sqrt(p/q), p/q*pi), the rest projected onto the equality constraints, then domain,
constraints and objective re-evaluated with relative tolerances; plus whether the value is only
approached (a coordinate escaping to infinity or to an open end). Shared by the validator's verdict
(extrembench.verify.validate) and the claims audit (extrembench.verify.numeric.claims).
"""

from __future__ import annotations

import math
from dataclasses import replace

import mpmath
import numpy as np
import sympy

from extrembench.problems import snapping
from extrembench.problems.problem import (
    Domain,
)
from extrembench.verify.numeric.search import FEAS_TOL, HP_DIGITS, LOG_LIMIT, Candidate, Model, hp_value

EXACT_TOL = 1e-30  # 50-digit re-check of a rational witness
NUMERIC_TOL = 1e-11  # 50-digit re-check of a witness that could not be made exact
SNAP_EVIDENCE = 2  # past this a float snaps to some p/q or sqrt(p/q) (q <= 24) within 1e-4 whatever it is (ineq-0066 at 2e5, 0530 at 32)
BOUNDARY_RATIO = 1e-6  # a coordinate this close to an open end (relative to the point's scale) is "at" it


# ---------------------------------------------------------------- high-precision re-check
def mp_point(model: Model, x: list[float], mode: str) -> dict | None:
    """Witness in 50-digit numbers. mode 'exact': every coordinate snapped to a closed form (None
    if one does not snap); 'mixed': the coordinates that snap are snapped; 'numeric': none. The
    coordinates left as floats are projected back onto the equality constraints by Newton steps."""
    point, free = {}, []
    for s, value in zip(model.symbols, x):
        closed_form = snapping.closed_form(float(value)) if mode != "numeric" else None
        if closed_form is None and mode == "exact":
            return None
        if closed_form is None:
            free.append(s)
            point[s] = sympy.Float(float(value), HP_DIGITS)
        else:
            point[s] = closed_form
    return _newton_project(model, point, free)


def _newton_project(model: Model, point: dict, free: list) -> dict:
    """Move the `free` coordinates of a 50-digit point onto the equality constraints (minimum-norm
    Newton steps); the other coordinates stay as they are."""
    parsed = model.parsed
    residuals = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "="]
    free = [s for s in free if not _is_at_closed_end(parsed.domains[s], point[s])]
    if not free or not residuals or len(free) < len(residuals):
        return point
    start, point = point, dict(point)
    # real stand-ins: the problem's symbols carry no sign, so d|a|/da came out as Derivative(re(a)),
    # which no printer turns into code (ineq-0451 crashed here); for a real symbol it is sign(a)
    real = [sympy.Dummy(str(s), real=True) for s in free]
    g = sympy.Matrix(residuals).subs({s: v for s, v in point.items() if s not in free}).xreplace(dict(zip(free, real)))
    jacobian = g.jacobian(real)
    if jacobian.has(sympy.Derivative, sympy.Subs):
        return start  # a derivative left unevaluated (a Min, a piecewise): no Newton step to take
    try:
        g_f = sympy.lambdify(real, g, "mpmath")
        j_f = sympy.lambdify(real, jacobian, "mpmath")
    except NotImplementedError:  # a function the mpmath printer has no code for: no projection
        return start
    with mpmath.workdps(HP_DIGITS + 10):
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


def _push_improves(model: Model, point: dict) -> str | None:
    """Whether moving a far-out coordinate 100x further out (or 100x closer to an open end), with
    the equality constraints restored, still improves the objective at 50 digits: then the value is
    only approached ("x -> infinity"), however close the float point came (1 + 1/x at x = 1e13
    equals 1 to 13 digits)."""
    parsed = model.parsed
    here = hp_value(parsed.objective, point)
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
                and (there := hp_value(parsed.objective, moved)) is not None
                and model.sign * (there - here) < -(sympy.Float(10) ** (10 - HP_DIGITS)) * (abs(here) + abs(there))
            ):
                return description
    return None


def float_artifact(model: Model, x, claim: sympy.Expr) -> bool:
    """Whether a float point that seems to beat the claim stops beating it once every coordinate is
    projected onto the equality constraints at 50 digits and the objective is evaluated there: its
    float value was rounding (x^3 + p*x + q = 0 at x ~ 1e6 cancels 18 digits, and the objective
    with it), not a counterexample. False when the projected point is not feasible at 50 digits or
    the value is undefined there: then nothing is known and the point stays a candidate."""
    point = mp_point(model, [float(v) for v in x], "numeric")
    if point is None or not _recheck_feasible(model, point):
        return False
    value = hp_value(model.parsed.objective, point)
    if value is None:
        return False
    claim_value = sympy.N(claim, HP_DIGITS)
    return bool(model.sign * (value - claim_value) >= -EXACT_TOL * (1 + abs(claim_value)))


def _recheck_feasible(model: Model, point: dict) -> bool:
    for s in model.symbols:
        if not model.parsed.domains[s].contains(point[s]):
            return False
    for lhs, op, rhs in model.parsed.constraints:
        measured = constraint_slack(lhs, op, rhs, point)
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
    """What the objective's tolerance is relative to: the claim itself (issue 35: a claim 1e-4
    relative above a maximum of 1/27000000 was within an absolute 1e-11 of it), or its distance from
    an additive constant c of the objective when that is smaller (a^2 + b^2 + 10^20: only the
    varying part's size counts, so a claim of 10^20 + 1 is not within 1e-11 * 10^20 of the minimum).
    A claim of exactly 0 (or c) has no size to be relative to: its tolerance stays absolute."""
    constant, _ = objective.as_coeff_Add()
    size = abs(sympy.N(answer, 20))
    if constant != 0 and constant.is_Rational:
        size = min(size, abs(sympy.N(answer - constant, 20)))
    return size if size > 0 else sympy.Integer(1)


def constraint_slack(lhs: sympy.Expr, op: str, rhs: sympy.Expr, point: dict) -> tuple[sympy.Expr, sympy.Expr] | None:
    """(slack, scale) of a constraint at a 50-digit point: slack >= 0 when it holds (= 0 for '='),
    scale the largest term, so tolerances are relative (abc = 10^-12 is as strict as abc = 1)."""
    left, right = hp_value(lhs, point), hp_value(rhs, point)
    if left is None or right is None:
        return None
    terms = [hp_value(term, point) for term in sympy.Add.make_args(lhs) + sympy.Add.make_args(rhs)]
    scale = max([abs(t) for t in terms if t is not None] + [sympy.Float(1e-300)])
    return ((left - right) if op in ("=", ">=", ">") else (right - left)), scale


def recheck_point(
    model: Model, point: dict, answer: sympy.Expr, tol: float, objective_tol: float | None = None
) -> tuple[str, str]:
    """('ok' | 'boundary' | 'fail', detail) for a 50-digit witness: in the domain, constraints hold,
    objective equals the answer (to `objective_tol`, `tol` when not given). 'boundary' = equal to
    the answer but only on an open end or where a strict constraint is tight."""
    parsed = model.parsed
    on_boundary = []
    for s in model.symbols:
        domain, value = parsed.domains[s], point[s]
        if not _in_closure(domain, value):
            return "fail", f"{s} = {sympy.N(value, 12)} is outside its domain"
        if not domain.contains(value) or _near_open_end(domain, value, point):
            on_boundary.append(f"{s} -> {_end_text(domain, value)}")
    for lhs, op, rhs in parsed.constraints:
        measured = constraint_slack(lhs, op, rhs, point)
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
    value = hp_value(parsed.objective, point, digits)
    if value is None:
        return ("boundary", "; ".join(on_boundary)) if on_boundary else ("fail", "objective undefined at the witness")
    gap = abs(value - sympy.N(answer, digits))
    if gap > (tol if objective_tol is None else objective_tol) * _answer_scale(parsed.objective, answer):
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


def attainment(model: Model, candidates: list[Candidate], answer: sympy.Expr) -> tuple[str, Candidate, str]:
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
        if verdict == "contradicted" and (escaping := _push_improves(model, point)):
            # the exact point is on the way to a limit (1 + 1/x at x ~ 1e13): approached, not contradicted
            limit_seen = limit_seen or (candidate, f"the value is only approached, as {escaping}")
            continue
        if verdict == "contradicted":
            # an exact point at hand settles the value there: no other float point may confirm
            return "inconclusive", candidate, detail
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
    if limit_seen and (spurious := _scale_free(model, limit_seen[0])) is not None:
        # a scale-invariant problem's point drifted to a tiny or huge scale: rescaled it is an
        # ordinary point, and its re-check decides (ineq-0242 with its answer moved 1e-9 was
        # not_attained "as t1, ..., t5 -> 0", where the value is the same at every scale)
        verdict, point, detail = _best_recheck(model, spurious, answer)
        if verdict != "ok":
            return (
                "inconclusive",
                limit_seen[0],
                f"best value matches the answer but no witness passed the 50-digit re-check ({detail})",
            )
        limit_seen = None
    if limit_seen:
        return "not_attained", limit_seen[0], limit_seen[1]
    return (
        "inconclusive",
        candidates[0],
        "best value matches the answer but no witness passed the 50-digit re-check"
        + (f" ({notes[0]})" if notes else ""),
    )


def _best_recheck(model: Model, x: list, answer: sympy.Expr) -> tuple[str, dict | None, str]:
    """Re-check a near-optimal point: first snapped to small rationals (exact), then as a 50-digit
    projection of the float. An exact snap landing on an open end with the answer's value settles
    it as a limit point: the float near that end must not then pass on a looser tolerance. Likewise
    an exact snap that is feasible, with a value within the numeric tolerance of the claim yet not
    equal to it ('contradicted'): the float is a hair from that exact point, whose value is not the
    claim (ineq-0451 with its answer moved a relative 1e-9 was confirmed at the exact optimum)."""
    failure = ""
    for mode, tol in (("exact", EXACT_TOL), ("mixed", NUMERIC_TOL), ("numeric", NUMERIC_TOL)):
        for scaled in scalings(model, x):
            point = mp_point(model, scaled, mode)
            if point is None:
                continue
            verdict, detail = recheck_point(model, point, answer, tol)
            if verdict == "ok":
                return "ok", point, mode
            if verdict == "boundary":
                return "boundary", point, detail
            if (
                mode == "exact"
                and max(abs(float(v)) for v in scaled) <= SNAP_EVIDENCE
                and recheck_point(model, point, answer, tol, objective_tol=NUMERIC_TOL)[0] == "ok"
            ):
                value = hp_value(model.parsed.objective, point, HP_DIGITS + _magnitude_digits(answer))
                shown = ", ".join(f"{s} = {point[s]}" for s in model.symbols)
                return (
                    "contradicted",
                    point,
                    f"the exactly feasible point ({shown}) gives {sympy.N(value, 20)}, not the claimed "
                    f"{sympy.N(answer, 20)} (within the numeric tolerance, but an exact value is not a float's)",
                )
            failure = failure or detail
    return "fail", None, failure


def _escaping(model: Model, candidate: Candidate) -> str | None:
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


def _scale_free(model: Model, candidate: Candidate) -> list[float] | None:
    """The candidate's point rescaled to a largest coordinate of 1 when the problem is scale
    invariant there (scalings) and the rescaled point no longer runs to an end or to infinity."""
    x = model.x(np.array(candidate.t))
    rescaled = scalings(model, x)[1:]
    if not rescaled:
        return None
    t = tuple(c.t(v) for c, v in zip(model.coords, rescaled[0]))
    return None if _escaping(model, replace(candidate, t=t)) else rescaled[0]


def scalings(model: Model, x: list) -> list[list[float]]:
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
