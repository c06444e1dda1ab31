"""Check a problem's answer by computation, and the `extrembench check` subcommand.

Pipeline per problem (statuses in docs/problem-format.md):
1. load + schema + safe parse; source.inequality derivation must agree (convert); a given
   statement must state the same formulas (LaTeX parsed back, compared at feasible points);
2. global numeric search (extrembench.verify.numeric.search): every variable is mapped to an unconstrained
   or boxed coordinate (positive -> exp, nonnegative -> sinh, so 1e-20..1e20 scales and exact zeros
   are both reachable), seeded multistart SLSQP from the best of a random sample, plus structured
   starts (all ones, corners) and every sign orthant;
3. verdict: a feasible point beating the claim -> refuted (unbounded when a path of feasible optima
   with growing coordinates keeps decreasing); the claim never approached -> refuted; otherwise a
   near-optimal point is snapped to small rationals and re-checked in 50-digit precision
   (extrembench.verify.numeric.recheck) -> confirmed, or found only at an open boundary / infinity ->
   not_attained, else inconclusive. This module holds the verdict and the refutations.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import sympy
from scipy.optimize import minimize

from extrembench.problems.derive import convert_problem
from extrembench.problems.expr import ExpressionError
from extrembench.problems.problem import (
    Problem,
    ProblemError,
    canonical_problem,
    declared_id,
    load_problem,
)
from extrembench.verify.blas import one_blas_thread
from extrembench.verify.checker.empty import verify_empty
from extrembench.verify.checker.refutation import point_floats
from extrembench.verify.numeric.recheck import attainment, float_artifact
from extrembench.verify.numeric.search import (
    FEAS_TOL,
    Candidate,
    Effort,
    Model,
    TimeCap,
    at_limit,
    build_model,
    check_cap,
    diverges,
    feasible_candidates,
    multistart,
    orthant_search,
    push_rays,
    sample_points,
    scalar_constraints,
    scalar_value,
    structured_starts,
    wall_cap,
    witness_of,
)
from extrembench.verify.provers.certify import certify as build_certificate
from extrembench.verify.provers.empty import prove_empty
from extrembench.verify.provers.refutation import (
    LEVEL_MAX_NODES,
    exact_feasible_point,
    level_certificate,
    unbounded_certificate,
    witness_certificate,
)
from extrembench.verify.provers.routes import POINT_ROUTES, ROUTES

log = logging.getLogger(__name__)

DEFAULT_IGNORED_KEYS = ("expected_status",)
REL_TOL = 1e-6  # claim vs best value: |difference| <= REL_TOL * (1 + |answer|)


@dataclass(frozen=True)
class CheckResult:
    id: str
    status: str
    best_value: float | None
    witness: dict[str, float] | None
    reason: str
    # a re-checkable proof of the status (docs/problem-format.md): confirmed -> extrembench.verify.checker
    # (bound | sos | numeric), refuted -> extrembench.verify.provers.refutation; each re-checkable alone
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


# ---------------------------------------------------------------- the check
def _invalid(problem_id: str, error: Exception) -> CheckResult:
    return CheckResult(problem_id, "invalid", None, None, str(error))


@one_blas_thread
def check_problem(
    problem: Problem | str | Path,
    *,
    seed: int = 0,
    effort: Effort = Effort(),
    ignore_keys=DEFAULT_IGNORED_KEYS,
    certify: bool = True,
    level_nodes: int = LEVEL_MAX_NODES,
) -> CheckResult:
    """Validate one problem; a path that fails to load gives status 'invalid', never an exception.
    certify=False leaves a confirmed answer without its certificate (same status: the certificate
    is built after the verdict), for callers that need only statuses. level_nodes bounds each level
    proof a refutation tries (boxes of its branch and bound): fewer can leave inconclusive what the
    default refutes, never the other way round, and never touch a confirmation."""
    if not isinstance(problem, Problem):
        try:
            problem = load_problem(problem, ignore_keys=ignore_keys)
        except ProblemError as exc:
            return _invalid(declared_id(Path(problem)), exc)
    try:
        # every path (check, the validate job, a spec read back from Parquet) checks one order
        problem = canonical_problem(problem)
    except ProblemError as exc:
        return _invalid(problem.id, exc)
    try:
        with wall_cap(effort.time_cap_s):
            return _check_loaded(problem, seed, effort, certify, level_nodes)
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


def _check_loaded(
    problem: Problem, seed: int, effort: Effort, certify: bool = True, level_nodes: int = LEVEL_MAX_NODES
) -> CheckResult:
    deadline = time.monotonic() + effort.time_cap_s
    try:
        convert_problem(problem)  # raises when the source inequality disagrees with the curated fields
        model, parsed = build_model(problem)
    except (ProblemError, ExpressionError) as exc:
        return _invalid(problem.id, exc)
    candidates = multistart(model, seed, effort, deadline)
    # every sign orthant of the sign-free variables searched too (a hyperbola's other branch);
    # its points join only where they change the verdict, so the usual witness stays the same
    in_orthants, coverage = orthant_search(model, seed, effort, deadline)
    feasible = feasible_candidates(candidates)
    if not feasible:
        feasible = feasible_candidates(in_orthants)
    if not feasible:
        exact = _exactly_feasible(model, candidates + in_orthants, deadline)
        if exact is None:
            return _no_feasible_point(problem, parsed, candidates)
        feasible = [exact]
    statement_error = _statement_mismatch(problem, model, feasible)
    if statement_error:
        return CheckResult(problem.id, "invalid", None, None, f"statement: {statement_error}")
    answer = float((parsed.answer - model.shift).evalf(30))
    target = model.target()
    tol = REL_TOL * (1 + abs(answer))
    beating = [c for c in feasible_candidates(in_orthants) if c.value < min(target - tol, feasible[0].value)]
    if beating:
        feasible = sorted(feasible + beating, key=lambda c: c.value)
    feasible = _without_float_artifacts(model, feasible, target - tol, parsed.answer)
    best = feasible[0]
    if best.value < target - tol:
        better = [c for c in feasible if c.value < target - tol]
        refuted = _refute_by_witness(problem, model, better, deadline)
        if refuted.status == "refuted":
            return refuted
        return _proved_despite_float_points(problem, model, better, coverage, certify) or refuted
    if best.value > target + tol:
        return _refute_unreachable(problem, model, best, level_nodes)
    matching = [c for c in feasible if c.value <= target + tol]
    status, chosen, reason = attainment(model, matching, parsed.answer)
    # within the search's tolerance, yet not an exact match: the exact point decides. A claim
    # confirmed at a float witness always has the exact points near it tried (one of them may beat
    # the claim although the float did not); one confirmed exactly only when a point beats it by
    # more than rounding. A confirmed claim gets no level proof (past a right claim it cannot close
    # and would spend its whole box budget failing)
    if (
        status != "confirmed"
        or not reason.startswith("exact closed-form")
        or best.value < target - FLOAT_NOISE * (1 + abs(target))
    ):
        refuted = _refute_near_claim(
            problem, model, matching, deadline, levels=status != "confirmed", level_nodes=level_nodes
        )
        if refuted is not None:
            return refuted
    result = CheckResult(problem.id, status, model.reported(chosen.value), witness_of(model, chosen), reason)
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


def _no_feasible_point(problem: Problem, parsed, candidates: list[Candidate]) -> CheckResult:
    """The search found no feasible point: invalid only with an exact proof that there is none
    (issue 29), carried as an `empty` certificate that verify-certificate re-checks; else undecided."""
    problem_id = problem.id
    emptiness = prove_empty(parsed)
    if emptiness is not None:
        spec = {"variables": dict(problem.variables), "constraints": list(problem.constraints)}
        certificate = emptiness.certificate(spec)
        ok, why = verify_empty(certificate, spec)
        if ok:
            return CheckResult(problem_id, "invalid", None, None, emptiness.reason, certificate)
        log.error("%s: the empty-set argument did not pass its own check (%s); verdict left undecided", problem_id, why)
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


def _least_violation(model: Model, starts: list[Candidate], deadline: float) -> list[Candidate]:
    """Points of least absolute constraint violation, from the given points and the structured
    starts. A set such as (x - 1)^2 + (y - 2)^2 <= 0 is a single point where every relative
    residual is 1 except exactly there, so the relative measure the search uses gives no slope to
    follow; the absolute violation (a square distance here) leads to it, and the exact snap then
    decides. Bounded work: one L-BFGS-B run of at most 300 iterations per start."""

    def violation(t):
        xs = model.x_scalar(t)
        total = 0.0
        for func, _ in model.equalities:
            total += abs(scalar_value(func, xs))
        for func, _ in model.inequalities:
            total += max(0.0, -scalar_value(func, xs))
        return total if math.isfinite(total) else 1e300

    bounds = [(c.t_lo, c.t_hi) for c in model.coords]
    out = []
    for start in structured_starts(model) + [np.array(c.t) for c in starts]:
        check_cap(deadline)
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
            out.append(Candidate(tuple(float(t) for t in result.x), float(f), float(v)))
    return out


def _exactly_feasible(model: Model, candidates: list[Candidate], deadline: float) -> Candidate | None:
    """A feasible point proven exactly (rational / algebraic coordinates) near one of the search's
    closest points, as a candidate: a set whose only points sit where a relative residual test
    cannot pass (the origin, a single point like x^2 + y^2 = 0) is not empty."""

    closest = sorted(candidates, key=lambda c: c.violation)[:4]
    for candidate in closest + _least_violation(model, closest, deadline):
        check_cap(deadline)
        point = exact_feasible_point(model.parsed, witness_of(model, candidate))
        if point is None:
            continue
        x = point_floats(point)
        t = np.array([c.t(x[name]) for c, name in zip(model.coords, model.names)])
        value, _ = model.values([np.float64(x[name]) for name in model.names])
        if np.isfinite(value):
            return Candidate(tuple(float(v) for v in t), float(value), 0.0)
    return None


FLOAT_NOISE = 1e-14  # a best value this far below the claim (relative) is more than rounding
NEAR_CLAIM_CANDIDATES = 2  # float points within tolerance of the claim that are snapped and re-evaluated


def _refute_near_claim(
    problem: Problem,
    model: Model,
    matching: list[Candidate],
    deadline: float,
    levels: bool,
    level_nodes: int = LEVEL_MAX_NODES,
) -> CheckResult | None:
    """A claim the search matched only to tolerance: the nearest points snapped to rationals and
    low-height algebraic numbers (refutation.exact_points) and evaluated exactly; refuted when one
    beats the claim, whatever the gap's size (the objective equals -1/10^10 at x = 1/2 exactly,
    below a claimed 0), or when the exact value there lies past a claim no point reaches (10^20
    claimed 10^20 - 1) and a level proof closes. None when neither settles it."""
    refuted = _refute_by_witness(problem, model, matching[:NEAR_CLAIM_CANDIDATES], deadline)
    if refuted.status == "refuted":
        return refuted
    for candidate in matching[:NEAR_CLAIM_CANDIDATES] if levels else []:
        check_cap(deadline)
        point = exact_feasible_point(model.parsed, witness_of(model, candidate))
        past = _past_claim_value(model, candidate, point)
        if past is None:
            continue
        value, source = past
        # the values at hand lie past the claim: a proof that nothing reaches the claim refutes it
        certificate, detail = level_certificate(
            model.parsed, problem.answer, value, witness_of(model, candidate), max_nodes=level_nodes
        )
        if certificate is not None:
            return CheckResult(
                problem.id,
                "refuted",
                float(value),
                witness_of(model, candidate),
                f"the claimed {problem.answer} is never reached: {source}, and {detail}",
                certificate,
            )
    return None


def _past_claim_value(model: Model, candidate: Candidate, point: dict | None) -> tuple[Fraction, str] | None:
    """The value a level proof starts from when the claim lies past the values at hand (the claim
    is then never reached if a level between them is proven), and what gives it; None when none
    lies past it. The exactly feasible point's value when it is rational (10^20 against a claimed
    10^20 - 1) and not much farther from the claim than the search's own value, else that float
    value (beyond its rounding only): an exact point snapped to short rationals can sit well inside
    the set (4/7 for 1/sqrt(3)), and a level between the claim and its value would cut through the
    extremum (the level lies within a quarter of the gap from the claim, so 3x the gap is safe)."""
    claim = model.parsed.answer
    exact = None if point is None else _exact_objective(model.parsed, point)
    exact = Fraction(exact.p, exact.q) if exact is not None and (model.sign * (exact - claim)).is_positive else None
    target = model.target()
    searched = None
    if candidate.value - target > FLOAT_NOISE * (1 + abs(target)):
        searched = Fraction(model.sign * candidate.value) + Fraction(model.shift.p, model.shift.q)
    if exact is not None and (
        searched is None or model.sign * (exact - searched) <= 2 * model.sign * (searched - claim)
    ):
        return exact, f"an exactly feasible point gives {exact}"
    if searched is not None:
        return searched, f"the search's best value is {float(searched):.15g}"
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


MAX_ARTIFACTS = 10  # float points beating the claim re-evaluated at 50 digits before they count


def _without_float_artifacts(model: Model, feasible: list[Candidate], below: float, claim) -> list[Candidate]:
    """`feasible` (sorted, best first) without its leading points that beat the claim only in floats
    (recheck.float_artifact): which float path the search ran on decides whether it meets such a
    point at all, so it must not decide the verdict. A bounded count; never the last candidate."""
    kept = list(feasible)
    for _ in range(MAX_ARTIFACTS):
        if len(kept) < 2 or kept[0].value >= below:
            break
        x = model.x(np.array(kept[0].t))
        if not (float_artifact(model, x, claim) or _beats_only_by_its_scale(model, x, below)):
            break
        kept.pop(0)
    return kept


def _beats_only_by_its_scale(model: Model, x, below: float) -> bool:
    """A claim of 0 on a problem homogeneous at this far-out point (the objective of degree k >= 1,
    the constraints scale invariant): the point rescaled to a largest coordinate of 1 is float
    feasible and no longer beats the claim by the tolerance. Its value was the scale times a
    rounding-sized one (a triangle a hair obtuse at sides ~ 1e12 gives -7e4: ineq-0467), and the
    scale the search drifted to must not decide the verdict."""
    if model.parsed.answer != 0 or model.shift != 0:
        return False
    largest = max(abs(float(v)) for v in x)
    if largest <= 1e3 or any(c.kind == "box" for c in model.coords):
        return False
    points = [[float(v) / scale for v in x] for scale in (1.0, largest, 2 * largest)]
    (f1, _), (f2, v2), (f3, v3) = (model.values(list(map(np.float64, point))) for point in points)
    f1, f2, f3 = (complex(f).real for f in (f1, f2, f3))
    if not all(math.isfinite(f) for f in (f1, f2, f3)) or max(v2, v3) > FEAS_TOL or f2 == 0 or f1 / f2 <= 0:
        return False
    degree = math.log(f1 / f2) / math.log(largest)
    k = round(degree)
    homogeneous = 1 <= k <= 8 and abs(degree - k) <= 1e-3 and abs(f3 - f2 / 2**k) <= 1e-6 * abs(f2)
    return homogeneous and f2 >= below


MAX_REFUTATION_CANDIDATES = 5  # float points beating the claim that are tried as exact witnesses


def _refute_by_witness(problem: Problem, model: Model, better: list[Candidate], deadline: float) -> CheckResult:
    """refuted with an exact witness certificate, or inconclusive when no float point beating the
    claim can be made exactly feasible with a rigorously better objective."""

    word = "below" if problem.sense == "min" else "above"
    answer = float(model.parsed.answer.evalf(30))
    why = ""
    for candidate in better[:MAX_REFUTATION_CANDIDATES]:
        check_cap(deadline)
        certificate, detail = witness_certificate(model.parsed, problem.answer, witness_of(model, candidate))
        if certificate is None:
            why = why or detail
            continue
        witness = point_floats(certificate["point"])
        value, _ = model.values([np.float64(witness[name]) for name in model.names])
        best_value = model.reported(float(value))
        reason = f"an exactly feasible point gives {best_value:.12g}, {word} the claimed {answer:.12g} ({detail})"
        if at_limit(model, candidate):
            diverging, path, points = diverges(model, candidate)
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
        moderate = [c for c in better if c is not candidate and max(map(abs, witness_of(model, c).values())) <= 1e3]
        rays = (ray for start in [candidate, *moderate[:2]] for ray in push_rays(model, start, 60, deadline))
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
        witness_of(model, best),
        f"a point feasible to float tolerance gives {model.reported(best.value):.12g}, {word} the claimed "
        f"{answer:.12g}, but no exactly feasible point near it beats the claim ({why})",
    )


def _proved_despite_float_points(
    problem: Problem, model: Model, better: list[Candidate], coverage, certify: bool
) -> CheckResult | None:
    """Points feasible only to float tolerance beat the claim and none is exactly feasible: when
    one snaps to an exact point attaining the claim and a bound or sos proof covers the claim, it
    is confirmed (a set that inequalities force down to one point, such as x + y <= 2 with
    xy >= 1: float points sit just outside it, and their rounding beats the claim). A numeric
    certificate is no answer here: the numeric evidence is what disagrees."""

    status, chosen, reason = attainment(model, better, model.parsed.answer)
    if status != "confirmed" or not reason.startswith("exact closed-form"):
        return None
    witness = witness_of(model, chosen)
    routes = (*ROUTES, *POINT_ROUTES)
    certificate = build_certificate(problem, witness, reason, routes=routes, components=coverage.record())
    if certificate["kind"] == "numeric":
        return None
    return CheckResult(
        problem.id,
        "confirmed",
        model.reported(chosen.value),
        witness,
        f"{reason}; float-feasible points beat it only by their rounding: {_what_it_proves(certificate)}",
        certificate if certify else None,
    )


def _what_it_proves(certificate: dict) -> str:
    if (certificate.get("body") or {}).get("point") is True:
        return f"an {certificate['kind']} proof shows the feasible set is that one point"
    return f"a {certificate['kind']} proof covers the claim"


def _refute_unreachable(
    problem: Problem, model: Model, best: Candidate, level_nodes: int = LEVEL_MAX_NODES
) -> CheckResult:
    """The claim lies beyond every value the search found: refuted only with a proof that no
    feasible point reaches it (scaling, or a bound or sos proof of a level past it), inconclusive otherwise."""

    answer = float(model.parsed.answer.evalf(30))
    best_value = model.reported(best.value)
    # with a large constant taken out, the best value is exact from its float part and the constant
    level_from = (
        best_value if model.shift == 0 else Fraction(model.sign * best.value) + Fraction(model.shift.p, model.shift.q)
    )
    certificate, detail = level_certificate(
        model.parsed, problem.answer, level_from, witness_of(model, best), max_nodes=level_nodes
    )
    if certificate is None:
        return CheckResult(
            problem.id,
            "inconclusive",
            best_value,
            witness_of(model, best),
            f"the claimed {answer:.12g} is never reached nor approached by the search (best feasible "
            f"value {best_value:.12g}), but no proof that no feasible point reaches it was found ({detail})",
        )
    return CheckResult(
        problem.id,
        "refuted",
        best_value,
        witness_of(model, best),
        f"the claimed {answer:.12g} is never reached nor approached: the best feasible value found is "
        f"{best_value:.12g}, and {detail}",
        certificate,
    )


def _statement_mismatch(problem: Problem, model: Model, feasible: list[Candidate]) -> str | None:
    if problem.statement is None:
        return None
    from extrembench.verify.statement_check import statement_mismatch  # the LaTeX grammar is only needed here

    points = [witness_of(model, c) for c in _spread_feasible_points(model, seed=1, count=6)] + [
        witness_of(model, feasible[0])
    ]
    return statement_mismatch(problem.statement, model.parsed, points)


def _spread_feasible_points(model: Model, seed: int, count: int) -> list[Candidate]:
    """Feasible points spread over the set: random samples projected onto the constraints
    (nearest feasible point in search coordinates), so formulas are compared away from the optimum."""
    rng = np.random.default_rng(seed)
    samples = sample_points(model, rng, count)
    if not model.equalities and not model.inequalities:
        values, _ = model.values(model.x(samples))
        return [Candidate(tuple(samples[:, i]), float(values[i]), 0.0) for i in range(count) if np.isfinite(values[i])]
    points = []
    for i in range(count):
        start = samples[:, i]
        bounds = [(c.t_lo, c.t_hi) for c in model.coords]
        constraints = scalar_constraints(model)
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
            points.append(Candidate(tuple(float(v) for v in result.x), float(value), float(violation)))
    return points
