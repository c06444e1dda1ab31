"""Refutation certificates: why a claimed extremum is wrong, in data anyone can re-check without search.

A certificate is a JSON-serialisable dict. `verify_refutation(certificate, spec)` re-checks it from
the certificate and the problem alone (the builders are extrembench.verify.provers.refutation's). Kinds:

- "refutation", method "witness": an exactly feasible point (rational coordinates, and at most one
  real algebraic coordinate given as a root of an integer polynomial inside a rational interval
  where the polynomial changes sign) at which every domain, equality and inequality holds exactly,
  and a rigorous interval enclosure of the objective that lies beyond the claim by a positive margin.
  Equalities are decided exactly: rational arithmetic, or for the algebraic coordinate divisibility of
  the constraint's numerator by the root's polynomial. Inequalities and the objective are enclosed
  with outward-rounded interval arithmetic (mpmath.iv), never with floats.

- "refutation", method "bound" | "sos": a rational `level` strictly past the claim, and a proof that
  every feasible objective value lies on the far side of it (min: >= level): an interval branch and
  bound of extrembench.verify.checker.bound (`plan`, `trees`), or an exact sum-of-squares identity
  for objective - level (`body`, as in extrembench.verify.checker.sos). No feasible point reaches the claim.
- "refutation", method "scaling": the objective is a ratio of homogeneous polynomials of total degree
  `degree` != 0, every constraint a homogeneous relation and every domain end 0 or infinite, so
  x -> t*x (t > 0) keeps points feasible and multiplies the objective by t^degree: the extremum is
  0 or infinite, never the claimed nonzero number. All decided exactly on monomials.
- "unbounded": an exact feasible path, each variable a rational function of t with rational
  coefficients (`path`), feasible for every t >= `t0` (constraints identically or with a proven
  sign on the ray: exact Sturm root counting, never samples), along which the objective is a
  rational function tending to -oo (min) / +oo (max). Any finite claim is passed.

Interval arithmetic is mpmath's, through the strict mode of extrembench.verify.checker.interval.
enclose_mp: every operation rounds outward, so an enclosure always contains the true value. A certificate that cannot be decided this way does not verify.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy
from mpmath.libmp import to_str

from extrembench.problems.expr import ExpressionError, parse_expression
from extrembench.problems.problem import (
    ParsedProblem,
    Problem,
    canonical_problem,
    min_form_sign,
    parse_problem,
    problem_from_dict,
)
from extrembench.verify.checker.bound import replay_plan
from extrembench.verify.checker.document import route_of
from extrembench.verify.checker.interval import (
    Undefined,
    ctx,
    enclose_mp,
    precision,
)
from extrembench.verify.checker.interval import point as interval_point
from extrembench.verify.checker.reduce import homogeneity_degree
from extrembench.verify.checker.sos import verify as verify_sos
from extrembench.verify.checker.witness import sign

PRECISION_BITS = 200  # working precision of the enclosures


ROOT_WIDTH = Fraction(1, 2**190)  # isolating interval of an algebraic coordinate, refined to this width


def _rational(value: Fraction | sympy.Rational) -> Any:
    return ctx.mpf(int(value.numerator)) / int(value.denominator)


def enclose(expr: sympy.Basic, box: dict) -> Any:
    """An interval containing every value of expr over the box (symbol -> ctx interval); Undefined
    unless the expression is provably defined and real on the whole box."""
    return enclose_mp(expr, PRECISION_BITS, box, strict=True)


def _text(x: Any) -> list[str]:
    """The interval's ends as decimal text (for people; the verifier recomputes, never reads these)."""
    return [to_str(x._mpi_[0], 17), to_str(x._mpi_[1], 17)]


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
        from extrembench.verify.checker.witness import is_zero  # closed forms: cancellation, minimal polynomial

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


def _parsed(spec: Any, claim: str):
    """ParsedProblem of a spec given as a Problem, a ParsedProblem or a spec dict (spec_json form)."""

    if isinstance(spec, ParsedProblem):
        return spec  # the checker's own, already in canonical order
    if not isinstance(spec, Problem):
        data = {k: spec[k] for k in ("sense", "variables", "constraints", "objective") if k in spec}
        data.update(id=str(spec.get("id", "spec")), answer=str(spec.get("answer", claim)))
        spec = problem_from_dict(data)
    # the check refutes the canonical order and a certificate's identity names constraints and
    # variables by position: a reader's file in its own order must verify the same
    return parse_problem(canonical_problem(spec))


def verify_refutation(certificate: dict, spec: Any) -> tuple[bool, str]:
    """(True, summary) when the certificate proves the claim wrong for this problem, else (False, why).

    Nothing is searched: the point is read from the certificate, its exact feasibility decided and
    the objective enclosed there."""
    try:
        route = route_of(certificate) if isinstance(certificate, dict) else None
        if not isinstance(certificate, dict) or certificate.get("kind") not in ("refutation", "unbounded"):
            return False, "not a refutation certificate (kind must be 'refutation' or 'unbounded')"
        if route not in CHECKS:
            method = certificate.get("method")
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
        return CHECKS[route](certificate, parsed, claim)
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
    word = "below" if parsed.sense == "min" else "above"
    try:
        value = enclose(parsed.objective, box)
    except Undefined as error:
        return False, f"objective: {error}"
    with precision(PRECISION_BITS):
        bound = enclose(claim, {})
        margin = bound.a - value.b if parsed.sense == "min" else value.a - bound.b
    if not margin > 0 and _magnitude_bits(claim):
        # enough bits for the claim's magnitude: a gap of 1 at 10^20 is below the default's resolution
        with precision(PRECISION_BITS + _magnitude_bits(claim)):
            value, bound = enclose(parsed.objective, box), enclose(claim, {})
            margin = bound.a - value.b if parsed.sense == "min" else value.a - bound.b
    if not margin > 0:
        exact_value = _rational_value(parsed, certificate["point"])
        if exact_value is None or not claim.is_Rational:
            return False, f"the objective's enclosure {_text(value)} does not beat the claim {claim}"
        # a rational objective at a rational point, compared exactly: a claim off by 1 at 10^308 is
        # refuted as surely as one off by a lot, and one it does not beat is not
        gap = min_form_sign(parsed.sense) * (claim - exact_value)
        if not gap > 0:
            return False, f"the objective's exact value {exact_value} does not beat the claim {claim}"
        return True, f"exactly feasible point; objective exactly {exact_value}, {word} the claimed {claim} by {gap}"
    return True, (
        f"exactly feasible point; objective in [{_text(value)[0]}, {_text(value)[1]}], {word} the "
        f"claimed {claim} by more than {to_str(margin._mpi_[0], 3)}"
    )


def _rational_value(parsed, point: dict):
    """The objective's exact value at a point of rational coordinates when it is rational (a
    polynomial or rational function), else None. Bounded: only short rational texts are read."""
    if not all(isinstance(v, str) and _is_rational_text(v) for v in point.values()):
        return None
    values = {
        s: sympy.Rational(_fraction(point[str(s)]).numerator, _fraction(point[str(s)]).denominator)
        for s in parsed.symbols
    }
    if not (
        parsed.objective.is_rational_function(*parsed.symbols) and parsed.objective.free_symbols <= set(parsed.symbols)
    ):
        return None
    try:
        value = parsed.objective.xreplace(values)
    except (ZeroDivisionError, ValueError):
        return None
    return value if value.is_Rational else None


def _magnitude_bits(claim: sympy.Expr) -> int:
    """Bits of the claim's integer part (0 for |claim| <= 1), capped: 10^308 needs 1024 more."""
    try:
        size = abs(float(claim.evalf(20)))
    except (TypeError, ValueError, OverflowError):
        return 0
    if not math.isfinite(size):
        return 4096
    return min(4096, max(0, math.ceil(math.log2(1 + size))))


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


def beyond_level(parsed, level: Fraction, claim: sympy.Expr) -> bool:
    """The level lies strictly between the claim and the feasible values, i.e. past the claim in the
    direction no feasible point reaches (min: level > claim), decided exactly."""

    gap = sympy.Rational(level.numerator, level.denominator) - claim
    return sign(min_form_sign(parsed.sense) * gap) == 1


def at_level(parsed, level: Fraction):
    """The problem with its answer replaced by the level (what the sos identity is about)."""

    return replace(parsed, answer=sympy.Rational(level.numerator, level.denominator))


def _verify_level(certificate: dict, parsed, claim: sympy.Expr) -> tuple[bool, str]:
    """method 'bound' | 'sos': every feasible objective value is proven >= level (min form), and the
    level is strictly past the claim, so no feasible point reaches the claim."""

    level = _fraction(certificate["level"])
    if not beyond_level(parsed, level, claim):
        return False, f"the level {level} is not strictly past the claim {claim}"
    word = "at least" if parsed.sense == "min" else "at most"
    if certificate["method"] == "sos":
        ok, detail = verify_sos({"body": certificate["body"]}, at_level(parsed, level), Fraction(0))
        if not ok:
            return False, detail
        return True, f"every feasible value is {word} {level}, past the claim {claim} ({detail.split(';')[0]})"
    signed = min_form_sign(parsed.sense) * level
    failure, boxes = replay_plan(
        parsed,
        sympy.Rational(signed.numerator, signed.denominator),
        interval_point(signed),
        list(certificate["plan"]),
        certificate["trees"],
        certificate.get("variables"),
    )
    if failure:
        return False, failure
    return True, (
        f"interval branch and bound over {boxes} boxes proves every feasible value is {word} {level}, "
        f"strictly past the claimed {claim}"
    )


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


PATH_PARAMETER = "t"


MAX_PATH_DEGREE = 60  # numerator/denominator degrees along a path; keeps exact root counting small


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


# route (extrembench.verify.checker.document.ROUTES) -> its check, given (certificate, problem, claim)
CHECKS = {
    "refutation witness": _verify_witness,
    "refutation bound": _verify_level,
    "refutation sos": _verify_level,
    "refutation scaling": _verify_scaling,
    "unbounded": _verify_unbounded,
}
