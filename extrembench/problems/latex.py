"""The project's one LaTeX reader: a tokenizer and a recursive-descent parser that build a tree and
print it in the plain expression syntax of extrembench.problems.expr. Nothing is evaluated; anything it
cannot read raises FormalizeError with the reason (the name the formalizer's rows have always shown).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass


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
    "=": "=",
    "<": "<",
    ">": ">",
    "≤": "<=",
    "≥": ">=",
    r"\le": "<=",
    r"\leq": "<=",
    r"\leqslant": "<=",
    r"\ge": ">=",
    r"\geq": ">=",
    r"\geqslant": ">=",
    r"\lt": "<",
    r"\gt": ">",
}


_OPERATORS = {
    "+": "+",
    "-": "-",
    "−": "-",
    "*": "*",
    "·": "*",
    "×": "*",
    r"\cdot": "*",
    r"\times": "*",
    "/": "/",
    "÷": "/",
    r"\div": "/",
    "^": "^",
    "_": "_",
    ",": ",",
    "(": "(",
    ")": ")",
    "[": "[",
    "]": "]",
    "{": "{",
    "}": "}",
    r"\{": r"\{",
    r"\}": r"\}",
    r"\lbrace": r"\{",
    r"\rbrace": r"\}",
    "|": "|",
    r"\vert": "|",
    r"\lvert": "|L",
    r"\rvert": "|R",
    r"\mid": "|",
    "∈": "in",
    r"\in": "in",
}


_FUNCTIONS = {
    r"\sin": "sin",
    r"\cos": "cos",
    r"\tan": "tan",
    r"\exp": "exp",
    r"\ln": "log",
    r"\max": "Max",
    r"\min": "Min",
}


# Sizing and style commands that change nothing about the formula.
_IGNORED = {
    r"\left",
    r"\right",
    r"\big",
    r"\Big",
    r"\bigg",
    r"\Bigg",
    r"\bigl",
    r"\bigr",
    r"\Bigl",
    r"\Bigr",
    r"\biggl",
    r"\biggr",
    r"\Biggl",
    r"\Biggr",
    r"\displaystyle",
    r"\textstyle",
    r"\quad",
    r"\qquad",
    r"\limits",
}


GREEK = {"alpha", "beta", "gamma", "delta", "theta", "lambda", "mu", "phi", "psi", "omega", "sigma", "tau"}


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
            if text in (r"\left", r"\right") and latex[pos : pos + 1] == ".":
                pos += 1  # \left. and \right. are invisible delimiters
            if text == r"\left" and latex[pos : pos + 1] == "|":
                tokens.append(Tok("op", "|L"))
                pos += 1
            elif text == r"\right" and latex[pos : pos + 1] == "|":
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
        elif text[1:] in GREEK:
            tokens.append(Tok("name", text[1:]))
        elif text in _STRUCTURES:
            tokens.append(Tok("cmd", text))
        else:
            raise FormalizeError(f"unsupported LaTeX '{text}' in formula '{latex}'")
    tokens.append(Tok("end", ""))
    return tokens


class LatexParser:
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
            raise self.error(
                f"only the cyclic {command}_{{cyc}} is supported (index ranges and symmetric sums are not)"
            )
        body = self.term()
        used = _tree_names(body)
        if not used or not used <= self.variables:
            raise self.error(f"{command}_{{cyc}} needs a body over the declared variables")
        count = len(self.order)
        terms = [
            _rename(body, {name: self.order[(i + shift) % count] for i, name in enumerate(self.order)})
            for shift in range(count)
        ]
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
    parser = LatexParser(latex, variables)
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
    parser = LatexParser(latex, variables)
    parts, relations = parser.chain()
    parser.finish()
    return [tree_to_text(part) for part in parts], relations


def latex_names(latex: str, variables: Collection[str] = ()) -> set[str]:
    """The variable names a LaTeX formula uses (after the same reading as latex_to_text)."""
    parser = LatexParser(latex, variables)
    parser.chain()
    return parser.names


# --- statement -> spec ----------------------------------------------------------------------------
# Delimited math in a statement ($$…$$, $…$, \(…\), \[…\]): the one pattern every reader of
# statements uses; each match has exactly one non-None group, the formula.
MATH_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


_DEFINITION = re.compile(r"\s*(?P<name>[A-Za-z])\s*(?:\((?P<arguments>[^()]*)\))?\s*=(?!=)")


def strip_definition(latex: str, variables: Collection[str]) -> str:
    """'P = a + b' or 'f(a, b) = a + b' -> 'a + b' (the objective is what the name stands for)."""
    match = _DEFINITION.match(latex)
    if match is None or match.group("name") in variables:
        return latex
    arguments = match.group("arguments")
    if arguments is not None and not set(name_list(arguments)) <= set(variables):
        return latex
    return latex[match.end() :]


NAME = r"(?:\\(?:" + "|".join(sorted(GREEK)) + r")(?![A-Za-z])|[A-Za-z])(?:_(?:\{[A-Za-z0-9]+\}|[A-Za-z0-9]))?"
NAME_LIST = re.compile(rf"\s*{NAME}(?:\s*,\s*{NAME})*\s*")


def name_list(text: str) -> list[str]:
    return [name.strip().lstrip("\\").replace("{", "").replace("}", "") for name in text.split(",")]
