"""Exact proofs that a problem's feasible set is empty (issue 29).

The validator calls a set empty only with one of these arguments; when none applies it says
`inconclusive` (no feasible point found, emptiness not proven). Every argument works on the parsed
sympy expressions in exact arithmetic, on a relaxation of the set (a superset: a constraint the
argument cannot use is dropped, an irrational domain end is widened to a rational one), so a proof
for the relaxation is a proof for the set. Work is bounded by counts (variables, rows, degrees,
basis size), never by time. Each argument becomes an `empty` certificate
(`Emptiness.certificate`) that the trusted checker (extrembench.verify.checker.empty,
which also holds the shared row, sign and root-count rules) re-checks without search.

1. linear: the linear constraints and the domains' ends have no common solution; a Farkas
   (Motzkin) certificate, rational multipliers whose sum of rows reads 0 >= c > 0 or 0 > 0,
   found by sympy's exact simplex and re-checked in Fractions (`checker.empty.farkas_holds`);
2. elimination: the polynomial equalities' lex Groebner basis holds a nonzero constant (no
   complex solution), a polynomial in one variable with no real root in that variable's domain
   (exact root count, Sturm), or a polynomial of constant sign (3) on the domains;
3. sign: one constraint alone is impossible because its difference of sides is a sum of squares,
   of even powers and of products of variables that are nonnegative on their domains, plus a
   constant of the wrong sign, or a quadratic with a definite Gram matrix (`definite_quadratic`:
   the classical argument, e.g. 3(x^2 + y^2 + z^2) >= (x + y + z)^2 after eliminating x).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy
from sympy.solvers.simplex import InfeasibleLPError, UnboundedLPError, linprog

from extrembench.problems.problem import ParsedProblem
from extrembench.verify.checker.empty import (
    VERIFIER,
    differences,
    equality_polynomial,
    farkas_holds,
    impossible_sign,
    interval_text,
    linear_rows,
    root_count,
)

MAX_LINEAR_ROWS = 60  # rows of the Farkas LP (constraints + domain ends)
MAX_ELIMINATION_VARIABLES = 6
MAX_ELIMINATION_EQUATIONS = 6
MAX_ELIMINATION_DEGREE = 4  # per input equality, total degree
MAX_ELIMINATION_TERMS = 40  # per input equality
MAX_BASIS_TERMS = 400  # a larger basis is not searched for univariate elements


@dataclass(frozen=True)
class Emptiness:
    """An exact argument that no point is feasible: its kind, the sentence a reader checks, and the
    data that sentence rests on (rows and multipliers, the implied polynomial, the constraint)."""

    kind: str  # 'linear' | 'elimination' | 'sign'
    reason: str
    detail: dict
    proof: dict  # what extrembench.verify.checker.empty re-checks: indices into the problem's rows

    def certificate(self, spec: dict) -> dict:
        """The `empty` certificate of this argument for the problem (spec: its variables and
        constraints as the file states them)."""
        return {
            "kind": "empty",
            "method": self.kind,
            "verifier": VERIFIER,
            "spec": {"variables": spec["variables"], "constraints": list(spec["constraints"])},
            **self.proof,
            "summary": self.reason,
        }


# ---------------------------------------------------------------- 1. linear (Farkas)
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
        {
            "rows": [i for i, w in enumerate(multipliers) if w != 0],
            "multipliers": [str(w) for w in multipliers if w != 0],
        },
    )


def sign_emptiness(parsed: ParsedProblem) -> Emptiness | None:
    """One constraint that no point of the domains satisfies, by the sign of its sides' difference."""
    for index, (g, op, text) in enumerate(differences(parsed)):
        why = impossible_sign(g, op, parsed.domains, parsed.symbols)
        if why is not None:
            return Emptiness(
                "sign",
                f"feasible set is empty: constraint {text} alone: {why}",
                {"constraint": text, "argument": why},
                {"constraint": index},
            )
    return None


# ---------------------------------------------------------------- 2. elimination (Groebner)
def elimination_emptiness(parsed: ParsedProblem) -> Emptiness | None:
    """The equalities' lex Groebner basis contains 1, a univariate polynomial without a real root
    in its variable's domain, or a polynomial of impossible sign on the domains."""
    polys = []
    texts = []
    indices = []
    for index, (g, op, text) in enumerate(differences(parsed)):
        if op != "=":
            continue
        poly = equality_polynomial(g, parsed.symbols)
        if poly is None:
            continue
        if poly.total_degree() > MAX_ELIMINATION_DEGREE or len(poly.terms()) > MAX_ELIMINATION_TERMS:
            continue
        polys.append(poly.as_expr())
        texts.append(text)
        indices.append(index)
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
                {"equalities": indices, "implied": sympy.sstr(expr), "argument": "constant"},
            )
        used = [s for s in gens if element.degree(s) > 0]
        if len(used) == 1:
            s = used[0]
            count = root_count(sympy.Poly(expr, s), parsed.domains[s])
            if count == 0:
                return Emptiness(
                    "elimination",
                    f"feasible set is empty: the equalities imply {sympy.sstr(expr)} = 0, which has no real root "
                    f"with {s} in {interval_text(parsed.domains[s])}",
                    {"equalities": texts, "implied": str(expr), "variable": str(s)},
                    {"equalities": indices, "implied": sympy.sstr(expr), "argument": "no-root", "variable": str(s)},
                )
        why = impossible_sign(expr, "=", parsed.domains, parsed.symbols)
        if why is not None:
            return Emptiness(
                "elimination",
                f"feasible set is empty: the equalities imply {sympy.sstr(expr)} = 0, and {why}",
                {"equalities": texts, "implied": str(expr), "argument": why},
                {"equalities": indices, "implied": sympy.sstr(expr), "argument": "sign"},
            )
    return None


def prove_empty(parsed: ParsedProblem) -> Emptiness | None:
    """The first exact argument that the feasible set is empty (linear, sign, elimination), or None."""
    for argument in (linear_emptiness, sign_emptiness, elimination_emptiness):
        found = argument(parsed)
        if found is not None:
            return found
    return None
