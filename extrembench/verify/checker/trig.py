"""Trigonometric problems as polynomial ones: a variable v that occurs only inside cos(k v) becomes
c = cos v, with cos(k v) = T_k(c) (Chebyshev); one that occurs only inside sin(k v), k odd, and
cos(k v), k even, becomes s = sin v, with sin(k v) = ±T_k(s) and cos(k v) = ±T_k(s). v's domain
becomes the closed box spanned by that function's image over it (rational ends, else no route).

Sound: the identities hold for every real v, so each expression depends on v only through c; the
map v -> c sends the feasible set onto its image, which lies in the box. So every feasible value
of the original is a value of the substituted problem on the box (a superset): a lower bound
proven there holds on the original, and the exact witness shows it is attained.
"""

from __future__ import annotations

import math

import sympy

from extrembench.problems.expr import parse_relation
from extrembench.problems.problem import Domain, ParsedProblem


def _polynomial(by: str, fn: str, k: int, v: sympy.Symbol) -> sympy.Expr | None:
    """P with fn(k v) = P(by(v)) for every real v, or None when there is none."""
    t = sympy.chebyshevt_poly(abs(k), v)
    if by == "cos":
        return t if fn == "cos" else None
    # sin v = cos(pi/2 - v): T_k(sin v) = cos(k pi/2 - k v), which is (-1)^(k/2) cos(k v) for even k
    # and (-1)^((k-1)/2) sin(k v) for odd k
    if (fn == "sin") != (k % 2 == 1):
        return None
    return (-1) ** (abs(k) // 2) * t * (1 if fn == "cos" or k > 0 else -1)


def _image(by: str, domain: Domain) -> tuple[sympy.Rational, sympy.Rational] | None:
    """The closure of by(domain) when its ends are rational, else None. Ends must be rational
    multiples of pi (or infinite); the extremes are at the ends and at the critical points (k pi
    for cos, pi/2 + k pi for sin) inside."""
    a, b = (None, None) if domain.lo is None or domain.hi is None else (domain.lo / sympy.pi, domain.hi / sympy.pi)
    if a is None or (a.is_Rational and b.is_Rational and b - a >= 2):  # a whole period
        return sympy.Integer(-1), sympy.Integer(1)
    if not (a.is_Rational and b.is_Rational):
        return None
    shift = sympy.Integer(0) if by == "cos" else sympy.Rational(1, 2)
    points = [a, b] + [k + shift for k in range(math.ceil(a - shift), math.floor(b - shift) + 1)]
    values = [getattr(sympy, by)(p * sympy.pi) for p in points]
    if not all(value.is_Rational for value in values):
        return None
    return min(values), max(values)


def _expressions(parsed: ParsedProblem) -> list[sympy.Expr]:
    return [parsed.objective, *(side for lhs, _, rhs in parsed.constraints for side in (lhs, rhs))]


def plan(parsed: ParsedProblem) -> dict[str, list[str]]:
    """{variable: [cos|sin, box lo, box hi]} for each variable the substitution applies to."""
    exprs = _expressions(parsed)
    atoms = set().union(*(e.atoms(sympy.cos, sympy.sin) for e in exprs))
    uses: dict[sympy.Symbol, set] = {}
    masked = {}
    for atom in atoms:
        k, v = atom.args[0].as_coeff_Mul()
        if v in parsed.domains and k.is_Integer and k != 0:
            uses.setdefault(v, set()).add((type(atom).__name__, int(k)))
            masked[atom] = sympy.Dummy()
    bare = set().union(*(e.xreplace(masked).free_symbols for e in exprs))  # v outside cos/sin(k v)
    out = {}
    for v in sorted(set(uses) - bare, key=str):
        for by in ("cos", "sin"):
            box = _image(by, parsed.domains[v])
            if box and all(_polynomial(by, fn, k, v) is not None for fn, k in uses[v]):
                out[v.name] = [by, str(box[0]), str(box[1])]
                break
    return out


def substituted(parsed: ParsedProblem, steps: dict[str, list[str]]) -> ParsedProblem:
    """The problem with each variable of `steps` replaced (keeping its name) by its cos or sin."""
    put, domains = {}, dict(parsed.domains)
    for atom in set().union(*(e.atoms(sympy.cos, sympy.sin) for e in _expressions(parsed))):
        k, v = atom.args[0].as_coeff_Mul()
        if v in domains and v.name in steps:  # plan took v: every cos/sin of it has this form
            put[atom] = _polynomial(steps[v.name][0], type(atom).__name__, int(k), v)
    for v in parsed.symbols:
        if v.name in steps:
            domains[v] = Domain(sympy.Rational(steps[v.name][1]), sympy.Rational(steps[v.name][2]), False, False)

    def sub(e):
        return sympy.expand(e.xreplace(put))

    return ParsedProblem(
        parsed.symbols,
        domains,
        tuple((sub(lhs), op, sub(rhs)) for lhs, op, rhs in parsed.constraints),
        sub(parsed.objective),
        parsed.answer,
        parsed.sense,
    )


def checked(parsed: ParsedProblem, body: dict) -> ParsedProblem:
    """The substituted problem, after re-deriving the substitution from the spec: the recorded one
    and its polynomial problem must be exactly what the spec gives (ValueError otherwise)."""
    steps = plan(parsed)
    if body.get("substitution") != steps:
        raise ValueError(f"the substitution {body.get('substitution')!r} is not the spec's {steps!r}")
    poly = substituted(parsed, steps)
    texts = body.get("polynomial")
    names = [s.name for s in parsed.symbols]
    if (
        not isinstance(texts, list)
        or len(texts) != 1 + len(poly.constraints)
        or not all(isinstance(t, str) for t in texts)
    ):
        raise ValueError("the polynomial problem needs the objective and every constraint")
    given = [parse_relation(f"{texts[0]} = 0", names)] + [parse_relation(t, names) for t in texts[1:]]
    derived = [(poly.objective, "=", 0), *poly.constraints]
    for (gl, gop, gr), (dl, dop, dr) in zip(given, derived):
        if gop != dop or sympy.expand(gl - dl) != 0 or sympy.expand(gr - dr) != 0:
            raise ValueError(f"the recorded polynomial {gl} {gop} {gr} is not the substitution's {dl} {dop} {dr}")
    return poly
