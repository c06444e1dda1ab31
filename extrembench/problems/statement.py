"""A problem as text: the statement in the source paper's phrasing, expressions and answers as LaTeX, the gold text the grader reads."""

from __future__ import annotations

import re
from collections.abc import Sequence

import sympy

from extrembench.problems.expr import ExpressionError, ExpressionParser, parse_expression, parse_relation, symbol
from extrembench.problems.problem import ExtremalSpec, Problem, parse_domain

_LATEX_OPS = {"=": "=", ">=": r"\geq", "<=": r"\leq", ">": ">", "<": "<"}


def to_text(expr: sympy.Expr) -> str:
    """Plain math text that extrembench.problems.expr parses back to `expr` (sympy's str uses ** and the
    same function names as the parser's vocabulary)."""
    return str(expr)


def answer_latex(answer: str) -> str:
    """The gold answer as LaTeX, the notation graders read reliably (Math-Verify misreads some
    plain-syntax forms such as "(1 + sqrt(2) + sqrt(3))^2"); parsed safely, never evaluated."""
    return sympy.latex(parse_expression(answer, []), ln_notation=True)


def domain_phrase(text: str, plural: bool) -> str:
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


def _flatten(expr: sympy.Basic) -> sympy.Basic:
    """Splice the nested binary sums and products the left-to-right parse builds ((a + b) + c)
    into one n-ary node, still unevaluated, so they print without extra parentheses."""
    if not expr.args:
        return expr
    args = [_flatten(arg) for arg in expr.args]
    if isinstance(expr, (sympy.Add, sympy.Mul)):
        spliced = []
        for arg in args:
            spliced.extend(arg.args if type(arg) is type(expr) else (arg,))
        return type(expr)(*spliced, evaluate=False)
    return expr.func(*args, evaluate=False) if isinstance(expr, (sympy.Pow, sympy.Max, sympy.Min)) else expr.func(*args)


def source_order_latex(text: str, names: list[str]) -> str:
    """LaTeX of a math text with its terms and factors in the order they were written (sympy's
    canonical order would print (a²+b²+c²)² − 3a³b ... as −3a³b − ... + (a²+b²+c²)²). The text
    is parsed normally first, so every limit of the safe parser applies; the unevaluated second
    parse is only for display."""
    parse_expression(text, names)
    return sympy.latex(
        _flatten(_SourceOrderParser(text, names).parse_expression_only()), order="none", ln_notation=True
    )


class _SourceOrderParser(ExpressionParser):
    """The safe parser's grammar, with sums, products and negations built unevaluated so they keep
    their written order (sympy sorts evaluated ones, and distributes -(a + b)). Only used on text
    that already passed parse_expression, whose limit checks stay in the base class."""

    @staticmethod
    def _sum(terms: list[sympy.Expr]) -> sympy.Expr:
        return terms[0] if len(terms) == 1 else sympy.Add(*terms, evaluate=False)

    def term(self) -> sympy.Expr:
        factors = [self.unary()]
        while True:
            token = self.current
            if token.kind == "op" and token.text in ("*", "/"):
                self.advance()
                right = self.unary()
                factors.append(right if token.text == "*" else sympy.Pow(right, -1, evaluate=False))
            elif self._starts_atom(token):
                factors.append(self.unary())
            else:
                return self._product(factors)

    def _product(self, factors: list[sympy.Expr]) -> sympy.Expr:
        # "1/a" would print as "1 \frac{1}{a}" and "a*(-b)" as "a \left(-1\right) b": drop literal
        # ones, and move the sign of a negated factor in front of the product.
        negative = False
        for i, factor in enumerate(factors):
            if isinstance(factor, sympy.Mul) and factor.args[0] == -1:
                negative = not negative
                factors[i] = sympy.Mul(*factor.args[1:], evaluate=False)
        factors = [f for f in factors if f != 1] or [sympy.Integer(1)]
        product = factors[0] if len(factors) == 1 else sympy.Mul(*factors, evaluate=False)
        return self._negated(product) if negative else product

    @staticmethod
    def _negated(operand: sympy.Expr) -> sympy.Expr:
        if operand.is_Number:
            return -operand
        if isinstance(operand, sympy.Mul) and operand.args[0] == -1:  # - (-x) is x
            rest = operand.args[1:]
            return rest[0] if len(rest) == 1 else sympy.Mul(*rest, evaluate=False)
        return sympy.Mul(-1, operand, evaluate=False)


def relation_latex(text: str, names: list[str]) -> str:
    lhs, op, rhs = parse_relation(text, names)  # full checks, and where the relation splits
    sides = re.split(r"==|>=|<=|≥|≤|=|<|>", text, maxsplit=1)
    return f"{source_order_latex(sides[0], names)} {_LATEX_OPS[op]} {source_order_latex(sides[1], names)}"


def variable_groups(variables: dict[str, str]) -> list[tuple[str, str, bool]]:
    """(LaTeX list of the names, domain, whether several) per domain, in declaration order."""
    groups: dict[str, list[str]] = {}
    for name, domain in variables.items():
        groups.setdefault(domain.strip(), []).append(name)
    return [
        (", ".join(sympy.latex(symbol(n)) for n in members), domain, len(members) > 1)
        for domain, members in groups.items()
    ]


def constraints_latex(constraints: Sequence[str], names: list[str]) -> str:
    """The constraints in LaTeX as a list in prose: "$r_1$", "$r_1$ and $r_2$", "$r_1$, $r_2$ and $r_3$"."""
    relations = ["$" + relation_latex(text, names) + "$" for text in constraints]
    if len(relations) < 2:
        return "".join(relations)
    return ", ".join(relations[:-1]) + " and " + relations[-1]


def render_statement(spec_or_problem: ExtremalSpec | Problem) -> str:
    """LaTeX statement in the source paper's phrasing, e.g. "Let $a, b, c$ be positive real
    numbers such that $a + b + c = 3$. Find the minimum value of $\\frac{a^{2}}{b} + ...$."."""
    item = spec_or_problem
    names = list(item.variables)
    sentence = "Let " + " and ".join(
        f"${listed}$ be {domain_phrase(domain, plural)}" for listed, domain, plural in variable_groups(item.variables)
    )
    if item.constraints:
        sentence += f" such that {constraints_latex(item.constraints, names)}"
    word = "minimum" if item.sense == "min" else "maximum"
    objective = source_order_latex(item.objective, names)
    return f"{sentence}. Find the {word} value of ${objective}$."


# --- the rule's job: read artifacts, run this stage per problem, write its artifact
def gold_text(answer: str | None, status: str) -> str | None:
    """Gold for the grader: LaTeX for a problem the validator parsed; as written otherwise (an
    invalid problem is never asked, and its answer may not parse)."""
    if answer is None or status == "invalid":
        return answer
    try:
        return answer_latex(answer)
    except ExpressionError:
        return answer
