"""Refutation certificates: why a claimed extremum is wrong, in data anyone can re-check without search.

A certificate is a JSON-serialisable dict. `verify_refutation(certificate, spec)` re-checks it from
the certificate and the problem alone; `witness_certificate` builds one from a float point the
search found. Kinds:

- "refutation", method "witness": an exactly feasible point (rational coordinates, and at most one
  real algebraic coordinate given as a root of an integer polynomial inside a rational interval
  where the polynomial changes sign) at which every domain, equality and inequality holds exactly,
  and a rigorous interval enclosure of the objective that lies beyond the claim by a positive margin.
  Equalities are decided exactly: rational arithmetic, or for the algebraic coordinate divisibility of
  the constraint's numerator by the root's polynomial. Inequalities and the objective are enclosed
  with outward-rounded interval arithmetic (mpmath.iv), never with floats.

- "refutation", method "bound" | "sos": a rational `level` strictly past the claim, and a proof that
  every feasible objective value lies on the far side of it (min: >= level): an interval branch and
  bound of extrembench.verify.certificates.bound (`plan`, `trees`), or an exact sum-of-squares identity
  for objective - level (`body`, as in extrembench.verify.certificates.sos). No feasible point reaches the claim.
- "refutation", method "scaling": the objective is a ratio of homogeneous polynomials of total degree
  `degree` != 0, every constraint a homogeneous relation and every domain end 0 or infinite, so
  x -> t*x (t > 0) keeps points feasible and multiplies the objective by t^degree: the extremum is
  0 or infinite, never the claimed nonzero number. All decided exactly on monomials.
- "unbounded": an exact feasible path, each variable a rational function of t with rational
  coefficients (`path`), feasible for every t >= `t0` (constraints identically or with a proven
  sign on the ray: exact Sturm root counting, never samples), along which the objective is a
  rational function tending to -oo (min) / +oo (max). Any finite claim is passed.

Interval arithmetic is mpmath's, through the strict mode of extrembench.verify.certificates.interval.
enclose_mp: every operation rounds outward, so an enclosure always contains the true value. A certificate that cannot be decided this way does not verify.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy
from mpmath.libmp import to_str

from extrembench.problems.expr import ExpressionError, parse_expression
from extrembench.problems.problem import ParsedProblem, Problem, min_form_sign, parse_problem, problem_from_dict
from extrembench.verify.certificates import bound, sos
from extrembench.verify.certificates.certify import _reference
from extrembench.verify.certificates.interval import (
    Undefined,
    Unsupported,
    compile_enclosure,
    ctx,
    enclose_mp,
    precision,
)
from extrembench.verify.certificates.interval import point as interval_point
from extrembench.verify.certificates.reduce import PlanError, apply_plan, choose_plan, homogeneity_degree
from extrembench.verify.certificates.witness import sign

VERIFIER = "extrembench.verify.refutation/1"
PRECISION_BITS = 200  # working precision of the enclosures
ROOT_WIDTH = Fraction(1, 2**190)  # isolating interval of an algebraic coordinate, refined to this width
SNAP_DENOMINATORS = (12, 1000, 10**6)  # nice rationals first; the float's exact binary value last
MAX_SOLVE_ATTEMPTS = 40  # (unknowns chosen, snapping) pairs tried when building a witness


# ---------------------------------------------------------------- interval enclosures


def _rational(value: Fraction | sympy.Rational) -> Any:
    return ctx.mpf(int(value.numerator)) / int(value.denominator)


def enclose(expr: sympy.Basic, box: dict) -> Any:
    """An interval containing every value of expr over the box (symbol -> ctx interval); Undefined
    unless the expression is provably defined and real on the whole box."""
    return enclose_mp(expr, PRECISION_BITS, box, strict=True)


def _text(x: Any) -> list[str]:
    """The interval's ends as decimal text (for people; the verifier recomputes, never reads these)."""
    return [to_str(x._mpi_[0], 17), to_str(x._mpi_[1], 17)]


# ---------------------------------------------------------------- exact points


def _fraction(text: str) -> Fraction:
    if not isinstance(text, str) or len(text) > 20000:
        raise ValueError(f"coordinate {text!r} is not a rational written as text")
    return Fraction(text)


def _is_rational_text(text: str) -> bool:
    try:
        Fraction(text)
    except ValueError:
        return False
    return True


def _poly_value(coefficients: list[Fraction], x: Fraction) -> Fraction:
    value = Fraction(0)
    for c in coefficients:
        value = value * x + c
    return value


def _algebraic(entry: dict) -> tuple[list[Fraction], Fraction, Fraction]:
    """(coefficients high->low, lo, hi) of a root entry, after checking the sign change."""
    coefficients = [_fraction(c) for c in entry["root_of"]]
    lo, hi = (_fraction(v) for v in entry["interval"])
    if len(coefficients) < 2 or coefficients[0] == 0 or not lo < hi:
        raise ValueError("a root needs a polynomial of degree >= 1 and an interval lo < hi")
    if _poly_value(coefficients, lo) * _poly_value(coefficients, hi) >= 0:
        raise ValueError(f"the polynomial does not change sign on [{lo}, {hi}], so no root is certified there")
    return coefficients, lo, hi


def _refine(coefficients: list[Fraction], lo: Fraction, hi: Fraction, width: Fraction) -> tuple[Fraction, Fraction]:
    """Bisect keeping a sign change (exact rational arithmetic): the interval keeps containing a root."""
    f_lo = _poly_value(coefficients, lo)
    while hi - lo > width:
        mid = (lo + hi) / 2
        f_mid = _poly_value(coefficients, mid)
        if f_mid == 0:
            return mid, mid
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return lo, hi


def _point_box(point: dict, symbols: dict) -> tuple[dict, dict, tuple | None]:
    """(exact rational coordinates, interval box, the algebraic coordinate or None)."""
    exact, box, algebraic = {}, {}, None
    with precision(PRECISION_BITS):
        for name, entry in point.items():
            s = symbols[name]
            if isinstance(entry, str) and _is_rational_text(entry):
                value = _fraction(entry)
                exact[s] = sympy.Rational(value.numerator, value.denominator)
                box[s] = _rational(value)
                continue
            if isinstance(entry, str):
                # a closed form (pi - 2094/1000, 2*sqrt(30)/15) read by the safe parser with no
                # variables; equalities at it are decided by exact algebra (_exactly_zero)
                if len(entry) > 2000:
                    raise ValueError("a closed-form coordinate longer than 2000 characters")

                try:
                    exact[s] = parse_expression(entry, ())
                except ExpressionError as error:
                    raise ValueError(f"coordinate {entry!r}: {error}") from None
                try:
                    box[s] = enclose(exact[s], {})
                except Undefined as error:
                    raise ValueError(f"coordinate {entry!r}: {error}") from None
                continue
            if not isinstance(entry, dict) or algebraic is not None:
                raise ValueError("a coordinate is a rational as text, or (at most one) {root_of, interval}")
            coefficients, lo, hi = _algebraic(entry)
            lo, hi = _refine(coefficients, lo, hi, ROOT_WIDTH)
            if lo == hi:
                exact[s] = sympy.Rational(lo.numerator, lo.denominator)
                box[s] = _rational(lo)
                continue
            algebraic = (s, coefficients, lo, hi)
            box[s] = ctx.mpf([_rational(lo).a, _rational(hi).b])
    return exact, box, algebraic


def _exactly_zero(expr: sympy.Expr, exact: dict, algebraic: tuple | None, box: dict) -> bool:
    """Whether expr is exactly 0 at the point: rational arithmetic, or divisibility of its numerator
    by the algebraic coordinate's polynomial (its denominator enclosed away from 0)."""
    value = expr.xreplace(exact)
    if algebraic is None:
        if value.free_symbols or value.is_Rational:
            return value == 0
        from extrembench.verify.certificates.witness import is_zero  # closed forms: cancellation, minimal polynomial

        return is_zero(value)
    s, coefficients, _, _ = algebraic
    numerator, denominator = sympy.fraction(sympy.together(value))
    try:
        top = sympy.Poly(numerator, s, domain="QQ")
        root = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in coefficients], s, domain="QQ")
    except sympy.PolynomialError:
        return False
    if not top.rem(root).is_zero:
        return False
    try:
        enclosure = enclose(denominator, box)
        return not enclosure.a <= 0 <= enclosure.b
    except Undefined:
        return False


def _holds(lhs, op: str, rhs, exact: dict, algebraic, box: dict) -> tuple[bool, str]:
    """Whether a relation holds exactly at the point, with why not."""
    shown = f"{lhs} {op} {rhs}"
    try:
        sides = enclose(lhs, box), enclose(rhs, box)  # both sides must be defined there
        difference = enclose(lhs - rhs, box) if op in ("=", ">=", ">") else enclose(rhs - lhs, box)
    except Undefined as error:
        return False, f"{shown}: {error}"
    del sides
    if op == "=":
        return (
            (True, "")
            if _exactly_zero(lhs - rhs, exact, algebraic, box)
            else (False, f"{shown} is not shown to hold exactly")
        )
    if difference.a > 0:
        return True, ""
    if difference.b < 0:
        return False, f"{shown} is violated"
    if op in (">=", "<=") and _exactly_zero(lhs - rhs, exact, algebraic, box):
        return True, ""
    return False, f"{shown} could not be decided at the witness"


def _in_domain(value_box: Any, domain, exact_value) -> bool:
    """Whether the coordinate lies in its domain: exact for rationals, by enclosure otherwise."""
    with precision(PRECISION_BITS):
        for end, is_open, side in ((domain.lo, domain.lo_open, 1), (domain.hi, domain.hi_open, -1)):
            if end is None:
                continue
            if exact_value is not None and exact_value.is_Rational and end.is_Rational:
                gap = side * (exact_value - end)
                if gap < 0 or (gap == 0 and is_open):
                    return False
                continue
            gap = (value_box - enclose(end, {})) * side
            if not gap.a > 0:
                return False
    return True


# ---------------------------------------------------------------- verification


def _parsed(spec: Any, claim: str):
    """ParsedProblem of a spec given as a Problem, a ParsedProblem or a spec dict (spec_json form)."""

    if isinstance(spec, ParsedProblem):
        return spec
    if isinstance(spec, Problem):
        return parse_problem(spec)
    data = {k: spec[k] for k in ("sense", "variables", "constraints", "objective") if k in spec}
    data.update(id=str(spec.get("id", "spec")), answer=str(spec.get("answer", claim)))
    return parse_problem(problem_from_dict(data))


def verify_refutation(certificate: dict, spec: Any) -> tuple[bool, str]:
    """(True, summary) when the certificate proves the claim wrong for this problem, else (False, why).

    Nothing is searched: the point is read from the certificate, its exact feasibility decided and
    the objective enclosed there."""
    try:
        if not isinstance(certificate, dict) or certificate.get("kind") not in ("refutation", "unbounded"):
            return False, "not a refutation certificate (kind must be 'refutation' or 'unbounded')"
        method = certificate.get("method")
        if certificate["kind"] == "refutation" and method not in ("witness", "bound", "sos", "scaling"):
            retired = " (retired: bound and sos level proofs refute its claims)" if method == "branch-and-bound" else ""
            return False, f"unknown refutation method {method!r}{retired}"
        claim_text = certificate["claim"]
        parsed = _parsed(spec, claim_text)

        claim = parse_expression(claim_text, ())
        if sympy.simplify(claim - parsed.answer) != 0:
            return False, f"the certificate refutes {claim_text}, but the problem claims {parsed.answer}"
        if certificate.get("sense") != parsed.sense:
            return (
                False,
                f"the certificate is for a {certificate.get('sense')} problem, this one asks for the {parsed.sense}",
            )
        if certificate["kind"] == "unbounded":
            return _verify_unbounded(certificate, parsed, claim)
        if certificate["method"] in ("bound", "sos"):
            return _verify_level(certificate, parsed, claim)
        if certificate["method"] == "scaling":
            return _verify_scaling(certificate, parsed, claim)
        return _verify_witness(certificate, parsed, claim)
    except (KeyError, TypeError, ValueError, ArithmeticError) as error:
        return False, f"malformed certificate: {type(error).__name__}: {error}"


def check_point(parsed, point: dict) -> tuple[bool, str, dict]:
    """(holds, why not, interval box): is the exact point in every domain and does every constraint
    hold there exactly."""
    symbols = {str(s): s for s in parsed.symbols}
    if set(point) != set(symbols):
        return False, f"the point must give every variable ({', '.join(symbols)}) and nothing else", {}
    exact, box, algebraic = _point_box(point, symbols)
    for s in parsed.symbols:
        if not _in_domain(box[s], parsed.domains[s], exact.get(s)):
            return False, f"{s} is outside its domain", box
        if algebraic is not None and s == algebraic[0]:
            ends = [sympy.Rational(v.numerator, v.denominator) for v in algebraic[2:]]
            if not all(parsed.domains[s].contains(v) for v in ends):
                return False, f"the interval of {s} leaves its domain", box
    for lhs, op, rhs in parsed.constraints:
        ok, why = _holds(lhs, op, rhs, exact, algebraic, box)
        if not ok:
            return False, why, box
    return True, "", box


def _verify_witness(certificate: dict, parsed, claim: sympy.Expr) -> tuple[bool, str]:
    ok, why, box = check_point(parsed, certificate["point"])
    if not ok:
        return False, why
    try:
        value = enclose(parsed.objective, box)
    except Undefined as error:
        return False, f"objective: {error}"
    with precision(PRECISION_BITS):
        bound = enclose(claim, {})
        margin = bound.a - value.b if parsed.sense == "min" else value.a - bound.b
    if not margin > 0:
        return False, f"the objective's enclosure {_text(value)} does not beat the claim {claim}"
    word = "below" if parsed.sense == "min" else "above"
    return True, (
        f"exactly feasible point; objective in [{_text(value)[0]}, {_text(value)[1]}], {word} the "
        f"claimed {claim} by more than {to_str(margin._mpi_[0], 3)}"
    )


def point_floats(point: dict) -> dict[str, float]:
    """Float approximations of an exact point's coordinates (for display and the search)."""
    floats = {}
    for name, entry in point.items():
        if isinstance(entry, str) and _is_rational_text(entry):
            floats[name] = float(Fraction(entry))
        elif isinstance(entry, str):
            floats[name] = float(parse_expression(entry, ()).evalf(30))
        else:
            lo, hi = (Fraction(v) for v in entry["interval"])
            floats[name] = float(_refine([Fraction(c) for c in entry["root_of"]], lo, hi, Fraction(1, 2**60))[0])
    return floats


# ---------------------------------------------------------------- building a witness


def witness_certificate(parsed, claim_text: str, x: dict[str, float]) -> tuple[dict | None, str]:
    """A verified witness certificate near the float point x, or (None, why not)."""
    why = "no exactly feasible point was found near the float point"
    for point in exact_points(parsed, x):
        certificate = {
            "kind": "refutation",
            "method": "witness",
            "sense": parsed.sense,
            "claim": claim_text,
            "point": point,
            "verifier": VERIFIER,
        }
        ok, detail = verify_refutation(certificate, parsed)
        if ok:
            certificate["summary"] = detail
            return certificate, detail
        why = detail
    return None, why


def exact_feasible_point(parsed, x: dict[str, float]) -> dict | None:
    """An exact point near x at which every domain and constraint holds exactly, or None."""
    for point in exact_points(parsed, x):
        if check_point(parsed, point)[0]:
            return point
    return None


def exact_points(parsed, x: dict[str, float]):
    """Exact points near the float point x, nicest first: the coordinates not fixed by equalities
    snapped to rationals, the equalities solved exactly for the rest (a linear system over the
    rationals, or one polynomial equation whose real root nearest x is isolated); then closed forms
    (_closed_form_points); last, every coordinate one common value (_DIAGONAL), which a claim
    far from the values there (a flipped sense) needs no point near x for. Bounded work."""
    yield from _rational_points(parsed, x)
    yield from _closed_form_points(parsed, x)
    if any(op == "=" for _, op, _ in parsed.constraints):
        yield from ({str(s): value for s in parsed.symbols} for value in _DIAGONAL)


# common values of a symmetric point: where sum cos(x_i) = 0 or x + 2/x = 2x + 1/x holds exactly
_DIAGONAL = ("1", "pi/2", "pi/3", "pi/4", "2", "1/2", "pi", "0", "-1")


def _closed_form_points(parsed, x: dict[str, float]):
    """Points whose eliminated coordinates are closed forms: the equalities are solved for one
    variable each by the certificates' reduction plan (linear or quadratic solved forms, so
    A + B + C = pi gives C = pi - A - B, and a sum of squares = 1 a square root), the other
    coordinates snapped to rationals and substituted. Every quadratic branch is tried."""

    if not any(op == "=" for _, op, _ in parsed.constraints) or not all(math.isfinite(v) for v in x.values()):
        return
    try:
        plan = choose_plan(parsed, sympy.Integer(0), x)
        branches = apply_plan(parsed, sympy.Integer(0), plan) if plan else []
    except (PlanError, sympy.PolynomialError, ValueError, TypeError):
        return
    if any(step["op"] == "normalize" for step in plan or []):
        return  # a normalised branch is a rescaled copy of the problem, not a parametrisation of it
    # the float's exact binary value last: a coordinate a hair from an open end (A -> 0 in a
    # degenerate triangle) snaps onto the end with any short denominator
    for snap in (*(lambda v, d=d: Fraction(v).limit_denominator(d) for d in SNAP_DENOMINATORS), Fraction):
        for branch in branches:
            free = {s: snap(x[str(s)]) for s in branch.symbols}
            values = {s: sympy.Rational(f.numerator, f.denominator) for s, f in free.items()}
            point, ok = {str(s): str(f) for s, f in free.items()}, True
            for v, expr in branch.substitutions.items():
                value = sympy.radsimp(expr.xreplace(values))
                if not value.is_number or value.has(sympy.I, sympy.zoo, sympy.nan):
                    ok = False
                    break
                point[str(v)] = value
            if ok and set(point) == {str(s) for s in parsed.symbols}:
                yield {
                    str(s): sympy.sstr(point[str(s)]) if not isinstance(point[str(s)], str) else point[str(s)]
                    for s in parsed.symbols
                }


def _rational_points(parsed, x: dict[str, float]):
    equalities = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "="]
    involved = [s for s in parsed.symbols if any(s in g.free_symbols for g in equalities)]
    choices = list(itertools.combinations(involved, len(equalities))) if equalities else [()]
    # unknowns far from 0 first: their value moves least relative to itself when solved for
    choices.sort(key=lambda chosen: -sum(math.log1p(abs(x[str(s)])) for s in chosen))
    attempts = 0
    for snap in (*(lambda v, d=d: Fraction(v).limit_denominator(d) for d in SNAP_DENOMINATORS), Fraction):
        # every coordinate snapped, nothing solved: (2, 1, 1) of xyz = 2, x + y + z = 4, a system
        # of two nonlinear equalities that the one-unknown solver below cannot take
        if equalities and all(math.isfinite(v) for v in x.values()):
            yield {str(s): str(snap(x[str(s)])) for s in parsed.symbols}
        for chosen in choices:
            attempts += 1
            if attempts > MAX_SOLVE_ATTEMPTS:
                return
            if not all(math.isfinite(x[str(s)]) for s in parsed.symbols):
                return
            point = _solve(equalities, chosen, {s: snap(x[str(s)]) for s in parsed.symbols if s not in chosen}, x)
            if point is not None:
                yield {str(s): point[str(s)] for s in parsed.symbols}


def _solve(equalities: list, chosen: tuple, free: dict, x: dict) -> dict | None:
    """The exact point with the free coordinates given, the chosen ones solved from the equalities."""
    values = {s: sympy.Rational(f.numerator, f.denominator) for s, f in free.items()}
    point = {str(s): str(f) for s, f in free.items()}
    if not chosen:
        return point
    reduced = [sympy.together(g.xreplace(values)) for g in equalities]
    numerators = [sympy.fraction(r)[0] for r in reduced]
    try:
        polys = [sympy.Poly(n, *chosen, domain="QQ") for n in numerators]
    except (sympy.PolynomialError, sympy.CoercionFailed):
        return None
    if all(p.total_degree() <= 1 for p in polys):
        solutions = sympy.linsolve([p.as_expr() for p in polys], list(chosen))
        if len(solutions) != 1:
            return None
        solution = next(iter(solutions))
        if any(not v.is_Rational for v in solution):
            return None
        point.update({str(s): str(v) for s, v in zip(chosen, solution)})
        return point
    if len(chosen) != 1:
        return _solve_system(polys, chosen, point, x)
    s = chosen[0]
    target = x[str(s)]
    best = None
    for factor, _ in sympy.factor_list(polys[0].as_expr(), s)[1]:
        factor_poly = sympy.Poly(factor, s, domain="QQ")
        if factor_poly.degree() < 1 or factor_poly.degree() > 12:
            continue
        for (lo, hi), _ in factor_poly.intervals(eps=sympy.Rational(1, 10**12) * max(1, abs(Fraction(target)))):
            distance = abs((lo + hi) / 2 - Fraction(target))
            if best is None or distance < best[0]:
                best = (distance, factor_poly, lo, hi)
    if best is None:
        return None
    _, factor_poly, lo, hi = best
    if factor_poly.degree() == 1 or lo == hi:
        root = sympy.solve(factor_poly.as_expr(), s)[0] if factor_poly.degree() == 1 else lo
        point[str(s)] = str(root)
        return point
    # integer coefficients, high to low: the reader sees a plain polynomial
    coefficients = factor_poly.clear_denoms()[1].all_coeffs()
    point[str(s)] = {"root_of": [str(c) for c in coefficients], "interval": [str(lo), str(hi)]}
    return point


def _solve_system(polys: list, chosen: tuple, point: dict, x: dict) -> dict | None:
    """Several unknowns in nonlinear equalities: a lex Groebner basis in shape form (each unknown
    but the last equal to a polynomial in the last, which is a root of one polynomial), the real
    root of a linear or quadratic factor nearest x in closed form, the others substituted. Small
    systems only (<= 3 unknowns, degree <= 4), so the work stays bounded."""
    if len(chosen) > 3 or any(p.total_degree() > 4 for p in polys):
        return None
    last = chosen[-1]
    try:
        basis = sympy.groebner([p.as_expr() for p in polys], *chosen, order="lex", domain="QQ").exprs
    except (sympy.PolynomialError, sympy.CoercionFailed):
        return None
    univariate = [g for g in basis if g.free_symbols <= {last}]
    solved = {}
    for g in basis:
        lead = next((v for v in chosen if v in g.free_symbols and v != last), None)
        poly = sympy.Poly(g, lead) if lead is not None else None
        if poly is not None and (poly.degree() != 1 or g.free_symbols - {lead, last} or lead in solved):
            return None
        if poly is not None:
            solved[lead] = -poly.nth(0) / poly.nth(1)
    if len(univariate) != 1 or len(solved) != len(chosen) - 1:
        return None
    roots = [
        r
        for factor, _ in sympy.factor_list(univariate[0], last)[1]
        if sympy.degree(factor, last) <= 2
        for r in sympy.roots(factor, last, filter="R")
    ]
    for root in sorted(roots, key=lambda r: abs(float(r) - x[str(last)]))[:1]:
        for v, expr in [*solved.items(), (last, last)]:
            value = sympy.radsimp(expr.xreplace({last: root}))
            point[str(v)] = str(value) if value.is_Rational else sympy.sstr(value)
        return point
    return None


# ---------------------------------------------------------------- claims beyond a proven bound

# boxes of the level proof, a work count: a tree that proves a confirmed answer to within epsilon
# proves any lower level too (every leaf test is monotone in it), but where no such tree closes, a
# level 1e-3 past a 3-variable extremum still takes up to ~9500 boxes (ineq-0018, ineq-0022)
LEVEL_MAX_NODES = 10000


def _beyond(parsed, level: Fraction, claim: sympy.Expr) -> bool:
    """The level lies strictly between the claim and the feasible values, i.e. past the claim in the
    direction no feasible point reaches (min: level > claim), decided exactly."""

    gap = sympy.Rational(level.numerator, level.denominator) - claim
    return sign(min_form_sign(parsed.sense) * gap) == 1


def _at_level(parsed, level: Fraction):
    """The problem with its answer replaced by the level (what the sos identity is about)."""

    return replace(parsed, answer=sympy.Rational(level.numerator, level.denominator))


def _bound_branches(parsed, level: Fraction, plan: list):

    sign = min_form_sign(parsed.sense)
    signed = sign * level
    # the plan's normalise step is sound only for a level of 0 or a degree-0 objective: apply_plan
    # checks it against the level it is given, so the level (never the refuted claim) goes in
    branches = apply_plan(parsed, sympy.Rational(signed.numerator, signed.denominator), plan)
    return branches, interval_point(signed)


def _extra_points_hold(parsed, branches, target) -> bool:

    for extra in branches[0].extra_points if branches else ():
        try:
            value = compile_enclosure(min_form_sign(parsed.sense) * parsed.objective, list(extra))(
                [interval_point(0)] * len(extra)
            )
        except (ArithmeticError, ValueError):
            continue  # undefined there: not a feasible point
        if not value.a >= target.b:
            return False
    return True


def _verify_level(certificate: dict, parsed, claim: sympy.Expr) -> tuple[bool, str]:
    """method 'bound' | 'sos': every feasible objective value is proven >= level (min form), and the
    level is strictly past the claim, so no feasible point reaches the claim."""

    level = _fraction(certificate["level"])
    if not _beyond(parsed, level, claim):
        return False, f"the level {level} is not strictly past the claim {claim}"
    word = "at least" if parsed.sense == "min" else "at most"
    if certificate["method"] == "sos":
        ok, detail = sos.verify({"body": certificate["body"]}, _at_level(parsed, level), Fraction(0))
        if not ok:
            return False, detail
        return True, f"every feasible value is {word} {level}, past the claim {claim} ({detail.split(';')[0]})"
    trees = certificate["trees"]
    try:
        branches, target = _bound_branches(parsed, level, list(certificate["plan"]))
    except PlanError as error:
        return False, f"plan: {error}"
    if not isinstance(trees, list) or len(trees) != len(branches):
        return False, f"{len(branches)} branches need as many proof trees"
    for k, (branch, tokens) in enumerate(zip(branches, trees)):
        if not isinstance(tokens, list) or len(tokens) > 10 * LEVEL_MAX_NODES:
            return False, f"tree {k} is not a list of tokens the prover could write"
        try:
            bound.replay(branch, target, [str(t) for t in tokens])
        except (bound.BoundFailure, Unsupported) as error:
            return False, f"branch {k}: {error}"
    if not _extra_points_hold(parsed, branches, target):
        return False, "the origin (checked on its own) is past the level"
    boxes = sum(len(t) for t in trees)
    return True, (
        f"interval branch and bound over {boxes} boxes proves every feasible value is {word} {level}, "
        f"strictly past the claimed {claim}"
    )


def _level(parsed, claim: sympy.Expr, best_value: float) -> Fraction | None:
    """A short decimal just past the claim (min form: claim < level, a sixteenth of the gap to the
    best value found): the proof's slack, best - level, is then most of the gap. Compared with the
    claim exactly: a short decimal claim (0.999) is itself a short rational the level may snap onto."""
    sign = min_form_sign(parsed.sense)
    c, v = sign * float(claim.evalf(30)), sign * best_value
    if not (math.isfinite(c) and math.isfinite(v) and c < v):
        return None
    c, v = Fraction(c), Fraction(v)  # exact from here: a float middle rounds onto a short decimal
    for digits in range(1, 13):  # the shortest decimal in [c + gap/16, c + gap/4]
        level = Fraction(math.ceil((c + (v - c) / 16) * 10**digits), 10**digits)
        if level <= c + (v - c) / 4 and _beyond(parsed, sign * level, claim):
            return sign * level
    return None


def _snapped_value(parsed, claim: sympy.Expr, best_value: float) -> Fraction | None:
    """The best value snapped to a short rational past the claim (the exact extremum, usually)."""
    for denominator in (12, 1000):
        level = Fraction(best_value).limit_denominator(denominator)
        if abs(float(level) - best_value) <= 1e-9 * (1 + abs(best_value)) and _beyond(parsed, level, claim):
            return level
    return None


def level_certificate(
    parsed, claim_text: str, best_value: float, witness: dict[str, float] | None, max_nodes: int = LEVEL_MAX_NODES
) -> tuple[dict | None, str]:
    """A certificate that no feasible point reaches a claim the search never approached: by scaling
    when the problem is homogeneous; else a level just past the claim and a proof that every
    feasible value is on the far side of it (an exact sum of squares, or branch and bound with the
    certificates' tests). (None, why not) when none closes within the counts."""

    certificate, why = scaling_certificate(parsed, claim_text)
    if certificate is not None:
        return certificate, why
    claim = parse_expression(claim_text, ())
    base = {"kind": "refutation", "sense": parsed.sense, "claim": claim_text, "verifier": VERIFIER}
    reasons = []
    level = _level(parsed, claim, best_value)
    approx = {k: float(v) for k, v in (witness or {}).items()}
    # sos at the level first (fast to fail): objective - level is strictly positive there, so the
    # SDP has an interior and its rounded Gram matrix stays positive definite
    if level is not None:
        certificate, why = _sos_at(parsed, base, level)
        if certificate is not None:
            return certificate, why
        reasons.append(f"sos at {level}: {why}")
        sign = min_form_sign(parsed.sense)
        try:
            # an equality in cos(x) or sqrt(...) is no polynomial to eliminate through: no plan, no proof
            plan = choose_plan(parsed, sympy.Rational(sign * level.numerator, level.denominator), approx)
            if plan is None:
                raise PlanError("no reduction plan (an equality could not be solved for one variable)")
            branches, target = _bound_branches(parsed, level, plan)
            trees = [
                bound.search(b, target, _reference(b, None, approx, plan) if approx else None, max_nodes=max_nodes)
                for b in branches
            ]
            certificate = {**base, "method": "bound", "level": str(level), "plan": plan, "trees": trees}
            ok, detail = verify_refutation(certificate, parsed)
            if ok:
                return {**certificate, "summary": detail}, detail
            reasons.append(f"bound: {detail}")
        except (PlanError, bound.BoundFailure, Unsupported, sympy.PolynomialError) as error:
            reasons.append(f"bound: {error}")
    # a snapped extremum of 0 (nonnegative forms, where only 0 itself is a level the identity can be exact at)
    snapped = _snapped_value(parsed, claim, best_value)
    if snapped == 0 and snapped != level:
        certificate, why = _sos_at(parsed, base, snapped)
        if certificate is not None:
            return certificate, why
        reasons.append(f"sos at 0: {why}")
    return None, "; ".join(reasons) or "no level between the claim and the best value"


def _sos_at(parsed, base: dict, level: Fraction) -> tuple[dict | None, str]:

    body, why = sos.attempt(_at_level(parsed, level), None)
    if body is None:
        return None, why
    certificate = {**base, "method": "sos", "level": str(level), "body": body}
    ok, detail = verify_refutation(certificate, parsed)
    return ({**certificate, "summary": detail}, detail) if ok else (None, detail)


# ---------------------------------------------------------------- homogeneous objectives on cones


def _verify_scaling(certificate: dict, parsed, claim: sympy.Expr) -> tuple[bool, str]:
    """method 'scaling': when inf f = m on a feasible set F with t*F = F for t > 0 and f(t*x) =
    t^d f(x), d != 0: m < 0 gives a point with f < 0, which scaling sends to -oo; m > 0 gives f > 0
    everywhere, which scaling sends towards 0 < m. So a nonzero finite claim is wrong (max alike)."""

    if sign(claim) in (0, None):
        return False, f"the claim {claim} is not shown to be nonzero"
    for s in parsed.symbols:
        if any(end is not None and end != 0 for end in (parsed.domains[s].lo, parsed.domains[s].hi)):
            return False, f"the domain of {s} is not closed under scaling (its ends must be 0 or infinite)"
    for lhs, op, rhs in parsed.constraints:
        if homogeneity_degree(lhs - rhs, parsed.symbols, polynomial_only=True) is None:
            return False, f"{lhs} {op} {rhs} is not a homogeneous relation"
    degree = homogeneity_degree(parsed.objective, parsed.symbols, polynomial_only=True)
    if degree is None or degree == 0 or certificate["degree"] != str(degree):
        return False, f"the objective is not homogeneous of degree {certificate['degree']} (nor of any degree but 0)"
    word = "minimum" if parsed.sense == "min" else "maximum"
    return True, (
        f"the objective is homogeneous of degree {degree} on a feasible set closed under x -> t*x "
        f"(t > 0), which multiplies it by t^{degree}: its {word} is 0 or infinite, never the claimed {claim}"
    )


def scaling_certificate(parsed, claim_text: str) -> tuple[dict | None, str]:
    """A 'scaling' certificate for a nonzero claim on a homogeneous problem, or (None, why not)."""
    degree = homogeneity_degree(parsed.objective, parsed.symbols, polynomial_only=True)
    if not degree:
        return None, "scaling: the objective is not homogeneous of a nonzero degree"
    certificate = {
        "kind": "refutation",
        "method": "scaling",
        "sense": parsed.sense,
        "claim": claim_text,
        "degree": str(degree),
        "verifier": VERIFIER,
    }
    ok, detail = verify_refutation(certificate, parsed)
    return ({**certificate, "summary": detail}, detail) if ok else (None, f"scaling: {detail}")


# ---------------------------------------------------------------- unbounded objectives

PATH_PARAMETER = "t"
MAX_PATH_DEGREE = 60  # numerator/denominator degrees along a path; keeps exact root counting small
PATH_STARTS = (1, 2, 10, 100, 1000, 10**6)  # t0 tried by the builder, smallest first


class _NotRational(ValueError):
    """An expression that is not a rational function of t with rational coefficients along the path."""


def _rational_function(expr: sympy.Expr, t: sympy.Symbol) -> tuple[sympy.Poly, sympy.Poly]:
    """(numerator, denominator) over QQ of expr, a rational function of t alone."""
    numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(expr)))
    try:
        top, bottom = sympy.Poly(numerator, t, domain="QQ"), sympy.Poly(denominator, t, domain="QQ")
    except (sympy.PolynomialError, sympy.CoercionFailed):
        raise _NotRational(f"{expr} is not a rational function of {t} with rational coefficients") from None
    if max(top.degree(), bottom.degree()) > MAX_PATH_DEGREE:
        raise _NotRational(f"{expr} has degree above {MAX_PATH_DEGREE} in {t}")
    return top, bottom


def _root_bound(poly: sympy.Poly) -> Fraction:
    """Cauchy's bound: every real root has |r| < 1 + max |a_i / a_n|."""
    coefficients = [Fraction(int(c.p), int(c.q)) for c in poly.all_coeffs()]
    return 1 + max((abs(c / coefficients[0]) for c in coefficients[1:]), default=Fraction(0))


def _sign_on_ray(poly: sympy.Poly, t0: Fraction) -> int:
    """+1 / -1 when the polynomial is of that sign at every t >= t0 (no real root in [t0, oo), decided
    by exact Sturm counting up to Cauchy's root bound), 0 when it is identically 0, None otherwise."""
    if poly.is_zero:
        return 0
    if poly.degree() == 0:
        return 1 if poly.LC() > 0 else -1
    top = max(_root_bound(poly), t0 + 1)
    if poly.count_roots(sympy.Rational(t0.numerator, t0.denominator), sympy.Rational(top.numerator, top.denominator)):
        return None
    return 1 if poly.LC() > 0 else -1


def _ray_sign(expr: sympy.Expr, t: sympy.Symbol, t0: Fraction) -> int | None:
    """The sign of a rational function of t on [t0, oo): proven +1 / -1 / 0 (identically), or None
    (undecided, or a pole on the ray)."""
    top, bottom = _rational_function(expr, t)
    below = _sign_on_ray(bottom, t0)
    if not below:
        return None
    above = _sign_on_ray(top, t0)
    return None if above is None else above * below


def _path(certificate: dict, parsed) -> tuple[sympy.Symbol, dict, Fraction]:

    names = [str(s) for s in parsed.symbols]
    if PATH_PARAMETER in names:
        raise ValueError(f"the path parameter {PATH_PARAMETER!r} is also a variable of the problem")
    t = sympy.Symbol(PATH_PARAMETER)
    texts = certificate["path"]
    if not isinstance(texts, dict) or set(texts) != set(names):
        raise ValueError(f"the path must give every variable ({', '.join(names)}) as a function of t, and nothing else")
    path = {}
    for s in parsed.symbols:
        text = texts[str(s)]
        if not isinstance(text, str) or len(text) > 2000:
            raise ValueError(f"the path of {s} is not a formula in t as text")
        path[s] = parse_expression(text, [PATH_PARAMETER]).xreplace({sympy.Symbol(PATH_PARAMETER): t})
    t0 = _fraction(certificate["t0"])
    return t, path, t0


def _verify_unbounded(certificate: dict, parsed, claim: sympy.Expr) -> tuple[bool, str]:
    """kind 'unbounded': for every t >= t0 the point path(t) is in every domain and satisfies every
    constraint (polynomial identities and exact sign facts on the ray, never samples), and the
    objective along the path is a rational function whose degree and leading coefficients make it
    tend to -oo (min) / +oo (max), so it passes any claim."""
    try:
        t, path, t0 = _path(certificate, parsed)
    except (ValueError, ExpressionError) as error:
        return False, f"path: {error}"
    try:
        for s in parsed.symbols:
            domain, x = parsed.domains[s], path[s]
            for end, is_open, side in ((domain.lo, domain.lo_open, 1), (domain.hi, domain.hi_open, -1)):
                if end is None:
                    continue
                if not end.is_Rational:
                    return False, f"{s}: only rational domain ends are decided along a path"
                k = _ray_sign(side * (x - end), t, t0)
                if k is None or k < 0 or (k == 0 and is_open):
                    return False, f"{s} = {x} is not proven inside its domain for every t >= {t0}"
            if _sign_on_ray(_rational_function(x, t)[1], t0) in (None, 0):
                return False, f"{s} = {x} has a pole for some t >= {t0}"
        for lhs, op, rhs in parsed.constraints:
            difference = (lhs - rhs if op in ("=", ">=", ">") else rhs - lhs).xreplace(path)
            k = _ray_sign(difference, t, t0)
            if op == "=" and k != 0:
                return False, f"{lhs} = {rhs} does not hold identically along the path"
            if op != "=" and (k is None or k < 0 or (k == 0 and op in (">", "<"))):
                return False, f"{lhs} {op} {rhs} is not proven for every t >= {t0}"
        top, bottom = _rational_function(parsed.objective.xreplace(path), t)
    except _NotRational as error:
        return False, str(error)
    if _sign_on_ray(bottom, t0) in (None, 0):
        return False, f"the objective has a pole along the path for some t >= {t0}"
    direction = (1 if top.LC() * bottom.LC() > 0 else -1) if not top.is_zero else 0
    if top.degree() <= bottom.degree() or direction != (-1 if parsed.sense == "min" else 1):
        word = "-oo" if parsed.sense == "min" else "+oo"
        return False, f"the objective along the path does not tend to {word}"
    growth = top.degree() - bottom.degree()
    word = "below" if parsed.sense == "min" else "above"
    return True, (
        f"exactly feasible for every t >= {t0}, and along it the objective is a rational function "
        f"growing like {'-' if direction < 0 else ''}c*t^{growth}: unbounded {word}, past the claimed {claim}"
    )


def _offset(domain, x1: float, x2: float) -> float:
    """The open or closed end a coordinate runs to along the far points (x -> 0+, x -> 1-), else 0."""
    for end in (domain.lo, domain.hi):
        if end is not None:
            e = float(end)
            if abs(x2 - e) <= 1e-3 * max(1.0, abs(e)) and abs(x2 - e) < abs(x1 - e):
                return e
    return 0.0


def _monomial_path(parsed, p1: dict[str, float], p2: dict[str, float]) -> dict | None:
    """x_i(t) = end_i + c_i t^{n_i}, exponents and coefficients fitted to two far points of the
    search's diverging path (log-linear in a common scale), snapped to small rationals; then each
    equality is solved exactly for one variable it is linear in."""
    t = sympy.Symbol(PATH_PARAMETER)
    offsets, logs = {}, {}
    for s in parsed.symbols:
        x1, x2 = p1[str(s)], p2[str(s)]
        off = _offset(parsed.domains[s], x1, x2)
        d1, d2 = x1 - off, x2 - off
        offsets[s] = off
        logs[s] = (math.log(abs(d2)) - math.log(abs(d1)), d2) if d1 * d2 > 0 else (0.0, d2)
    reference = max(parsed.symbols, key=lambda s: abs(logs[s][0]))
    rho = logs[reference][0]
    if abs(rho) < 1e-3:
        return None
    exponents = {s: Fraction(logs[s][0] / rho).limit_denominator(3) for s in parsed.symbols}
    q = math.lcm(*(e.denominator for e in exponents.values()))
    # the reference coordinate grows or shrinks like t^{+-q}: u = its log scale at the far point
    u = math.log(abs(logs[reference][1]))
    path = {}
    for s in parsed.symbols:
        n = int(exponents[s] * q) * (1 if rho > 0 else -1)
        d2 = logs[s][1]
        if d2 == 0 or not math.isfinite(d2):
            coefficient = Fraction(0)
        else:
            c = d2 / math.exp(exponents[s] * u)
            if not math.isfinite(c) or c == 0:
                return None
            coefficient = Fraction(c).limit_denominator(12)
        off = Fraction(offsets[s]).limit_denominator(10**6)
        path[s] = (
            sympy.Rational(off.numerator, off.denominator)
            + sympy.Rational(coefficient.numerator, coefficient.denominator) * t**n
        )
    # the variables that move the least along the path are solved for: a + b = 1 with a -> 0 gives b = 1 - a
    order = sorted(parsed.symbols, key=lambda s: (abs(exponents[s]), str(s)))
    return _solve_equalities_on_path(parsed, path, order)


def _solve_equalities_on_path(parsed, path: dict, order: list) -> dict | None:
    """Each equality solved exactly for one variable it is linear in (the others on the path), in
    the given order of preference; None when one cannot be solved that way."""
    solved = set()
    for lhs, op, rhs in parsed.constraints:
        if op != "=":
            continue
        g = lhs - rhs
        for v in (v for v in order if v in g.free_symbols and v not in solved):
            others = {s: e for s, e in path.items() if s != v}
            numerator = sympy.fraction(sympy.together(g.xreplace(others)))[0]
            try:
                poly = sympy.Poly(sympy.expand(numerator), v)
            except sympy.PolynomialError:
                continue
            if poly.degree() != 1:
                continue
            p, r = poly.all_coeffs()
            if p == 0:
                continue
            path[v] = sympy.cancel(-r / p)
            solved.add(v)
            break
        else:
            return None
    return path


def unbounded_certificate(parsed, claim_text: str, far_points: list[dict[str, float]]) -> tuple[dict | None, str]:
    """An `unbounded` certificate from float points along the search's diverging path (at least two,
    farthest last), or (None, why not). Bounded work: one fitted path, len(PATH_STARTS) starts."""
    if len(far_points) < 2:
        return None, "fewer than two far points to fit a path to"
    try:
        path = _monomial_path(parsed, far_points[-2], far_points[-1])
    except (ValueError, OverflowError, ZeroDivisionError, TypeError):
        path = None
    if path is None:
        return None, "no exact path was fitted to the diverging points"
    texts = {str(s): sympy.sstr(path[s]) for s in parsed.symbols}
    why = ""
    for t0 in PATH_STARTS:
        certificate = {
            "kind": "unbounded",
            "sense": parsed.sense,
            "claim": claim_text,
            "path": texts,
            "t0": str(t0),
            "verifier": VERIFIER,
        }
        ok, detail = verify_refutation(certificate, parsed)
        if ok:
            return {**certificate, "summary": detail}, detail
        why = detail
    return None, why
