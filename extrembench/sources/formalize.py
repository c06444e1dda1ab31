"""Formalize extremal problems given as statement + answer into problem specs (rule-based).

Handles the standard phrasing of imported extremal problems, e.g.

    For positive real numbers $a, b, c$ satisfying $a+b+c=3$, find the minimum value of $...$.
    Let $x, y$ be real numbers such that $x^2+y^2=1$. Find the maximum of $x+y$.
    Given nonnegative reals $a,b,c$ with $a+b+c=1$, find the maximum value of $ab+bc+ca$.
    Let $a, b, c > 0$ with $abc = 1$. Find the smallest possible value of $...$.

The LaTeX formulas are translated to the project's plain expression syntax by a tokenizer and a
recursive-descent parser written here (nothing is evaluated), and the resulting spec is loaded with
extrembench.problems.problem so it is known to parse. Anything the rules cannot read raises FormalizeError
with the reason; the LLM fallback (wired elsewhere) takes those.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection

from extrembench.problems.latex import (
    MATH_SEGMENT,
    NAME_LIST,
    FormalizeError,
    LatexParser,
    Tok,
    latex_names,
    latex_relations,
    latex_to_text,
    name_list,
    strip_definition,
    tokenize_latex,
    tree_to_text,
)
from extrembench.problems.problem import ProblemError, problem_from_dict, problem_to_dict, split_top_level_commas

log = logging.getLogger(__name__)


# --- LaTeX parser: tokens -> expression tree ------------------------------------------------------
# Tree nodes are tuples: ('num', text) ('name', text) ('const', text) ('call', func, args)
# ('neg', x) and binary (op, left, right) with op in + - * / ^.


_SENSE_WORDS = {
    "minimum": "min",
    "minimal": "min",
    "smallest": "min",
    "least": "min",
    "min": "min",
    "maximum": "max",
    "maximal": "max",
    "largest": "max",
    "greatest": "max",
    "max": "max",
}
_OBJECTIVE = re.compile(
    r"(?:find|determine|compute|calculate|evaluate|what\s+is|what's)\s+(?:the\s+)?"
    r"(?P<word>" + "|".join(_SENSE_WORDS) + r")(?:imum)?\s+(?:possible\s+)?(?:value\s+)?(?:of\s+)?"
    r"(?:the\s+(?:expression|function|quantity|sum|product)\s+)?@(?P<segment>\d+)@"
)
# Words that mean the problem is outside what a spec of real variables can say.
_UNSUPPORTED = re.compile(
    r"\b(integers?|natural numbers?|primes?|distinct|pairwise different|sequence|triangle|polygon|"
    r"complex|vectors?|matri(?:x|ces))\b"
)
_NON_NEGATIVE = r"(?:nonnegative|non-negative)"
# "positive reals $a$ and $b$" / "$a$, $b$ are positive reals": a domain phrase covers the listed formulas
_LISTED = r"(?:\s*(?:,\s*(?:and\s+)?|and\s+)@\d+@)*"
_DOMAIN_BEFORE = re.compile(
    r"(?:(?P<word>positive|" + _NON_NEGATIVE + r")\s+(?:real\s+numbers|reals|numbers|real)?|real\s+numbers|reals)"
    r"\s*(?:@\d+@\s*(?:,\s*(?:and\s+)?|and\s+))*@(?P<segment>\d+)@$"
)
_DOMAIN_AFTER = re.compile(
    r"^@(?P<segment>\d+)@" + _LISTED + r"\s+(?:be|are|is)\s+(?:(?:a|an|some|any|arbitrary|two|three|four|five)\s+)?"
    r"(?:(?P<word>positive|" + _NON_NEGATIVE + r")\s+)?(?:real\s+numbers|reals|numbers|real)"
)
_DOMAIN_BY_WORD = {"positive": "positive", "nonnegative": "nonnegative", "non-negative": "nonnegative", None: "real"}


def _math_segments(statement: str) -> tuple[list[str], str]:
    """The formulas of a statement and its prose with each formula replaced by @k@."""
    segments: list[str] = []

    def placeholder(match: re.Match) -> str:
        formula = next(group for group in match.groups() if group is not None)
        segments.append(formula.strip().rstrip(".,;").strip())
        return f" @{len(segments) - 1}@ "

    prose = MATH_SEGMENT.sub(placeholder, statement)
    if "$" in prose:
        raise FormalizeError("unbalanced $ in the statement")
    return segments, " ".join(prose.lower().split())


_BETWEEN = re.compile(
    rf"(?P<low>.+?)(?P<rel1><|\\le(?:q|qslant)?(?![a-z])|≤)(?P<names>{NAME_LIST.pattern})"
    rf"(?P<rel2><|\\le(?:q|qslant)?(?![a-z])|≤)(?P<high>.+)",
    re.S,
)


def _declaration(latex: str) -> tuple[list[str], str | None] | None:
    """Read '$a, b, c$', '$a,b,c>0$', '$x,y \\ge 0$', '$x, y \\in [0, 1]$', '$0 \\le x, y \\le 1$'.

    Returns (names, domain or None when the formula gives none), or None if it is no declaration.
    """
    between = _BETWEEN.fullmatch(latex)
    if between:
        low = _plain_number(tokenize_latex(between.group("low"))[:-1])
        high = _plain_number(tokenize_latex(between.group("high"))[:-1])
        strict = [between.group(k) == "<" for k in ("rel1", "rel2")]
        if low is not None and high is not None:
            return name_list(
                between.group("names")
            ), f"{'(' if strict[0] else '['}{low}, {high}{')' if strict[1] else ']'}"
    prefix = NAME_LIST.match(latex)
    if prefix is None:
        return None
    names = name_list(prefix.group())
    rest = tokenize_latex(latex[prefix.end() :])[:-1]
    if not rest:
        return names, None
    if rest[0].text == "in":
        return names, _set_domain(latex, rest[1:])
    bound = _plain_number(rest[1:]) if rest[0].kind == "rel" else None
    if bound is None:
        return None
    relation = rest[0].text
    if relation in (">", ">="):
        if bound == "0":
            return names, "positive" if relation == ">" else "nonnegative"
        return names, f"{'(' if relation == '>' else '['}{bound}, inf)"
    if relation in ("<", "<="):
        return names, f"(-inf, {bound}{')' if relation == '<' else ']'}"
    return None


def _domain_constraints(name: str, domain: str) -> list[str]:
    """The constraints that say `name` lies in `domain` (for a bound on an already declared variable)."""
    if domain in ("positive", "nonnegative"):
        return [f"{name} {'>' if domain == 'positive' else '>='} 0"]
    if domain == "real":
        return []
    low, high = (part.strip() for part in domain[1:-1].split(",", 1))
    constraints = []
    if low != "-inf":
        constraints.append(f"{name} {'>' if domain[0] == '(' else '>='} {low}")
    if high != "inf":
        constraints.append(f"{name} {'<' if domain[-1] == ')' else '<='} {high}")
    return constraints


def _plain_number(tokens: list[Tok]) -> str | None:
    """The plain text of a constant (no names), or None."""
    if not tokens or any(t.kind in ("name", "rel") or t.text == "," for t in tokens):
        return None
    parser = LatexParser(" ".join(t.text for t in tokens), (), tokens)
    try:
        tree = parser.expr()
        parser.finish()
    except FormalizeError:
        return None
    return tree_to_text(tree)


def _set_domain(latex: str, tokens: list[Tok]) -> str:
    if tokens and tokens[0].text == r"\mathbb":
        letter = "".join(t.text for t in tokens[1:])
        if letter in ("{R}", "R"):
            return "real"
        if letter in ("{R}^+", "{R}^{+}", "{R}_+", "{R}_{+}", "{R}_{>0}"):
            return "positive"
        raise FormalizeError(f"unsupported set in declaration '{latex}'")
    if len(tokens) >= 5 and tokens[0].text in ("[", "(") and tokens[-1].text in ("]", ")"):
        inner = tokens[1:-1]
        commas = [i for i, t in enumerate(inner) if t.text == ","]
        if len(commas) == 1:
            low, high = _plain_number(inner[: commas[0]]), _plain_number(inner[commas[0] + 1 :])
            if low is not None and high is not None:
                return f"{tokens[0].text}{low}, {high}{tokens[-1].text}"
    raise FormalizeError(f"cannot read the interval in declaration '{latex}'")


def _domain_from_words(prose: str, segment: int) -> str | None:
    marker = f"@{segment}@"
    at = prose.index(marker)
    before = _DOMAIN_BEFORE.search(prose[: at + len(marker)])
    if before:
        return _DOMAIN_BY_WORD[before.group("word")]
    after = _DOMAIN_AFTER.match(prose[at:])
    if after:
        return _DOMAIN_BY_WORD[after.group("word")]
    return None


def _answer_text(answer) -> str:
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        raise FormalizeError(f"answer must be a LaTeX string or a number, got {type(answer).__name__}")
    text = str(answer).strip()
    match = re.fullmatch(r"\$+(.*?)\$+", text, re.S)
    if match:
        text = match.group(1).strip()
    boxed = re.fullmatch(r"\\boxed\{(.*)\}", text, re.S)
    if boxed:
        text = boxed.group(1)
    if not text:
        raise FormalizeError("answer is empty")
    parser = LatexParser(text, ())
    tree = parser.expr()
    parser.finish()
    if parser.names:
        raise FormalizeError(f"answer '{answer}' is not a number: it uses {sorted(parser.names)}")
    return tree_to_text(tree)


def _objective_clause(prose: str) -> tuple[str, int]:
    """(sense, math segment of the objective) of the one 'find the minimum/maximum of $...$' clause."""
    # "at least" / "at most" are conditions, not what is asked for
    senses = {_SENSE_WORDS[w] for w in re.findall(r"(?<!\bat )\b(" + "|".join(_SENSE_WORDS) + r")(?:imum)?\b", prose)}
    objectives = list(_OBJECTIVE.finditer(prose))
    if len(objectives) != 1:
        raise FormalizeError(
            "no 'find the minimum/maximum (value) of $...$' clause"
            if not objectives
            else "more than one 'find the minimum/maximum' clause"
        )
    if len(senses) > 1:
        raise FormalizeError("the statement asks for both a minimum and a maximum")
    return _SENSE_WORDS[objectives[0].group("word")], int(objectives[0].group("segment"))


def _declared_variables(
    declarations: list[tuple[int, list[str], str | None]], prose: str
) -> tuple[dict[str, str | None], list[str]]:
    """(variables with their domains, constraints from bounds) of the declarations, in reading order."""
    # Names take the domain of the words around them ("positive reals $a, b$") or of their first
    # bound ("$a, b > 0$"); a later bound on a name that already has a domain becomes a constraint.
    variables: dict[str, str | None] = {}
    for index, names, domain in declarations:
        if domain is None:
            for name in names:
                variables[name] = variables.get(name) or _domain_from_words(prose, index)
    constraints: list[str] = []
    for _index, names, domain in declarations:
        for name in names if domain is not None else ():
            if variables.get(name) is None:
                variables[name] = domain
            else:
                constraints.extend(_domain_constraints(name, domain))
    if not variables:
        raise FormalizeError("no variable declaration such as 'positive real numbers $a, b, c$'")
    missing = sorted(name for name, domain in variables.items() if domain is None)
    if missing:
        raise FormalizeError(f"no domain stated for {', '.join(missing)} (e.g. 'positive real numbers')")
    return variables, constraints


def formalize_statement(problem_id: str, statement: str, answer) -> dict:
    """Turn a statement in the standard phrasing plus its answer into a problem spec dict.

    Raises FormalizeError(reason) when the rules cannot read it (the caller may fall back to an LLM).
    """
    if not isinstance(statement, str) or not statement.strip():
        raise FormalizeError("statement is empty")
    segments, prose = _math_segments(statement)
    unsupported = _UNSUPPORTED.search(prose)
    if unsupported:
        raise FormalizeError(
            f"the statement mentions {unsupported.group()!r}, which a spec over real variables cannot express"
        )
    sense, objective_segment = _objective_clause(prose)
    declarations, relation_segments = [], []
    for index, latex in enumerate(segments):
        if index != objective_segment:
            declared = _declaration(latex)
            if declared is None:
                relation_segments.append(latex)
            else:
                declarations.append((index, *declared))
    variables, constraints = _declared_variables(declarations, prose)
    for latex in relation_segments:
        for piece in _split_top_level(latex):
            _require_declared(latex_names(piece, variables), variables, piece)
            constraints.extend(latex_relations(piece, variables))
    objective_latex = strip_definition(segments[objective_segment], variables)
    _require_declared(latex_names(objective_latex, variables), variables, objective_latex)
    spec = {
        "id": problem_id,
        "sense": sense,
        "variables": dict(variables),
        "constraints": constraints,
        "objective": latex_to_text(objective_latex, variables),
        "answer": _answer_text(answer),
        "statement": statement,
    }
    try:
        return problem_to_dict(problem_from_dict(spec))
    except ProblemError as error:
        raise FormalizeError(f"the formalized spec does not load: {error.field}: {error.reason}") from None


def _require_declared(names: set[str], variables: Collection[str], latex: str) -> None:
    undeclared = sorted(names - set(variables))
    if undeclared:
        raise FormalizeError(f"formula '{latex}' uses undeclared {', '.join(undeclared)}")


def _split_top_level(latex: str) -> list[str]:
    """'x+y=1,\\ xy \\le 2' -> two relations; commas inside brackets stay."""
    return [piece for piece in split_top_level_commas(latex) if piece.strip()]
