"""The trusted check of an `empty` certificate: the exact argument behind an `invalid` verdict (no
feasible point), re-checked from the problem's own variables and constraints without any search
(extrembench.verify.provers.empty finds the arguments; this module only reads and checks them).

    {"kind": "empty", "method": "linear" | "sign" | "elimination", "verifier": "1",
     "spec": {"variables": ..., "constraints": [...]}, ...the method's data..., "summary": "..."}

- linear: `rows` (indices into linear_rows of the spec: its linear constraints, then its domain
  ends) and rational `multipliers` whose weighted sum reads 0 >= c > 0 or 0 > 0 (farkas_holds);
- sign: `constraint` (an index into the constraints) alone impossible by the form of its difference
  of sides or, for a quadratic, a definite Gram matrix (impossible_sign, definite_quadratic);
- elimination: `equalities` (indices), a polynomial `implied` that lies in the ideal of their
  numerators (decided exactly: a lex Groebner basis reduces it to 0), and why `implied = 0` has no
  solution: a nonzero `constant`, `no-root` of `variable` in its domain (exact Sturm count), or
  `sign` (impossible_sign).

Each argument works on a relaxation of the set (constraints it cannot use dropped, an irrational
domain end widened to a rational one), so a proof for the relaxation is a proof for the set.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import Domain, ParsedProblem, parse_problem, problem_from_dict

VERIFIER = "1"
MAX_UNIVARIATE_DEGREE = 60  # root counting beyond this degree is skipped
BOUND_DENOMINATOR = 10**6  # an irrational domain end is widened to a multiple of 1 / this
MAX_CHECK_TERMS = 400  # an implied polynomial or basis larger than this is refused unread
MAX_QUADRATIC_VARIABLES = 12  # the Gram matrix of a definite quadratic is at most 13 x 13


@dataclass(frozen=True)
class Row:
    """One linear condition sum(coefficients[v] * v) op constant, op one of '=', '>=', '>'."""

    coefficients: tuple[tuple[str, Fraction], ...]
    op: str
    constant: Fraction
    source: str  # what it comes from, as a reader finds it in the file

    def text(self) -> str:
        terms = sympy.Add(*(sympy.Rational(c.numerator, c.denominator) * sympy.Symbol(v) for v, c in self.coefficients))
        return f"{sympy.sstr(terms)} {self.op} {self.constant}"


def differences(parsed: ParsedProblem) -> list[tuple[sympy.Expr, str, str]]:
    """Each constraint as (g, op, text) with g op 0 and op in '=', '>=', '>'."""
    out = []
    for lhs, op, rhs in parsed.constraints:
        text = f"{sympy.sstr(lhs)} {op} {sympy.sstr(rhs)}"
        if op in ("=", ">=", ">"):
            out.append((lhs - rhs, op, text))
        else:
            out.append((rhs - lhs, {"<=": ">=", "<": ">"}[op], text))
    return out


def rational_poly(expr: sympy.Expr, symbols) -> sympy.Poly | None:
    """expr as a polynomial with rational coefficients in the problem's variables, or None."""
    try:
        poly = sympy.Poly(sympy.expand(expr), *symbols)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, sympy.CoercionFailed):
        return None
    if not poly.domain.is_QQ and not poly.domain.is_ZZ:
        return None
    return poly


def outer_rational(value: sympy.Expr, side: str) -> tuple[Fraction, bool] | None:
    """A rational end at or outside `value` (lower: <=, upper: >=), and whether it is `value` itself;
    None when sympy cannot round the constant (the end is then dropped: a wider set, still sound)."""
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q)), True
    scaled = value * BOUND_DENOMINATOR
    whole = sympy.floor(scaled) if side == "lower" else sympy.ceiling(scaled)
    if not whole.is_Integer:
        return None
    # one more step outward, so the end stays outside even if the rounding were off by one
    step = Fraction(1, BOUND_DENOMINATOR)
    end = Fraction(int(whole), BOUND_DENOMINATOR)
    return (end - step if side == "lower" else end + step), False


def _nonnegative_variable(domain: Domain) -> bool:
    return domain.lo is not None and bool(domain.lo >= 0)


def linear_rows(parsed: ParsedProblem) -> list[Row]:
    """The linear constraints with rational coefficients and every domain end, as rows."""
    rows = []
    for g, op, text in differences(parsed):
        poly = rational_poly(g, parsed.symbols)
        if poly is None or poly.total_degree() > 1:
            continue
        coefficients = []
        constant = Fraction(0)
        for monom, coeff in poly.terms():
            value = Fraction(int(coeff.p), int(coeff.q))
            if sum(monom) == 0:
                constant = value
            else:
                coefficients.append((str(parsed.symbols[monom.index(1)]), value))
        rows.append(Row(tuple(sorted(coefficients)), op, -constant, text))
    # domain ends by variable name: a certificate's row indices must not depend on the order the
    # variables are listed in (a Parquet row's spec has sorted keys)
    for s in sorted(parsed.symbols, key=str):
        domain = parsed.domains[s]
        lower = None if domain.lo is None else outer_rational(domain.lo, "lower")
        upper = None if domain.hi is None else outer_rational(domain.hi, "upper")
        if lower is not None:
            end, exact = lower
            op = ">" if exact and domain.lo_open else ">="
            rows.append(Row(((str(s), Fraction(1)),), op, end, f"{s} {op} {end} (domain)"))
        if upper is not None:
            end, exact = upper
            op = ">" if exact and domain.hi_open else ">="
            rows.append(Row(((str(s), Fraction(-1)),), op, -end, f"{s} {'<' if op == '>' else '<='} {end} (domain)"))
    return rows


def farkas_holds(rows: list[Row], multipliers: list[Fraction]) -> bool:
    """The trusted check: multipliers (free on '=', >= 0 on '>=' and '>') whose weighted sum of
    rows has every coefficient 0 and reads 0 >= c with c > 0, or 0 > 0 (some strict row weighted)."""
    if len(rows) != len(multipliers):
        return False
    total: dict[str, Fraction] = {}
    constant = Fraction(0)
    strict = False
    for row, w in zip(rows, multipliers):
        if row.op != "=" and w < 0:
            return False
        for v, c in row.coefficients:
            total[v] = total.get(v, Fraction(0)) + w * c
        constant += w * row.constant
        strict = strict or (row.op == ">" and w > 0)
    if any(c != 0 for c in total.values()):
        return False
    return constant > 0 or (constant == 0 and strict)


def _sign_free_part(expr: sympy.Expr, domains: dict) -> bool:
    """True when expr >= 0 wherever it is defined on the domains, by its form alone: a nonnegative
    number, a nonnegative variable, an even power of a real expression, a product or sum of such,
    a power of a nonnegative base."""
    if expr.is_Number:
        return bool(expr >= 0)
    if expr.is_Symbol:
        return expr in domains and _nonnegative_variable(domains[expr])
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_Integer and exponent % 2 == 0 and _real_polynomial_form(base, domains):
            return True
        return bool(exponent.is_Rational) and _sign_free_part(base, domains)
    if expr.is_Mul or expr.is_Add:
        return all(_sign_free_part(a, domains) for a in expr.args)
    return False


def _real_polynomial_form(expr: sympy.Expr, domains: dict) -> bool:
    """Real-valued wherever defined: built from variables and rationals by +, *, integer powers."""
    if expr.is_Rational or (expr.is_Symbol and expr in domains):
        return True
    if expr.is_Pow:
        return bool(expr.args[1].is_Integer) and _real_polynomial_form(expr.args[0], domains)
    if expr.is_Add or expr.is_Mul:
        return all(_real_polynomial_form(a, domains) for a in expr.args)
    return False


def _lower_bound(g: sympy.Expr, domains: dict, symbols) -> tuple[sympy.Rational, sympy.Expr] | None:
    """(c, rest) with g = rest + c and rest >= 0 wherever g is defined on the domains, by form: as
    written, or expanded (positive coefficients on monomials whose odd powers are of nonnegative
    variables)."""
    constant, rest = g.as_coeff_Add()
    if constant.is_Rational and _sign_free_part(rest, domains):
        return constant, rest
    poly = rational_poly(g, symbols)
    if poly is None:
        return None
    for monom, coeff in poly.terms():
        if sum(monom) == 0:
            continue
        if coeff < 0:
            return None
        for s, power in zip(symbols, monom):
            if power % 2 and not _nonnegative_variable(domains[s]):
                return None
    c0 = poly.coeff_monomial(1)
    return c0, sympy.expand(g) - c0


_NONNEGATIVE_FORM = "a sum of squares, even powers and products of nonnegative variables"


def definite_quadratic(g: sympy.Expr, symbols) -> tuple[int, str] | None:
    """(sign, why) when g is a quadratic polynomial of one strict sign on all of R^n, else None.
    The classical argument (issue 35: x + y + z = 3 with x^2 + y^2 + z^2 = 2 is empty because
    3(x^2 + y^2 + z^2) >= (x + y + z)^2): g = w^T M w with w = (the variables, 1) and M symmetric
    rational; if every leading principal minor of sign * M is > 0 (Sylvester), M is definite, and
    since w != 0 (its last entry is 1), sign * g > 0 everywhere. Exact determinants, no search."""
    poly = rational_poly(g, symbols)
    if poly is None or poly.total_degree() != 2:
        return None
    used = [i for i, s in enumerate(symbols) if poly.degree(s) > 0]
    if len(used) > MAX_QUADRATIC_VARIABLES:
        return None
    n = len(used)
    gram = sympy.zeros(n + 1, n + 1)
    for monom, coeff in poly.terms():
        at = [used.index(i) for i, power in enumerate(monom) for _ in range(power)] + [n, n]
        i, j = at[0], at[1]  # x_i * x_j, x_i * 1 or 1 * 1 (padded with the constant's slot)
        if i == j:
            gram[i, i] += coeff
        else:
            gram[i, j] += sympy.Rational(coeff, 2)
            gram[j, i] += sympy.Rational(coeff, 2)
    for sign in (1, -1):
        if all((sign * gram[:k, :k]).det(method="bareiss") > 0 for k in range(1, n + 2)):
            names = ", ".join(str(symbols[i]) for i in used)
            kind = "positive" if sign > 0 else "negative"
            return sign, (
                f"{sympy.sstr(g)} is a {kind} definite quadratic form in ({names}, 1) (every leading principal "
                f"minor of {'its' if sign > 0 else 'minus its'} Gram matrix is > 0), so it is {'> 0' if sign > 0 else '< 0'} "
                "everywhere"
            )
    return None


def impossible_sign(g: sympy.Expr, op: str, domains: dict, symbols) -> str | None:
    """Why g op 0 (op '=', '>=', '>') has no solution on the domains, or None."""
    definite = definite_quadratic(g, symbols)
    if definite is not None and (op == "=" or definite[0] < 0):
        return definite[1]
    below = _lower_bound(g, domains, symbols)
    if below is not None and op == "=" and below[0] > 0:  # g >= c > 0
        c, rest = below
        return f"{sympy.sstr(g)} = ({sympy.sstr(rest)}) + {c} >= {c} > 0, the first part {_NONNEGATIVE_FORM}"
    above = _lower_bound(-g, domains, symbols)
    if above is not None:  # g = -rest - c <= -c
        c, rest = above
        if (op in ("=", ">=") and c > 0) or (op == ">" and c >= 0):
            return (
                f"{sympy.sstr(g)} = -({sympy.sstr(rest)}) - {c} <= {-c}, {'<' if c > 0 else '='} 0 "
                f"(the part in parentheses {_NONNEGATIVE_FORM})"
            )
    return None


def root_count(poly: sympy.Poly, domain: Domain) -> int | None:
    """Exact number of real roots of a univariate poly in the domain (None: cannot count)."""
    if poly.degree() > MAX_UNIVARIATE_DEGREE:
        return None
    ends = []
    for value, side, is_open in ((domain.lo, "lower", domain.lo_open), (domain.hi, "upper", domain.hi_open)):
        rational = None if value is None else outer_rational(value, side)
        if rational is None:
            ends.append((None, False))
            continue
        end, exact = rational
        ends.append((sympy.Rational(end.numerator, end.denominator), exact and is_open))
    (lo, lo_open), (hi, hi_open) = ends
    count = poly.count_roots(lo, hi)  # roots in the closed interval, by Sturm sequences
    for end, is_open in ((lo, lo_open), (hi, hi_open)):
        if end is not None and is_open and poly.eval(end) == 0:
            count -= 1
    return count


def interval_text(domain: Domain) -> str:
    lo = "-oo" if domain.lo is None else sympy.sstr(domain.lo)
    hi = "oo" if domain.hi is None else sympy.sstr(domain.hi)
    return f"{'(' if domain.lo_open else '['}{lo}, {hi}{')' if domain.hi_open else ']'}"


def equality_polynomial(g: sympy.Expr, symbols) -> sympy.Poly | None:
    """The numerator of an equality's difference of sides as a rational polynomial (p/q = 0 implies
    p = 0 wherever the constraint is defined), or None."""
    numerator, _ = sympy.together(g).as_numer_denom()
    poly = rational_poly(numerator, symbols)
    return None if poly is None or poly.is_zero else poly


# ---------------------------------------------------------------- the check
def _parsed(spec: Any) -> ParsedProblem:
    if isinstance(spec, ParsedProblem):
        return spec
    data = {"id": "spec", "sense": "min", "objective": "0", "answer": "0"}
    data.update(variables=spec["variables"], constraints=list(spec.get("constraints") or []))
    return parse_problem(problem_from_dict(data))


def _check_linear(certificate: dict, parsed: ParsedProblem) -> tuple[bool, str]:
    rows = linear_rows(parsed)
    indices = [int(i) for i in certificate["rows"]]
    multipliers = [Fraction(str(m)) for m in certificate["multipliers"]]
    if not indices or any(not 0 <= i < len(rows) for i in indices) or len(set(indices)) != len(indices):
        return False, "linear: the row indices do not name distinct rows of the problem's linear conditions"
    if not farkas_holds([rows[i] for i in indices], multipliers):
        return False, "linear: the weighted sum of the rows is not a contradiction (Farkas check failed)"
    combination = " + ".join(f"{w}*({rows[i].source})" for i, w in zip(indices, multipliers))
    return True, f"empty: {combination} is a contradiction (Farkas certificate)"


def _check_sign(certificate: dict, parsed: ParsedProblem) -> tuple[bool, str]:
    constraints = differences(parsed)
    index = int(certificate["constraint"])
    if not 0 <= index < len(constraints):
        return False, f"sign: no constraint {index}"
    g, op, text = constraints[index]
    why = impossible_sign(g, op, parsed.domains, parsed.symbols)
    if why is None:
        return False, f"sign: constraint {text} is not impossible by the form of its sides"
    return True, f"empty: constraint {text} alone: {why}"


def _check_elimination(certificate: dict, parsed: ParsedProblem) -> tuple[bool, str]:
    constraints = differences(parsed)
    indices = [int(i) for i in certificate["equalities"]]
    if not indices or any(not 0 <= i < len(constraints) or constraints[i][1] != "=" for i in indices):
        return False, "elimination: the indices do not name equality constraints"
    polys = [equality_polynomial(constraints[i][0], parsed.symbols) for i in indices]
    if any(p is None for p in polys):
        return False, "elimination: an equality named is not a rational polynomial equation"
    names = {str(s): s for s in parsed.symbols}
    implied = parse_expression(str(certificate["implied"]), tuple(names))
    implied_poly = rational_poly(implied, parsed.symbols)
    if implied_poly is None or len(implied_poly.terms()) > MAX_CHECK_TERMS:
        return False, "elimination: the implied polynomial is not a small rational polynomial"
    gens = [s for s in parsed.symbols if any(p.as_expr().has(s) for p in polys)]
    if not gens or not set(implied.free_symbols) <= set(gens):
        return False, "elimination: the implied polynomial uses a variable the equalities do not"
    basis = sympy.groebner([p.as_expr() for p in polys], *gens, order="lex")
    if sum(len(p.terms()) for p in basis.polys) > MAX_CHECK_TERMS or not basis.contains(implied):
        return False, "elimination: the implied polynomial is not in the ideal of the equalities"
    argument = certificate["argument"]
    if argument == "constant":
        ok = implied.is_Rational and implied != 0
        why = f"the equalities imply {implied} = 0"
    elif argument == "no-root":
        s = names.get(str(certificate.get("variable")))
        ok = (
            s is not None and implied.free_symbols <= {s} and root_count(sympy.Poly(implied, s), parsed.domains[s]) == 0
        )
        why = f"the equalities imply {sympy.sstr(implied)} = 0, with no real root for {s} in its domain"
    elif argument == "sign":
        reason = impossible_sign(implied, "=", parsed.domains, parsed.symbols)
        ok, why = reason is not None, f"the equalities imply {sympy.sstr(implied)} = 0, and {reason}"
    else:
        return False, f"elimination: unknown argument {argument!r}"
    return (True, f"empty: {why}") if ok else (False, f"elimination: the {argument} argument does not hold")


CHECKS = {"linear": _check_linear, "sign": _check_sign, "elimination": _check_elimination}


def verify_empty(certificate: dict, spec: Any = None) -> tuple[bool, str]:
    """(True, summary) when the certificate proves that the problem has no feasible point, else
    (False, why). `spec` (variables and constraints; None: the certificate's own) is the problem it
    must be about."""
    try:
        if certificate.get("kind") != "empty" or certificate.get("method") not in CHECKS:
            return False, f"not an empty-set certificate of a known method ({', '.join(CHECKS)})"
        if certificate.get("verifier") != VERIFIER:
            return False, f"empty: verifier version {certificate.get('verifier')!r} is not {VERIFIER}"
        embedded = certificate["spec"]
        if spec is not None:
            given = spec if isinstance(spec, dict) else None
            if given is not None and (
                given.get("variables") != embedded["variables"]
                or list(given.get("constraints") or []) != list(embedded["constraints"])
            ):
                return False, "empty: the certificate is about other variables or constraints than this problem"
        parsed = _parsed(spec if isinstance(spec, ParsedProblem) else embedded)
        return CHECKS[certificate["method"]](certificate, parsed)
    except (KeyError, TypeError, ValueError, ArithmeticError, sympy.PolynomialError) as error:
        return False, f"empty: malformed certificate: {type(error).__name__}: {error}"
