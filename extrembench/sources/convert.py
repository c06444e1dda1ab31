"""Convert "prove lhs >= rhs" into "find the minimum of ..." and render the statement.

The derivation is deterministic: objective = lhs - rhs without its additive constant terms,
answer = minus those constants, sense min for >= and > (max for <= and <). When a problem has both a
source inequality and curated fields, the two must describe the same function on the feasible set
(objective - answer agree, checked symbolically, modulo the equality constraints); otherwise the
problem is rejected with both versions shown.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import sympy

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.problems.expr import ExpressionError, _Parser, parse_expression, parse_relation, symbol
from extrembench.problems.failures import file_sha256_or_none, problem_failure, read_problem_yaml, stage_stopping_errors
from extrembench.problems.problem import Problem, ProblemError, parse_domain, parse_problem

log = logging.getLogger(__name__)

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
    """Plain math text that extrembench.problems.expr parses back to `expr` (sympy's str uses ** and the
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
    return sympy.latex(_flatten(_SourceOrderParser(text, names).parse_expression_only()), order="none")


class _SourceOrderParser(_Parser):
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
    return [(", ".join(sympy.latex(symbol(n)) for n in members), domain, len(members) > 1)
            for domain, members in groups.items()]


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
    sentence = "Let " + " and ".join(f"${listed}$ be {domain_phrase(domain, plural)}"
                                     for listed, domain, plural in variable_groups(item.variables))
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


def convert_shard(problem_files: Sequence[str], translations: Path, output: Path, *, benchmark: str,
                  dag_node: str, caller=None, max_attempts: int = 3) -> None:
    """Curated fields or the structured source inequality (deterministic); a source-only file
    (no `objective`) goes to the configured LLM, whose spec is checked like any problem file."""
    from extrembench.problems.problem import ProblemError, check_source, file_id_error, load_problem
    from extrembench.sources.llm_convert import conversion_columns, convert_with_llm

    english = {r["problem_id"]: r["translation"] for r in read_artifact(translations, "translations").to_pylist()}
    infrastructure = stage_stopping_errors()
    rows = []
    for path in sorted(map(Path, problem_files)):
        row = {"benchmark": benchmark, "problem_id": path.stem, "source_path": str(path),
               "source_sha256": file_sha256_or_none(path), "sense": None, "variables_json": None,
               "constraints_json": None, "objective": None, "answer": None, "statement": None,
               "technique": [], "difficulty": None, "converted_by": None, "error": None,
               "error_field": None, "llm_attempts": None, "llm_raw_outputs_json": None,
               "llm_call_keys": [], "dag_node": dag_node}
        try:
            data = read_problem_yaml(path)
            if isinstance(data, dict) and "objective" not in data and "source" in data:
                # source-only: the statement is converted by the LLM, the spec checked by validate
                check_source(data, path=path)
                mismatch = file_id_error(data["id"], path) if "id" in data else None
                if mismatch:
                    raise ProblemError(str(path), "id", mismatch)
                if caller is None:
                    raise ProblemError(str(path), "objective",
                                       "no curated extremal fields and no convert.model configured; add sense/"
                                       "variables/objective/answer (or source.inequality) or set convert.model")
                if not english.get(path.stem):
                    raise ProblemError(str(path), "source.translation",
                                       "no English text to convert (see the translate stage's translation_error)")
                row.update(conversion_columns(convert_with_llm(path.stem, english[path.stem], caller,
                                                               max_attempts=max_attempts)))
            else:
                problem = load_problem(path)  # schema, id = file name, every expression parsed
                spec, origin = convert_problem(problem)
                row.update(sense=spec.sense, variables_json=json.dumps(spec.variables),
                           constraints_json=json.dumps(list(spec.constraints)), objective=spec.objective,
                           answer=spec.answer, statement=spec.statement, technique=list(problem.technique),
                           difficulty=problem.difficulty, converted_by=origin)
        except infrastructure:
            raise
        except Exception as exc:  # this problem's fault: recorded, validate marks it invalid
            field, reason = problem_failure(exc, "convert")
            row.update(error=reason, error_field=field)
            log.warning("convert: %s: %s: %s", path, field, reason)
        rows.append(row)
    write_artifact(rows, output, "conversions", inputs=[*problem_files, translations])
