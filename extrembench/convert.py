"""Convert "prove lhs >= rhs" into "find the minimum of ..." and render the statement.

The derivation is deterministic: objective = lhs - rhs without its additive constant terms,
answer = minus those constants, sense min for >= and > (max for <= and <). When a problem has both a
source inequality and curated fields, the two must describe the same function on the feasible set
(objective - answer agree, checked symbolically, modulo the equality constraints); otherwise the
problem is rejected with both versions shown.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import sympy

from extrembench.expr import parse_expression, parse_relation, symbol
from extrembench.problem import Problem, ProblemError, parse_domain, parse_problem

SENSE_OF_RELATION = {">=": "min", ">": "min", "<=": "max", "<": "max"}
_LATEX_OPS = {"=": "=", ">=": r"\geq", "<=": r"\leq", ">": ">", "<": "<"}


@dataclass(frozen=True)
class ExtremalSpec:
    sense: str
    variables: dict[str, str]
    constraints: tuple[str, ...]
    objective: str
    answer: str
    statement: str


def to_text(expr: sympy.Expr) -> str:
    """Plain math text that extrembench.expr parses back to `expr` (sympy's str uses ** and the
    same function names as the parser's vocabulary)."""
    return str(expr)


def answer_latex(answer: str) -> str:
    """The gold answer as LaTeX, the notation graders read reliably (Math-Verify misreads some
    plain-syntax forms such as "(1 + sqrt(2) + sqrt(3))^2"); parsed safely, never evaluated."""
    return sympy.latex(parse_expression(answer, []))


def derive_from_inequality(problem: Problem) -> tuple[str, sympy.Expr, sympy.Expr]:
    """(sense, objective, answer) of the extremal problem behind source.inequality."""
    inequality = problem.source["inequality"]
    names = list(problem.variables)
    lhs = parse_expression(inequality["lhs"], names)
    rhs = parse_expression(inequality["rhs"], names)
    constant, variable_part = (lhs - rhs).as_independent(*map(symbol, names), as_Add=True)
    if variable_part == 0:
        raise ProblemError(problem.path, "source.inequality", "lhs - rhs does not depend on any variable")
    return SENSE_OF_RELATION[inequality["relation"]], variable_part, -constant


def _zero_on_equalities(difference: sympy.Expr, problem: Problem) -> bool:
    """True when `difference` vanishes identically, or on the solution set of the equality
    constraints: polynomial reduction modulo their Groebner basis, else substitution of the
    variables that linear constraints solve for, then comparison at seeded sample points."""
    if difference == 0:
        return True
    parsed = parse_problem(problem)
    equalities = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "="]
    if not all(_small_for_algebra(e) for e in equalities + [difference]):
        return _numerically_zero(difference, parsed) if not equalities else False
    if sympy.cancel(sympy.together(difference)) == 0:
        return True
    numerator = sympy.numer(sympy.together(difference))
    if sympy.expand(numerator) == 0:
        return True
    polys = [sympy.numer(sympy.together(g)) for g in equalities]
    symbols = parsed.symbols
    if polys and all(p.is_polynomial(*symbols) for p in polys + [numerator]):
        basis = sympy.groebner(polys, *symbols, order="grevlex")
        return basis.reduce(sympy.expand(numerator))[1] == 0
    solved: dict[sympy.Symbol, sympy.Expr] = {}
    for g in equalities:
        g = g.subs(solved)
        for s in sorted(g.free_symbols, key=str):
            slope = sympy.diff(g, s)
            if slope != 0 and not slope.free_symbols:  # linear in s: s = s - g/slope on the constraint
                solved = {k: v.subs(s, s - g / slope) for k, v in solved.items()}
                solved[s] = sympy.expand(s - g / slope)
                break
        else:
            return False
    return _numerically_zero(difference.subs(solved), parsed)


def _small_for_algebra(expr: sympy.Expr) -> bool:
    """Whether expanding / Groebner reduction stays cheap: (a+b+c)^1000 parses fine but expands to
    half a million terms."""
    exponents = [p.exp for p in expr.atoms(sympy.Pow) if p.exp.is_number]
    return sympy.count_ops(expr) <= 300 and all(abs(e) <= 12 for e in exponents)


def _numerically_zero(difference: sympy.Expr, parsed) -> bool:
    """Compare with 0 at fixed pseudo-random points of the domain box (seeded, so the verdict is
    reproducible); points where it is undefined are skipped, and at least 6 must be defined."""
    rng = random.Random(0)
    defined = 0
    for _ in range(12):
        point = {}
        for s, dom in parsed.domains.items():
            lo = float(dom.lo) if dom.lo is not None else (float(dom.hi) - 3 if dom.hi is not None else -3.0)
            hi = float(dom.hi) if dom.hi is not None else lo + 3
            point[s] = sympy.Rational(lo + (hi - lo) * rng.uniform(0.05, 0.95)).limit_denominator(10**6)
        value = sympy.N(difference.subs(point), 30)
        if not value.is_number or not value.is_finite:
            continue
        if abs(value) > 1e-20:
            return False
        defined += 1
    return defined >= 6


def convert_problem(problem: Problem) -> tuple[ExtremalSpec, str]:
    """The extremal spec of a problem and its origin ('inequality' when a source inequality was
    derived and agrees with the curated fields, else 'curated'); raises ProblemError on disagreement."""
    parsed = parse_problem(problem)
    statement = problem.statement if problem.statement is not None else render_statement(problem)
    spec = ExtremalSpec(problem.sense, dict(problem.variables), tuple(problem.constraints),
                        problem.objective, problem.answer, statement)
    if not (problem.source or {}).get("inequality"):
        return spec, "curated"
    sense, objective, answer = derive_from_inequality(problem)
    derived = f"sense {sense}, objective {to_text(objective)}, answer {to_text(answer)}"
    curated = f"sense {problem.sense}, objective {problem.objective}, answer {problem.answer}"
    if sense != problem.sense or not _zero_on_equalities((objective - answer) - (parsed.objective - parsed.answer), problem):
        raise ProblemError(problem.path, "source.inequality",
                           f"the derived problem ({derived}) disagrees with the curated fields ({curated})")
    return spec, "inequality"


def _domain_phrase(text: str, plural: bool) -> str:
    word = text.strip()
    if word in ("positive", "nonnegative", "real"):
        adjective = "" if word == "real" else word + " "
        return f"{adjective}real numbers" if plural else f"a {adjective}real number"
    domain = parse_domain(text)
    left = "(" if domain.lo_open else "["
    right = ")" if domain.hi_open else "]"
    lo = r"-\infty" if domain.lo is None else sympy.latex(domain.lo)
    hi = r"\infty" if domain.hi is None else sympy.latex(domain.hi)
    noun = "real numbers" if plural else "a real number"
    return f"{noun} in ${left}{lo}, {hi}{right}$"


def _relation_latex(lhs: sympy.Expr, op: str, rhs: sympy.Expr) -> str:
    return f"{sympy.latex(lhs)} {_LATEX_OPS[op]} {sympy.latex(rhs)}"


def render_statement(spec_or_problem: ExtremalSpec | Problem) -> str:
    """LaTeX statement in the source paper's phrasing, e.g. "Let $a, b, c$ be positive real
    numbers such that $a + b + c = 3$. Find the minimum value of $\\frac{a^{2}}{b} + ...$."."""
    item = spec_or_problem
    names = list(item.variables)
    groups: dict[str, list[str]] = {}
    for name, domain in item.variables.items():
        groups.setdefault(domain.strip(), []).append(name)
    parts = []
    for domain, members in groups.items():
        listed = ", ".join(sympy.latex(symbol(n)) for n in members)
        parts.append(f"${listed}$ be {_domain_phrase(domain, len(members) > 1)}")
    sentence = "Let " + " and ".join(parts)
    relations = ["$" + _relation_latex(*parse_relation(text, names)) + "$" for text in item.constraints]
    if relations:
        joined = relations[0] if len(relations) == 1 else ", ".join(relations[:-1]) + " and " + relations[-1]
        sentence += f" such that {joined}"
    word = "minimum" if item.sense == "min" else "maximum"
    objective = sympy.latex(parse_expression(item.objective, names))
    return f"{sentence}. Find the {word} value of ${objective}$."
