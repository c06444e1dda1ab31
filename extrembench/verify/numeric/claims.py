"""Where a claimed extremal value sits, by the validator's own computations (no second validator).

report/misses/classify.py asks two things of a problem, once per problem however many samples miss it:

- `landmarks(spec, seed, effort)`: the problem's notable feasible values. The validator's multistart
  search (`search.multistart`) is run in both senses; each local optimum it ends in is re-checked at
  a 50-digit point (snapped to small rationals when it snaps, `recheck.mp_point`, else projected)
  that `recheck.recheck_point` finds inside the domain and feasible. Each landmark says whether that
  point is on the boundary (a variable at a closed end of its domain, or an inequality constraint
  tight there) and carries the point. The best value of the search in the opposite sense is that
  sense's extremum, unless the search diverges that way (`search.diverges`): then there is none.
- `value_at(spec, point)`: the 50-digit objective at an exact point (the all-equal point that
  report/misses/classify.py gets from the symmetric baseline), after checking that the point is feasible.

Work is counted, never timed: the search's starts and iterations (`Effort`), a fixed number of
re-checked optima per sense. `search.TimeCap` (the wall-clock safety net) propagates to the
caller, which records the sample as undecided.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import sympy

from extrembench.problems.problem import ExtremalSpec

# The validator's model, search and 50-digit re-check are reused as they are: a second copy here
# could drift from the verdicts the gold answers were confirmed with.
from extrembench.verify.numeric.recheck import (
    EXACT_TOL,
    NUMERIC_TOL,
    constraint_slack,
    mp_point,
    recheck_point,
    scalings,
)
from extrembench.verify.numeric.search import (
    FEAS_TOL,
    HP_DIGITS,
    Effort,
    at_limit,
    build_model,
    diverges,
    hp_value,
    multistart,
)

MAX_OPTIMA_PER_SENSE = 8  # distinct local optima re-checked per sense: bounds the 50-digit work
SAME_VALUE = 1e-9  # two float optima within this relative distance are one landmark
ABSOLUTE_FEAS = sympy.Float("1e-20", HP_DIGITS)  # generation/symmetric.py's FEASIBILITY_TOL


@dataclass(frozen=True)
class Landmark:
    source: str  # "min" | "max": the sense whose search ended there
    kind: str  # boundary | other_feasible
    value: sympy.Float  # the objective at `point`, 50 digits
    exact: bool  # the point is in closed form (small rationals, roots); else a 50-digit projection
    point: dict[str, str]  # variable -> coordinate as text (closed form, or 20 significant digits)
    detail: str  # what puts the point on the boundary ("" for an interior point)


@dataclass(frozen=True)
class Landmarks:
    points: tuple[Landmark, ...]
    opposite: Landmark | None  # the opposite sense's extremum (best of its search), None: none found
    opposite_note: str  # why there is none (diverges, no feasible point), or how it was found
    work: int  # local searches + 50-digit re-checks done


def opposite_sense(sense: str) -> str:
    return "max" if sense == "min" else "min"


def spec_of(spec: dict, sense: str | None = None) -> ExtremalSpec:
    """The validator's spec type from a problems table's spec_json (which carries no answer)."""
    return ExtremalSpec(
        sense=sense or spec["sense"],
        variables=dict(spec["variables"]),
        constraints=tuple(spec.get("constraints") or ()),
        objective=spec["objective"],
        answer="0",  # never read: only the feasible set and the objective are used here
        statement="",
    )


def point_text(value: sympy.Expr) -> str:
    """A coordinate as text that is the same on every machine: closed forms as sympy prints them,
    50-digit floats to 20 significant digits."""
    if isinstance(value, sympy.Float):
        return sympy.sstr(sympy.Float(value, 20))
    return sympy.sstr(value)


def _boundary_detail(model, point: dict) -> str:
    """Why a feasible point is on the boundary: a variable at a closed finite end of its domain,
    or an inequality constraint tight (to the re-check's tolerance)."""
    parsed = model.parsed
    found = []
    for s in model.symbols:
        domain, value = parsed.domains[s], point[s]
        for end in (domain.lo, domain.hi):
            if end is not None and abs(sympy.N(value - end, HP_DIGITS)) <= NUMERIC_TOL * (1 + abs(sympy.N(end))):
                found.append(f"{s} = {end}")
    for lhs, op, rhs in parsed.constraints:
        if op == "=":
            continue
        measured = constraint_slack(lhs, op, rhs, point)
        if measured is not None and abs(measured[0]) <= NUMERIC_TOL * measured[1]:
            found.append(f"{lhs} {op} {rhs} is tight")
    return "; ".join(found)


def _settle(model, x: list, float_value: float) -> tuple[dict, sympy.Float, bool] | None:
    """A 50-digit feasible point for a float optimum whose objective equals the optimum's value
    (a snap that moved the value is refused): exact when every coordinate snaps, else projected."""
    for mode, tol in (("exact", EXACT_TOL), ("mixed", NUMERIC_TOL), ("numeric", NUMERIC_TOL)):
        for scaled in scalings(model, x):
            point = mp_point(model, scaled, mode)
            if point is None:
                continue
            value = hp_value(model.parsed.objective, point)
            if value is None or abs(float(value) - float_value) > SAME_VALUE * (1 + abs(float_value)):
                continue
            verdict, _ = recheck_point(model, point, value, tol)
            if verdict == "ok":
                return point, sympy.Float(value, HP_DIGITS), mode == "exact"
    return None


def _optima(spec: dict, sense: str, seed: int, effort: Effort) -> tuple[list[Landmark], Landmark | None, str, int]:
    """Re-checked local optima of one sense, best first; the first is that sense's extremum as far
    as the search knows, None when the search diverges (no extremum) or finds no feasible point."""
    model, _ = build_model(spec_of(spec, sense))
    candidates = [c for c in multistart(model, seed, effort, _deadline(effort)) if c.violation <= FEAS_TOL]
    work = effort.starts + 3  # the random starts and the three structured ones
    if not candidates:
        return [], None, f"the {sense} search found no feasible point", work
    diverging = at_limit(model, candidates[0]) and diverges(model, candidates[0])[0]
    kept, seen = [], []
    for candidate in candidates:
        if len(kept) >= MAX_OPTIMA_PER_SENSE:
            break
        if any(abs(candidate.value - v) <= SAME_VALUE * (1 + abs(v)) for v in seen):
            continue
        seen.append(candidate.value)
        x = model.x(_array(candidate.t))
        work += 1
        settled = _settle(model, x, model.sign * candidate.value)
        if settled is None:
            continue
        point, value, exact = settled
        detail = _boundary_detail(model, point)
        kept.append(
            Landmark(
                source=sense,
                kind="boundary" if detail else "other_feasible",
                value=value,
                exact=exact,
                point={str(s): point_text(point[s]) for s in model.symbols},
                detail=detail,
            )
        )
    if diverging:
        return kept, None, f"the objective is unbounded in the {sense} direction (the search diverges)", work
    best_value = model.sign * candidates[0].value
    best = next((k for k in kept if abs(float(k.value) - best_value) <= SAME_VALUE * (1 + abs(best_value))), None)
    if best is None:
        return kept, None, f"the best {sense} point found did not pass the 50-digit re-check", work
    return kept, best, f"best of the validator's {sense} search (numeric, not certified)", work


def _array(t) -> np.ndarray:
    return np.array(t)


def _deadline(effort: Effort) -> float:
    # only the safety net reads the clock; every verdict is bounded by counts
    return time.monotonic() + effort.time_cap_s


def landmarks(spec: dict, *, seed: int, effort: Effort) -> Landmarks:
    """The notable feasible values of a problem (both senses), and the opposite sense's extremum."""
    asked = spec["sense"]
    own, _, _, work_own = _optima(spec, asked, seed, effort)
    other, opposite, note, work_other = _optima(spec, opposite_sense(asked), seed, effort)
    return Landmarks(tuple(own + other), opposite, note, work_own + work_other)


def value_at(spec: dict, point: dict[str, sympy.Expr]) -> sympy.Float | None:
    """The 50-digit objective at a point given per variable name, or None when the point is
    outside the domain, violates a constraint or leaves the objective undefined."""
    model, _ = build_model(spec_of(spec))
    by_symbol = {s: point[str(s)] for s in model.symbols}  # our own sympy values, never raw text
    value = hp_value(model.parsed.objective, by_symbol)
    if value is None:
        return None
    # NUMERIC_TOL: the symmetric baseline's roots of non-polynomial equations are 30-digit floats
    verdict, _ = recheck_point(model, by_symbol, value, NUMERIC_TOL)
    if verdict == "ok" or _holds_absolutely(model, by_symbol):
        return sympy.Float(value, HP_DIGITS)
    return None


def _holds_absolutely(model, point: dict) -> bool:
    """In the domain, and every constraint within ABSOLUTE_FEAS at 50 digits: where all the terms
    of a constraint vanish together (5 cos t = 0 at a root t) the relative test of the re-check
    cannot pass at any float root; the all-equal points are held to the symmetric baseline's own
    absolute tolerance instead."""
    if not all(model.parsed.domains[s].contains(point[s]) for s in model.symbols):
        return False
    for lhs, op, rhs in model.parsed.constraints:
        measured = constraint_slack(lhs, op, rhs, point)
        if measured is None:
            return False
        slack = measured[0]
        if (op == "=" and abs(slack) > ABSOLUTE_FEAS) or (op != "=" and slack < -ABSOLUTE_FEAS):
            return False
    return True
