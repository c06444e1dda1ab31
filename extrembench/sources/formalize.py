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

import argparse
import contextlib
import json
import logging
import re
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from extrembench.core.artifacts import write_artifact
from extrembench.core.files import read_jsonl, sha256_file
from extrembench.problems.problem import ProblemError, problem_from_dict, problem_to_dict, split_top_level_commas

log = logging.getLogger(__name__)


class FormalizeError(ValueError):
    """The rule-based formalizer cannot read this statement; the message says why."""


# --- LaTeX tokenizer ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tok:
    kind: str  # 'num' | 'name' | 'const' | 'func' | 'cmd' | 'op' | 'rel' | 'end'
    text: str


_LATEX_TOKEN = re.compile(
    r"(?P<space>\s+|\\[,;:!> ]|\\\\|~)"
    r"|(?P<cmd>\\[A-Za-z]+|\\[{}|])"
    r"|(?P<num>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<letter>[A-Za-z])"
    r"|(?P<sym>[-+*/^_(){}\[\],=<>|]|[≤≥·×−÷∈])"
)

_RELATIONS = {
    "=": "=", "<": "<", ">": ">", "≤": "<=", "≥": ">=",
    r"\le": "<=", r"\leq": "<=", r"\leqslant": "<=", r"\ge": ">=", r"\geq": ">=", r"\geqslant": ">=",
    r"\lt": "<", r"\gt": ">",
}
_OPERATORS = {
    "+": "+", "-": "-", "−": "-", "*": "*", "·": "*", "×": "*", r"\cdot": "*", r"\times": "*",
    "/": "/", "÷": "/", r"\div": "/", "^": "^", "_": "_", ",": ",",
    "(": "(", ")": ")", "[": "[", "]": "]", "{": "{", "}": "}",
    r"\{": r"\{", r"\}": r"\}", r"\lbrace": r"\{", r"\rbrace": r"\}",
    "|": "|", r"\vert": "|", r"\lvert": "|L", r"\rvert": "|R", r"\mid": "|",
    "∈": "in", r"\in": "in",
}
_FUNCTIONS = {r"\sin": "sin", r"\cos": "cos", r"\tan": "tan", r"\exp": "exp", r"\ln": "log",
              r"\max": "Max", r"\min": "Min"}
# Sizing and style commands that change nothing about the formula.
_IGNORED = {r"\left", r"\right", r"\big", r"\Big", r"\bigg", r"\Bigg", r"\bigl", r"\bigr", r"\Bigl",
            r"\Bigr", r"\biggl", r"\biggr", r"\Biggl", r"\Biggr", r"\displaystyle", r"\textstyle",
            r"\quad", r"\qquad", r"\limits"}
_GREEK = {"alpha", "beta", "gamma", "delta", "theta", "lambda", "mu", "phi", "psi", "omega", "sigma", "tau"}
_STRUCTURES = {r"\frac", r"\dfrac", r"\tfrac", r"\sqrt", r"\mathbb", r"\mathrm", r"\text", r"\sum", r"\prod"}


def tokenize_latex(latex: str) -> list[Tok]:
    """Split LaTeX math into tokens; every letter is its own name, as in math mode."""
    tokens: list[Tok] = []
    pos = 0
    while pos < len(latex):
        match = _LATEX_TOKEN.match(latex, pos)
        if match is None:
            raise FormalizeError(f"unexpected character '{latex[pos]}' in formula '{latex}'")
        pos = match.end()
        kind, text = match.lastgroup, match.group()
        if kind == "space" or text in _IGNORED:
            if text in (r"\left", r"\right") and latex[pos:pos + 1] == ".":
                pos += 1  # \left. and \right. are invisible delimiters
            if text == r"\left" and latex[pos:pos + 1] == "|":
                tokens.append(Tok("op", "|L"))
                pos += 1
            elif text == r"\right" and latex[pos:pos + 1] == "|":
                tokens.append(Tok("op", "|R"))
                pos += 1
            continue
        if kind == "num":
            tokens.append(Tok("num", text))
        elif kind == "letter":
            tokens.append(Tok("name", text))
        elif text in _RELATIONS:
            tokens.append(Tok("rel", _RELATIONS[text]))
        elif text in _OPERATORS:
            tokens.append(Tok("op", _OPERATORS[text]))
        elif text in _FUNCTIONS:
            tokens.append(Tok("func", _FUNCTIONS[text]))
        elif text == r"\pi":
            tokens.append(Tok("const", "pi"))
        elif text[1:] in _GREEK:
            tokens.append(Tok("name", text[1:]))
        elif text in _STRUCTURES:
            tokens.append(Tok("cmd", text))
        else:
            raise FormalizeError(f"unsupported LaTeX '{text}' in formula '{latex}'")
    tokens.append(Tok("end", ""))
    return tokens


# --- LaTeX parser: tokens -> expression tree ------------------------------------------------------
# Tree nodes are tuples: ('num', text) ('name', text) ('const', text) ('call', func, args)
# ('neg', x) and binary (op, left, right) with op in + - * / ^.


class _LatexParser:
    def __init__(self, latex: str, variables: Collection[str], tokens: list[Tok] | None = None):
        self.latex = latex
        # declaration order: \sum_{cyc} rotates the variables in this order
        self.order = list(variables) if isinstance(variables, (list, tuple, dict)) else sorted(variables)
        self.variables = set(variables)
        self.tokens = tokenize_latex(latex) if tokens is None else [*tokens, Tok("end", "")]
        self.pos = 0
        self.abs_depth = 0
        self.names: set[str] = set()

    @property
    def current(self) -> Tok:
        return self.tokens[self.pos]

    def advance(self) -> Tok:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def at(self, kind: str, *texts: str) -> bool:
        """Whether the current token is of `kind` (and one of `texts`, when given)."""
        return self.current.kind == kind and (not texts or self.current.text in texts)

    def error(self, message: str) -> FormalizeError:
        return FormalizeError(f"{message} in formula '{self.latex}'")

    def accept(self, text: str) -> bool:
        """Consume the operator `text` when it is the current token."""
        if self.at("op", text):
            self.advance()
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.at("op", text):
            found = self.current.text or "end of formula"
            raise self.error(f"expected '{text}', found '{found}'")
        self.advance()

    def finish(self) -> None:
        if not self.at("end"):
            raise self.error(f"unexpected '{self.current.text}'")

    # relation chain: expr (rel expr)*
    def chain(self) -> tuple[list, list[str]]:
        parts, relations = [self.expr()], []
        while self.at("rel"):
            relations.append(self.advance().text)
            parts.append(self.expr())
        return parts, relations

    def expr(self):
        sign = self.advance().text if self.at("op", "-", "+") else "+"
        result = self.term() if sign == "+" else ("neg", self.term())
        while self.at("op", "+", "-"):
            op = self.advance().text
            result = (op, result, self.term())
        return result

    def term(self):
        result = self.power()
        while True:
            if self.at("op", "*", "/"):
                op = self.advance().text
                result = (op, result, self.power())
            elif self.starts_atom():
                if self.at("num") and result[0] == "num":
                    raise self.error("two numbers in a row")
                result = ("*", result, self.power())
            else:
                return result

    def starts_atom(self) -> bool:
        token = self.current
        if token.kind in ("num", "name", "const", "func", "cmd"):
            return True
        if token.kind == "op" and token.text in ("(", "[", "{", r"\{", "|L"):
            return True
        # a bare '|' inside an absolute value closes it; outside, it opens a new one
        return token.kind == "op" and token.text == "|" and self.abs_depth == 0

    def power(self):
        base = self.atom()
        if self.accept("^"):
            base = ("^", base, self.script())
        if self.at("op", "^"):
            raise self.error("double exponent; use braces")
        return base

    def script(self):
        """The argument of ^ or \\frac: a {group}, or one token (one digit, as TeX reads x^23)."""
        if self.accept("{"):
            inner = self.expr()
            self.expect("}")
            return inner
        token = self.current
        if token.kind == "num":
            self.advance()
            if len(token.text) > 1:
                self.tokens.insert(self.pos, Tok("num", token.text[1:]))
            return ("num", token.text[0])
        if token.kind in ("name", "const", "cmd"):
            return self.atom()
        found = token.text or "end of formula"
        raise self.error(f"cannot read the argument starting at '{found}'")

    def atom(self):
        token = self.current
        if token.kind in ("num", "const"):
            self.advance()
            return (token.kind, token.text)
        if token.kind == "name":
            return self.name()
        if token.kind == "func":
            return self.function()
        if token.kind == "cmd":
            return self.command()
        if token.kind == "op" and token.text in ("(", "[", "{", r"\{"):
            closing = {"(": ")", "[": "]", "{": "}", r"\{": r"\}"}[token.text]
            self.advance()
            saved, self.abs_depth = self.abs_depth, 0
            inner = self.expr()
            self.abs_depth = saved
            self.expect(closing)
            return inner
        if token.kind == "op" and token.text in ("|", "|L"):
            self.advance()
            self.abs_depth += 1
            inner = self.expr()
            self.abs_depth -= 1
            if not self.at("op", "|", "|R"):
                raise self.error("unclosed absolute value |...|")
            self.advance()
            return ("call", "Abs", [inner])
        found = token.text or "end of formula"
        raise self.error(f"expected a number, variable or '(', found '{found}'")

    def name(self):
        letter = self.advance().text
        if self.accept("_"):
            if self.accept("{"):
                parts = []
                while self.at("num") or self.at("name"):
                    parts.append(self.advance().text)
                self.expect("}")
            elif self.at("num") or self.at("name"):
                parts = [self.advance().text[0]]
            else:
                raise self.error(f"cannot read the subscript of '{letter}'")
            if not parts:
                raise self.error(f"empty subscript on '{letter}'")
            letter = f"{letter}_{''.join(parts)}"
            # sympy renders a declared x1 as x_{1}: read it back as the declared name
            if letter not in self.variables and letter.replace("_", "") in self.variables:
                letter = letter.replace("_", "")
        if letter == "e" and "e" not in self.variables:
            return ("const", "E")  # Euler's number unless e is declared as a variable
        self.names.add(letter)
        return ("name", letter)

    def function(self):
        func = self.advance().text
        exponent = None
        if func in ("Max", "Min"):
            if self.at("op", "_"):
                raise self.error(f"{func.lower()} over an index set is not supported")
            opening = self.current.text if self.current.kind == "op" else ""
            if opening not in ("(", r"\{", "["):
                raise self.error(f"\\{func.lower()} needs its arguments in braces, e.g. \\max\\{{a, b\\}}")
            closing = {"(": ")", r"\{": r"\}", "[": "]"}[opening]
            self.advance()
            args = [self.expr()]
            while self.accept(","):
                args.append(self.expr())
            self.expect(closing)
            if len(args) < 2:
                raise self.error(f"\\{func.lower()} needs at least two arguments")
            return ("call", func, args)
        if self.accept("^"):  # \sin^2 x means (sin x)^2
            exponent = self.script()
        if self.accept("("):
            argument = self.expr()
            self.expect(")")
        else:
            # \sin 2x: the argument is the juxtaposed product up to the next operator or function
            argument = self.power_without_function()
            while self.starts_atom() and not self.at("func"):
                argument = ("*", argument, self.power_without_function())
        result = ("call", func, [argument])
        return ("^", result, exponent) if exponent is not None else result

    def power_without_function(self):
        if self.at("func"):
            raise self.error("nested function without parentheses")
        return self.power()

    def command(self):
        command = self.advance().text
        if command in (r"\frac", r"\dfrac", r"\tfrac"):
            numerator = self.script()
            denominator = self.script()
            return ("/", numerator, denominator)
        if command == r"\sqrt":
            index = None
            if self.accept("["):
                index = self.expr()
                self.expect("]")
            radicand = self.script()
            if index is None or index == ("num", "2"):
                return ("call", "sqrt", [radicand])
            if index == ("num", "3"):
                return ("call", "cbrt", [radicand])
            return ("^", radicand, ("/", ("num", "1"), index))
        if command in (r"\sum", r"\prod"):
            return self.cyclic(command)
        if command == r"\mathrm":
            self.expect("{")
            if self.at("name", "e"):
                self.advance()
                self.expect("}")
                return ("const", "E")
        raise self.error(f"unsupported LaTeX '{command}'")


    def cyclic(self, command: str):
        """\\sum_{cyc} body: the body once per cyclic rotation of the declared variables."""
        label = ""
        if self.accept("_") and self.accept("{"):
            styled = self.at("cmd", r"\text", r"\mathrm")
            if styled:
                self.advance()
                self.expect("{")
            label = self.read_letters()
            if styled:
                self.accept("}")
            if not self.at("op", "}"):
                label += "..."
            self.advance()
        if label not in ("cyc", "cyclic"):
            raise self.error(f"only the cyclic {command}_{{cyc}} is supported (index ranges and symmetric sums are not)")
        body = self.term()
        used = _tree_names(body)
        if not used or not used <= self.variables:
            raise self.error(f"{command}_{{cyc}} needs a body over the declared variables")
        count = len(self.order)
        terms = [_rename(body, {name: self.order[(i + shift) % count] for i, name in enumerate(self.order)})
                 for shift in range(count)]
        self.names.update(self.order)
        combined = terms[0]
        for term in terms[1:]:
            combined = ("+" if command == r"\sum" else "*", combined, term)
        return combined

    def read_letters(self) -> str:
        letters = []
        while self.at("name"):
            letters.append(self.advance().text)
        return "".join(letters)


def _tree_names(node) -> set[str]:
    if node[0] == "name":
        return {node[1]}
    if node[0] in ("num", "const"):
        return set()
    children = node[2] if node[0] == "call" else node[1:]
    return set().union(*(_tree_names(child) for child in children))


def _rename(node, mapping: dict[str, str]):
    if node[0] == "name":
        return ("name", mapping.get(node[1], node[1]))
    if node[0] in ("num", "const"):
        return node
    if node[0] == "call":
        return ("call", node[1], [_rename(arg, mapping) for arg in node[2]])
    return (node[0], *(_rename(child, mapping) for child in node[1:]))


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "neg": 3, "^": 4}


def _prec(node) -> int:
    return _PRECEDENCE.get(node[0], 5)


def tree_to_text(node) -> str:
    """Print a tree in the project's plain syntax, with only the parentheses it needs."""

    def wrap(child, minimum: int) -> str:
        text = tree_to_text(child)
        return f"({text})" if _prec(child) < minimum else text

    kind = node[0]
    if kind in ("num", "name", "const"):
        return node[1]
    if kind == "call":
        return f"{node[1]}({', '.join(tree_to_text(arg) for arg in node[2])})"
    if kind == "neg":
        return f"-{wrap(node[1], 2)}"
    left, right = node[1], node[2]
    if kind == "^":
        return f"{wrap(left, 5)}^{wrap(right, 5)}"
    # a negated operand after a binary operator reads badly ("a*-b"): parenthesise it
    right_min = {"+": 2, "-": 2, "*": 2, "/": 3}[kind]
    right_text = f"({tree_to_text(right)})" if right[0] == "neg" else wrap(right, right_min)
    separator = f" {kind} " if kind in "+-" else kind
    return f"{wrap(left, 1 if kind in '+-' else 2)}{separator}{right_text}"


def latex_to_text(latex: str, variables: Collection[str] = ()) -> str:
    """Translate one LaTeX formula (an expression) into plain syntax, e.g. \\frac{a^2}{b} -> a^2/b."""
    parser = _LatexParser(latex, variables)
    tree = parser.expr()
    if parser.at("rel"):
        raise parser.error("expected an expression, found a relation")
    parser.finish()
    return tree_to_text(tree)


def latex_relations(latex: str, variables: Collection[str] = ()) -> list[str]:
    """'a \\ge b \\ge c' -> ['a >= b', 'b >= c']: one plain relation per adjacent pair."""
    texts, relations = latex_chain(latex, variables)
    if not relations:
        raise FormalizeError(f"expected a relation (=, <, >, \\le, \\ge) in formula '{latex}'")
    return [f"{texts[i]} {relation} {texts[i + 1]}" for i, relation in enumerate(relations)]


def latex_chain(latex: str, variables: Collection[str] = ()) -> tuple[list[str], list[str]]:
    """A formula, or a chain of relations ('a \\ge b \\ge c'), as its parts in plain syntax and the
    relations between them (['a', 'b', 'c'], ['>=', '>='])."""
    parser = _LatexParser(latex, variables)
    parts, relations = parser.chain()
    parser.finish()
    return [tree_to_text(part) for part in parts], relations


def latex_names(latex: str, variables: Collection[str] = ()) -> set[str]:
    """The variable names a LaTeX formula uses (after the same reading as latex_to_text)."""
    parser = _LatexParser(latex, variables)
    parser.chain()
    return parser.names


# --- statement -> spec ----------------------------------------------------------------------------
# Delimited math in a statement ($$…$$, $…$, \(…\), \[…\]): the one pattern every reader of
# statements uses; each match has exactly one non-None group, the formula.
MATH_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_SENSE_WORDS = {
    "minimum": "min", "minimal": "min", "smallest": "min", "least": "min", "min": "min",
    "maximum": "max", "maximal": "max", "largest": "max", "greatest": "max", "max": "max",
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


_NAME = r"(?:\\(?:" + "|".join(sorted(_GREEK)) + r")(?![A-Za-z])|[A-Za-z])(?:_(?:\{[A-Za-z0-9]+\}|[A-Za-z0-9]))?"
_NAME_LIST = re.compile(rf"\s*{_NAME}(?:\s*,\s*{_NAME})*\s*")
_BETWEEN = re.compile(rf"(?P<low>.+?)(?P<rel1><|\\le(?:q|qslant)?(?![a-z])|≤)(?P<names>{_NAME_LIST.pattern})"
                      rf"(?P<rel2><|\\le(?:q|qslant)?(?![a-z])|≤)(?P<high>.+)", re.S)


def _names(text: str) -> list[str]:
    return [name.strip().lstrip("\\").replace("{", "").replace("}", "") for name in text.split(",")]


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
            return _names(between.group("names")), f"{'(' if strict[0] else '['}{low}, {high}{')' if strict[1] else ']'}"
    prefix = _NAME_LIST.match(latex)
    if prefix is None:
        return None
    names = _names(prefix.group())
    rest = tokenize_latex(latex[prefix.end():])[:-1]
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
    parser = _LatexParser(" ".join(t.text for t in tokens), (), tokens)
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
            low, high = _plain_number(inner[:commas[0]]), _plain_number(inner[commas[0] + 1:])
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


_DEFINITION = re.compile(r"\s*(?P<name>[A-Za-z])\s*(?:\((?P<arguments>[^()]*)\))?\s*=(?!=)")


def strip_definition(latex: str, variables: Collection[str]) -> str:
    """'P = a + b' or 'f(a, b) = a + b' -> 'a + b' (the objective is what the name stands for)."""
    match = _DEFINITION.match(latex)
    if match is None or match.group("name") in variables:
        return latex
    arguments = match.group("arguments")
    if arguments is not None and not set(_names(arguments)) <= set(variables):
        return latex
    return latex[match.end():]


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
    parser = _LatexParser(text, ())
    tree = parser.expr()
    parser.finish()
    if parser.names:
        raise FormalizeError(f"answer '{answer}' is not a number: it uses {sorted(parser.names)}")
    return tree_to_text(tree)


def formalize_statement(problem_id: str, statement: str, answer) -> dict:
    """Turn a statement in the standard phrasing plus its answer into a problem spec dict.

    Raises FormalizeError(reason) when the rules cannot read it (the caller may fall back to an LLM).
    """
    if not isinstance(statement, str) or not statement.strip():
        raise FormalizeError("statement is empty")
    segments, prose = _math_segments(statement)
    unsupported = _UNSUPPORTED.search(prose)
    if unsupported:
        raise FormalizeError(f"the statement mentions {unsupported.group()!r}, which a spec over real variables cannot express")
    # "at least" / "at most" are conditions, not what is asked for
    senses = {_SENSE_WORDS[w] for w in re.findall(r"(?<!\bat )\b(" + "|".join(_SENSE_WORDS) + r")(?:imum)?\b", prose)}
    objectives = list(_OBJECTIVE.finditer(prose))
    if len(objectives) != 1:
        raise FormalizeError(
            "no 'find the minimum/maximum (value) of $...$' clause" if not objectives
            else "more than one 'find the minimum/maximum' clause"
        )
    if len(senses) > 1:
        raise FormalizeError("the statement asks for both a minimum and a maximum")
    sense = _SENSE_WORDS[objectives[0].group("word")]
    objective_segment = int(objectives[0].group("segment"))

    declarations, relation_segments = [], []
    for index, latex in enumerate(segments):
        if index != objective_segment:
            declared = _declaration(latex)
            if declared is None:
                relation_segments.append(latex)
            else:
                declarations.append((index, *declared))
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


# --- the `extrembench formalize` subcommand -------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, help="JSONL file, one {id, statement, answer} per line ('-' = stdin)")


def formalize_line(line: str, line_number: int) -> dict:
    """One input line -> the spec, or {'id': ..., 'error': reason}."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as error:
        return {"id": None, "error": f"line {line_number}: not valid JSON ({error})"}
    if not isinstance(item, dict):
        return {"id": None, "error": f"line {line_number}: expected a JSON object"}
    missing = [key for key in ("id", "statement", "answer") if key not in item]
    if missing:
        return {"id": item.get("id"), "error": f"line {line_number}: missing field(s) {', '.join(missing)}"}
    try:
        return formalize_statement(str(item["id"]), item["statement"], item["answer"])
    except FormalizeError as error:
        return {"id": item["id"], "error": str(error)}


def run(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as stack:
        try:
            # stdin is the caller's to close; a file we open closes with the stack
            handle = sys.stdin if args.input == "-" else stack.enter_context(open(args.input, encoding="utf-8"))
        except OSError as error:
            print(f"extrembench formalize: cannot read --input {args.input}: {error}", file=sys.stderr)
            return 2
        for line_number, line in enumerate(handle, start=1):
            if line.strip():
                print(json.dumps(formalize_line(line, line_number), ensure_ascii=False), flush=True)
    return 0


# --- the rule's job: read artifacts, run this stage per problem, write its artifact
def formalize_shard(statements: Path, output: Path, *, benchmark: str, shard: int, n_shards: int,
                    limit: int | None, dag_node: str, caller=None, max_attempts: int = 3) -> None:
    """Extremal problems given as statement + answer (ExtremBench's release format) → specs: the
    rule-based formalizer first, the configured LLM (`caller`) when the rules cannot read one."""
    from extrembench.core.shards import shard_of, take
    from extrembench.sources.llm_convert import conversion_columns, formalize_with_fallback

    digest = sha256_file(statements)
    records = []
    for number, record in read_jsonl(statements):
        try:
            records.append((number, str(record["id"]), record["statement"], record["answer"]))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{statements}:{number}: need a JSON object with id, statement, answer ({exc})") from exc
    kept = set(take([r[1] for r in records], limit))
    records = sorted((r for r in records if r[1] in kept), key=lambda r: r[1])
    rows = []
    for number, problem_id, statement, answer in records:
        if shard_of(problem_id, n_shards) != shard:
            continue
        outcome = formalize_with_fallback(problem_id, statement, answer, caller, max_attempts=max_attempts)
        row = {"benchmark": benchmark, "problem_id": problem_id, "source_path": f"{statements}#line={number}",
               "source_sha256": digest, "technique": [], "difficulty": None, "dag_node": dag_node,
               **conversion_columns(outcome)}
        if outcome.spec is not None and row["statement"] is None:
            row["statement"] = statement
        if outcome.spec is None:
            row["error_field"] = "statement"
        rows.append(row)
    write_artifact(rows, output, "conversions", inputs=[statements])
    log.info("formalized %d problems: %d by rules, %d failed", len(rows),
             sum(r["converted_by"] == "rules" for r in rows), sum(r["error"] is not None for r in rows))
