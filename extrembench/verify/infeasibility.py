"""Exact proofs that a problem's feasible set is empty (issue 29).

The validator calls a set empty only with one of these arguments; when none applies it says
`inconclusive` (no feasible point found, emptiness not proven). Every argument works on the parsed
sympy expressions in exact arithmetic, on a relaxation of the set (a superset: a constraint the
argument cannot use is dropped, an irrational domain end is widened to a rational one), so a proof
for the relaxation is a proof for the set. Work is bounded by counts (variables, rows, degrees,
basis size), never by time.

1. linear: the linear constraints and the domains' ends have no common solution; a Farkas
   (Motzkin) certificate, rational multipliers whose sum of rows reads 0 >= c > 0 or 0 > 0,
   found by sympy's exact simplex and re-checked in Fractions (`farkas_holds`);
2. elimination: the polynomial equalities' lex Groebner basis holds a nonzero constant (no
   complex solution), a polynomial in one variable with no real root in that variable's domain
   (exact root count, Sturm), or a polynomial of constant sign (3) on the domains;
3. sign: one constraint alone is impossible because its difference of sides is a sum of squares,
   of even powers and of products of variables that are nonnegative on their domains, plus a
   constant of the wrong sign.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy
from sympy.solvers.simplex import InfeasibleLPError, UnboundedLPError, linprog

from extrembench.problems.problem import Domain, ParsedProblem

MAX_LINEAR_ROWS = 60  # rows of the Farkas LP (constraints + domain ends)
MAX_ELIMINATION_VARIABLES = 6
MAX_ELIMINATION_EQUATIONS = 6
MAX_ELIMINATION_DEGREE = 4  # per input equality, total degree
MAX_ELIMINATION_TERMS = 40  # per input equality
MAX_BASIS_TERMS = 400  # a larger basis is not searched for univariate elements
MAX_UNIVARIATE_DEGREE = 60  # root counting beyond this degree is skipped
BOUND_DENOMINATOR = 10**6  # an irrational domain end is widened to a multiple of 1 / this


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


@dataclass(frozen=True)
class Emptiness:
    """An exact argument that no point is feasible: its kind, the sentence a reader checks, and the
    data that sentence rests on (rows and multipliers, the implied polynomial, the constraint)."""

    kind: str  # 'linear' | 'elimination' | 'sign'
    reason: str
    detail: dict


# ---------------------------------------------------------------- shared pieces
def _differences(parsed: ParsedProblem) -> list[tuple[sympy.Expr, str, str]]:
    """Each constraint as (g, op, text) with g op 0 and op in '=', '>=', '>'."""
    out = []
    for lhs, op, rhs in parsed.constraints:
        text = f"{sympy.sstr(lhs)} {op} {sympy.sstr(rhs)}"
        if op in ("=", ">=", ">"):
            out.append((lhs - rhs, op, text))
        else:
            out.append((rhs - lhs, {"<=": ">=", "<": ">"}[op], text))
    return out


def _rational_poly(expr: sympy.Expr, symbols) -> sympy.Poly | None:
    """expr as a polynomial with rational coefficients in the problem's variables, or None."""
    try:
        poly = sympy.Poly(sympy.expand(expr), *symbols)
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, sympy.CoercionFailed):
        return None
    if not poly.domain.is_QQ and not poly.domain.is_ZZ:
        return None
    return poly


def _outer_rational(value: sympy.Expr, side: str) -> tuple[Fraction, bool] | None:
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


# ---------------------------------------------------------------- 1. linear (Farkas)
def linear_rows(parsed: ParsedProblem) -> list[Row]:
    """The linear constraints with rational coefficients and every domain end, as rows."""
    rows = []
    for g, op, text in _differences(parsed):
        poly = _rational_poly(g, parsed.symbols)
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
    for s in parsed.symbols:
        domain = parsed.domains[s]
        lower = None if domain.lo is None else _outer_rational(domain.lo, "lower")
        upper = None if domain.hi is None else _outer_rational(domain.hi, "upper")
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


def linear_emptiness(parsed: ParsedProblem) -> Emptiness | None:
    """A Farkas certificate that the linear rows have no common solution, or None."""
    rows = linear_rows(parsed)
    if not rows or len(rows) > MAX_LINEAR_ROWS or not any(r.op != "=" or r.constant for r in rows):
        return None
    names = sorted({v for r in rows for v, _ in r.coefficients})
    n = len(rows)

    # LP over the multipliers w: maximise sum(w_i c_i) + sum(strict w_i) with sum(w_i a_i) = 0,
    # sum(w_i c_i) >= 0, w in [-1, 1] on equalities and [0, 1] elsewhere, by sympy's exact simplex.
    # An equality's w is split as w+ - w- (columns n..): every LP variable is then >= 0, sympy's
    # default, and the upper ends are rows of A_ub (its `bounds` argument gave wrong optima here)
    equalities = [i for i, r in enumerate(rows) if r.op == "="]
    columns = [(i, 1) for i in range(n)] + [(i, -1) for i in equalities]
    width = len(columns)

    def weight(name: str | None, i: int, sign: int) -> sympy.Rational:
        row = rows[i]
        value = row.constant if name is None else dict(row.coefficients).get(name, Fraction(0))
        return sign * sympy.Rational(value.numerator, value.denominator)

    gain = [-(weight(None, i, sign) + (sign if rows[i].op == ">" else 0)) for i, sign in columns]
    a_ub = sympy.Matrix([[-weight(None, i, sign) for i, sign in columns]]).col_join(sympy.eye(width))
    b_ub = sympy.Matrix([0] + [1] * width)
    a_eq = sympy.Matrix([[weight(name, i, sign) for i, sign in columns] for name in names]) if names else None
    b_eq = sympy.zeros(len(names), 1) if names else None
    try:
        value, solution = linprog(sympy.Matrix([gain]), a_ub, b_ub, a_eq, b_eq)
    except (InfeasibleLPError, UnboundedLPError):
        return None
    if not value < 0:
        return None
    multipliers = [Fraction(0)] * n
    for (i, sign), x in zip(columns, solution):
        multipliers[i] += sign * Fraction(int(sympy.Rational(x).p), int(sympy.Rational(x).q))
    if not farkas_holds(rows, multipliers):
        return None
    used = [(w, r) for w, r in zip(multipliers, rows) if w != 0]
    constant = sum((w * r.constant for w, r in used), Fraction(0))
    strict = any(r.op == ">" for w, r in used)
    summed = f"0 {'>' if strict else '>='} {constant}"
    combination = " + ".join(f"{w}*({r.source})" for w, r in used)
    return Emptiness(
        "linear",
        f"feasible set is empty: the linear conditions contradict each other ({combination} sums to {summed}, "
        "which is false: a Farkas certificate)",
        {
            "rows": [r.text() for _, r in used],
            "multipliers": [str(w) for w, _ in used],
            "sum": summed,
        },
    )


# ---------------------------------------------------------------- 3. sign
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
    poly = _rational_poly(g, symbols)
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


def _impossible_sign(g: sympy.Expr, op: str, domains: dict, symbols) -> str | None:
    """Why g op 0 (op '=', '>=', '>') has no solution on the domains, or None."""
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


def sign_emptiness(parsed: ParsedProblem) -> Emptiness | None:
    """One constraint that no point of the domains satisfies, by the sign of its sides' difference."""
    for g, op, text in _differences(parsed):
        why = _impossible_sign(g, op, parsed.domains, parsed.symbols)
        if why is not None:
            return Emptiness(
                "sign", f"feasible set is empty: constraint {text} alone: {why}", {"constraint": text, "argument": why}
            )
    return None


# ---------------------------------------------------------------- 2. elimination (Groebner)
def _root_count(poly: sympy.Poly, domain: Domain) -> int | None:
    """Exact number of real roots of a univariate poly in the domain (None: cannot count)."""
    if poly.degree() > MAX_UNIVARIATE_DEGREE:
        return None
    ends = []
    for value, side, is_open in ((domain.lo, "lower", domain.lo_open), (domain.hi, "upper", domain.hi_open)):
        rational = None if value is None else _outer_rational(value, side)
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


def _interval_text(domain: Domain) -> str:
    lo = "-oo" if domain.lo is None else sympy.sstr(domain.lo)
    hi = "oo" if domain.hi is None else sympy.sstr(domain.hi)
    return f"{'(' if domain.lo_open else '['}{lo}, {hi}{')' if domain.hi_open else ']'}"


def elimination_emptiness(parsed: ParsedProblem) -> Emptiness | None:
    """The equalities' lex Groebner basis contains 1, a univariate polynomial without a real root
    in its variable's domain, or a polynomial of impossible sign on the domains."""
    polys = []
    texts = []
    for g, op, text in _differences(parsed):
        if op != "=":
            continue
        # p/q = 0 implies p = 0 wherever the constraint is defined
        numerator, _ = sympy.together(g).as_numer_denom()
        poly = _rational_poly(numerator, parsed.symbols)
        if poly is None or poly.is_zero:
            continue
        if poly.total_degree() > MAX_ELIMINATION_DEGREE or len(poly.terms()) > MAX_ELIMINATION_TERMS:
            continue
        polys.append(poly.as_expr())
        texts.append(text)
    if not polys or len(polys) > MAX_ELIMINATION_EQUATIONS:
        return None
    gens = [s for s in parsed.symbols if any(p.has(s) for p in polys)]
    if not gens or len(gens) > MAX_ELIMINATION_VARIABLES:
        return None
    basis = sympy.groebner(polys, *gens, order="lex")
    if sum(len(g.terms()) for g in basis.polys) > MAX_BASIS_TERMS:
        return None
    given = "; ".join(texts)
    for element in basis.polys:
        expr = element.as_expr()
        if element.is_ground:
            return Emptiness(
                "elimination",
                f"feasible set is empty: the equalities {given} have no common solution, not even a complex "
                f"one (their Groebner basis is {{{expr}}})",
                {"equalities": texts, "basis": [str(expr)]},
            )
        used = [s for s in gens if element.degree(s) > 0]
        if len(used) == 1:
            s = used[0]
            count = _root_count(sympy.Poly(expr, s), parsed.domains[s])
            if count == 0:
                return Emptiness(
                    "elimination",
                    f"feasible set is empty: the equalities imply {sympy.sstr(expr)} = 0, which has no real root "
                    f"with {s} in {_interval_text(parsed.domains[s])}",
                    {"equalities": texts, "implied": str(expr), "variable": str(s)},
                )
        why = _impossible_sign(expr, "=", parsed.domains, parsed.symbols)
        if why is not None:
            return Emptiness(
                "elimination",
                f"feasible set is empty: the equalities imply {sympy.sstr(expr)} = 0, and {why}",
                {"equalities": texts, "implied": str(expr), "argument": why},
            )
    return None


def prove_empty(parsed: ParsedProblem) -> Emptiness | None:
    """The first exact argument that the feasible set is empty (linear, sign, elimination), or None."""
    for argument in (linear_emptiness, sign_emptiness, elimination_emptiness):
        found = argument(parsed)
        if found is not None:
            return found
    return None
