"""Safe parser for plain math text (problem files, LLM-produced specs) into sympy expressions.

The text is tokenized and parsed by a small recursive-descent parser that builds sympy objects
directly from a fixed vocabulary: it never calls eval, exec, sympify or parse_expr on the text, so
nothing in a problem file can run code. Grammar (loosest binding first):

    relation := expr ( '=' | '==' | '>=' | '<=' | '>' | '<' | '≥' | '≤' ) expr
    expr     := term (('+' | '-') term)*
    term     := unary (('*' | '/') unary | unary)*       # juxtaposition "2a", "2(a+b)" multiplies
    unary    := ('+' | '-') unary | power
    power    := atom (('^' | '**') unary)?               # right associative; -a^2 = -(a^2)
    atom     := NUMBER | NAME | FUNCTION '(' expr (',' expr)* ')' | '(' expr ')'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

import sympy

# Characters of one expression. sympy builds each function call and sum with its own automatic
# simplification, so a longer text costs more than linear time: 5,000 characters of sines took
# several seconds per parse; 1,000 keep a whole problem (parsed a few times) under a second
# (benchmarks/parse_limits.py). The longest shipped expression has 111 characters.
MAX_TEXT_LENGTH = 1000
# Characters of all expressions of one problem together (objective, constraints, answer, source).
MAX_PROBLEM_TEXT_LENGTH = 2000
MAX_NESTING = 60
MAX_EXPONENT = 1000  # |numeric exponent|; larger ones only serve to exhaust memory
MAX_NUMBER_DIGITS = 60
# Digits of a number computed from constants (10^1000): kept well under Python's 4,300-digit
# int -> str limit, so every accepted number can be printed (statements, LaTeX gold answers).
MAX_RESULT_DIGITS = 1000
# Digits of all numbers of one expression together: 140 factors of 10^999 fit in 1,000
# characters but would make a 140,000-digit statement.
MAX_TOTAL_DIGITS = 5000
# Arguments of all Max/Min calls of one expression together. sympy compares every pair of
# arguments when it builds Max/Min (seconds for a few dozen trigonometric ones), so they are
# built unevaluated and their number is capped (benchmarks/parse_limits.py: worst cases < 1 s).
MAX_MINMAX_ARGS = 12  # Max and Min over six variables (ineq-0121)

RELATION_OPS = {"=": "=", "==": "=", ">=": ">=", "<=": "<=", ">": ">", "<": "<", "≥": ">=", "≤": "<="}


def _cbrt(x: sympy.Expr) -> sympy.Expr:
    """Real cube root (cbrt(-8) = -2), as olympiad texts mean it."""
    if x.is_number and x.is_extended_negative:
        return -sympy.cbrt(-x)
    return sympy.cbrt(x)


def _log(x: sympy.Expr, base: sympy.Expr | None = None) -> sympy.Expr:
    return sympy.log(x) if base is None else sympy.log(x, base)


# name -> (builder, min args, max args or None for unbounded)
FUNCTIONS: dict[str, tuple[Callable[..., sympy.Expr], int, int | None]] = {
    "sqrt": (sympy.sqrt, 1, 1),
    "cbrt": (_cbrt, 1, 1),
    "Abs": (sympy.Abs, 1, 1),
    "Max": (lambda *args: sympy.Max(*args, evaluate=False), 2, None),
    "Min": (lambda *args: sympy.Min(*args, evaluate=False), 2, None),
    "exp": (sympy.exp, 1, 1),
    "log": (_log, 1, 2),
    "sin": (sympy.sin, 1, 1),
    "cos": (sympy.cos, 1, 1),
    "tan": (sympy.tan, 1, 1),
}
CONSTANTS: dict[str, sympy.Expr] = {"pi": sympy.pi, "E": sympy.E}
RESERVED_NAMES = frozenset(FUNCTIONS) | frozenset(CONSTANTS)
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")


class ExpressionError(ValueError):
    """A math text that is not a valid expression; the message names the column."""

    def __init__(self, message: str, column: int | None = None, text: str | None = None):
        self.column = column
        self.text = text
        where = f"column {column}: " if column is not None else ""
        super().__init__(f"{where}{message}")


@dataclass(frozen=True)
class Token:
    kind: str  # 'num' | 'name' | 'op' | 'end'
    text: str
    column: int  # 1-based


_TOKEN_RE = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"  # ASCII digits only: \d takes ٢ and ２
    r"|(?P<name>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*)"
    r"|(?P<op>\*\*|==|>=|<=|[-+*/^(),=<>≥≤])"
)


def symbol(name: str) -> sympy.Symbol:
    """The sympy symbol a variable name parses to (plain, no assumptions, so it compares equal
    to sympy.Symbol(name) built anywhere else)."""
    return sympy.Symbol(name)


def check_variable_name(name: str) -> None:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ExpressionError(
            f"invalid variable name {name!r}: use a letter followed by letters/digits, e.g. a, x1, x_1"
        )
    if name in RESERVED_NAMES:
        raise ExpressionError(f"variable name {name!r} is reserved for a function or constant; rename it")


def tokenize(text: str) -> list[Token]:
    if not isinstance(text, str):
        raise ExpressionError(f"expected a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ExpressionError(f"expression too long ({len(text)} > {MAX_TEXT_LENGTH} characters)")
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN_RE.match(text, pos)
        if match is None:
            if text[pos].isdigit():
                raise ExpressionError(
                    f"non-ASCII digit {text[pos]!r} (U+{ord(text[pos]):04X}); write numbers with the digits 0-9",
                    pos + 1,
                    text,
                )
            raise ExpressionError(f"unexpected character {text[pos]!r}", pos + 1, text)
        if match.lastgroup != "space":
            tokens.append(Token(match.lastgroup, match.group(), pos + 1))
        pos = match.end()
    tokens.append(Token("end", "", len(text) + 1))
    return tokens


def _digits(n: int) -> int:
    """Decimal digits of |n|, from its bit length (never converts n to text: that is what fails
    past 4,300 digits); exact or one more."""
    return int(abs(n).bit_length() * 0.30103) + 1


def _rational_digits(value: sympy.Rational) -> int:
    return _digits(int(value.p)) + (_digits(int(value.q)) if value.q != 1 else 0)


def _number(token: Token) -> sympy.Rational:
    mantissa = re.split(r"[eE]", token.text)[0]
    if len(mantissa.replace(".", "").lstrip("0")) > MAX_NUMBER_DIGITS:
        raise ExpressionError(f"number {token.text[:20]}... has more than {MAX_NUMBER_DIGITS} digits", token.column)
    exponent = re.split(r"[eE]", token.text)[1:]
    if exponent and abs(int(exponent[0])) > MAX_RESULT_DIGITS:  # 1e99999999 would be built digit by digit
        raise ExpressionError(
            f"number {token.text[:30]} is too large (more than {MAX_RESULT_DIGITS} digits)", token.column
        )
    value = Fraction(token.text)  # exact: "0.1" is 1/10, "1e-3" is 1/1000
    if max(_digits(value.numerator), _digits(value.denominator)) > MAX_RESULT_DIGITS:
        raise ExpressionError(f"number {token.text} is too large (more than {MAX_RESULT_DIGITS} digits)", token.column)
    return sympy.Rational(value.numerator, value.denominator)


def check_number_sizes(expr: sympy.Expr) -> None:
    """Every number in `expr` at most MAX_RESULT_DIGITS digits, all together MAX_TOTAL_DIGITS:
    products of powers (10^999 * 10^999 * ...) are built by sympy, not by one power the parser
    checks, and must stay printable."""
    total = 0
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Rational):
            digits = _rational_digits(node)
            if digits > MAX_RESULT_DIGITS:
                raise ExpressionError(
                    f"a number computed in this expression has about {digits} digits (limit {MAX_RESULT_DIGITS})"
                )
            total += digits
    if total > MAX_TOTAL_DIGITS:
        raise ExpressionError(
            f"the numbers of this expression have about {total} digits together (limit {MAX_TOTAL_DIGITS})"
        )


class ExpressionParser:
    def __init__(self, text: str, variables: Iterable[str], functions: dict | None = None):
        self.text = text
        self.functions = functions or FUNCTIONS
        self.variables: dict[str, sympy.Symbol] = {}
        for name in variables:
            check_variable_name(name)
            self.variables[name] = symbol(name)
        self.tokens = tokenize(text)
        self.pos = 0
        self.depth = 0
        self.minmax_args = 0

    # -- token helpers
    @property
    def current(self) -> Token:
        return self.tokens[self.pos]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def error(self, message: str, token: Token | None = None) -> ExpressionError:
        token = token or self.current
        return ExpressionError(message, token.column, self.text)

    def expect(self, op: str) -> Token:
        if self.current.kind == "op" and self.current.text == op:
            return self.advance()
        found = repr(self.current.text) if self.current.kind != "end" else "end of text"
        raise self.error(f"expected {op!r}, found {found}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"expression nested deeper than {MAX_NESTING} levels")

    # -- grammar
    def parse_expression_only(self) -> sympy.Expr:
        expr = self.expr()
        if self.current.kind != "end":
            if self.current.kind == "op" and self.current.text in RELATION_OPS:
                raise self.error(f"unexpected relation {self.current.text!r} in an expression")
            raise self.error(f"unexpected {self.current.text!r}")
        check_number_sizes(expr)
        return expr

    def parse_relation(self) -> tuple[sympy.Expr, str, sympy.Expr]:
        lhs = self.expr()
        token = self.current
        if token.kind != "op" or token.text not in RELATION_OPS:
            found = "end of text" if token.kind == "end" else repr(token.text)
            raise self.error(f"expected a relation (=, >=, <=, >, <), found {found}")
        self.advance()
        rhs = self.expr()
        if self.current.kind == "op" and self.current.text in RELATION_OPS:
            raise self.error("chained relations are not allowed; write each relation as its own constraint")
        if self.current.kind != "end":
            raise self.error(f"unexpected {self.current.text!r}")
        check_number_sizes(lhs)
        check_number_sizes(rhs)
        return lhs, RELATION_OPS[token.text], rhs

    def expr(self) -> sympy.Expr:
        self.enter()
        terms = [self.term()]
        while self.current.kind == "op" and self.current.text in "+-":
            op = self.advance().text
            right = self.term()
            terms.append(right if op == "+" else self._negated(right))
        self.depth -= 1
        return self._sum(terms)

    @staticmethod
    def _sum(terms: list[sympy.Expr]) -> sympy.Expr:
        # One Add of all terms: adding them one at a time rebuilds the sum each time (quadratic).
        return sympy.Add(*terms) if len(terms) > 1 else terms[0]

    def _starts_atom(self, token: Token) -> bool:
        return token.kind in ("num", "name") or (token.kind == "op" and token.text == "(")

    def term(self) -> sympy.Expr:
        factors = [self.unary()]
        coefficient = self._numeric_part(factors[0])
        while True:
            token = self.current
            if token.kind == "op" and token.text in ("*", "/"):
                self.advance()
                right = self.unary()
                if token.text == "/":
                    if right == 0:
                        raise self.error("division by zero", token)
                    right = sympy.Pow(right, -1)
            elif self._starts_atom(token):
                if token.kind == "num" and self.tokens[self.pos - 1].kind == "num":
                    raise self.error("two numbers in a row; missing operator?")
                right = self.unary()
            else:
                # One Mul of all factors: multiplying one at a time is quadratic.
                return sympy.Mul(*factors) if len(factors) > 1 else factors[0]
            factors.append(right)
            # Stop a growing product of numbers as soon as it passes the digit limit.
            coefficient *= self._numeric_part(right)
            if _rational_digits(coefficient) > MAX_RESULT_DIGITS:
                raise self.error(f"product has more than {MAX_RESULT_DIGITS} digits", token)

    @staticmethod
    def _numeric_part(factor: sympy.Expr) -> sympy.Rational:
        coefficient = factor.as_coeff_Mul()[0]
        return coefficient if isinstance(coefficient, sympy.Rational) else sympy.Integer(1)

    def unary(self) -> sympy.Expr:
        token = self.current
        if token.kind == "op" and token.text in "+-":
            self.advance()
            self.enter()
            operand = self.unary()
            self.depth -= 1
            return self._negated(operand) if token.text == "-" else operand
        return self.power()

    @staticmethod
    def _negated(operand: sympy.Expr) -> sympy.Expr:
        """-operand (the source-order renderer in convert.py keeps it unevaluated)."""
        return -operand

    def power(self) -> sympy.Expr:
        base = self.atom()
        token = self.current
        if token.kind == "op" and token.text in ("^", "**"):
            self.advance()
            self.enter()
            exponent = self.unary()
            self.depth -= 1
            return self._checked_power(base, exponent, token)
        return base

    def _checked_power(self, base: sympy.Expr, exponent: sympy.Expr, token: Token) -> sympy.Expr:
        if exponent.is_number:
            magnitude = abs(exponent.evalf(15)) if exponent.is_real else None
            if magnitude is None or magnitude > MAX_EXPONENT:
                raise self.error(f"exponent {exponent} is too large (limit {MAX_EXPONENT})", token)
            if base.is_number and base != 0:
                base_size = abs(sympy.log(abs(base.evalf(15)), 10)) if base.is_real else 0
                if base_size * magnitude > MAX_RESULT_DIGITS:
                    raise self.error(f"power has more than {MAX_RESULT_DIGITS} digits", token)
            if base == 0 and exponent.is_real and exponent.is_negative:
                raise self.error("division by zero (0 to a negative power)", token)
        return sympy.Pow(base, exponent)

    def atom(self) -> sympy.Expr:
        token = self.current
        if token.kind == "num":
            self.advance()
            return _number(token)
        if token.kind == "name":
            self.advance()
            return self.name(token)
        if token.kind == "op" and token.text == "(":
            self.advance()
            inner = self.expr()
            self.expect(")")
            return inner
        found = "end of text" if token.kind == "end" else repr(token.text)
        raise self.error(f"expected a number, name or '(', found {found}")

    def name(self, token: Token) -> sympy.Expr:
        name = token.text
        if name in self.functions:
            return self.call(token)
        if self.current.kind == "op" and self.current.text == "(":
            raise self.error(f"unknown function {name!r} (allowed: {', '.join(self.functions)})", token)
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in self.variables:
            return self.variables[name]
        declared = ", ".join(self.variables) or "none"
        raise self.error(f"unknown name {name!r} (declared variables: {declared}; constants: pi, E)", token)

    def call(self, token: Token) -> sympy.Expr:
        builder, min_args, max_args = self.functions[token.text]
        if not (self.current.kind == "op" and self.current.text == "("):
            raise self.error(f"function {token.text} needs parentheses, e.g. {token.text}(x)", token)
        self.advance()
        self.enter()
        args = [self.expr()]
        while self.current.kind == "op" and self.current.text == ",":
            self.advance()
            args.append(self.expr())
        self.expect(")")
        self.depth -= 1
        if len(args) < min_args or (max_args is not None and len(args) > max_args):
            expected = (
                str(min_args) if min_args == max_args else f"{min_args}{'+' if max_args is None else f'-{max_args}'}"
            )
            raise self.error(f"{token.text} takes {expected} argument(s), got {len(args)}", token)
        if token.text in ("Max", "Min"):
            self.minmax_args += len(args)
            if self.minmax_args > MAX_MINMAX_ARGS:
                raise self.error(f"more than {MAX_MINMAX_ARGS} Max/Min arguments in one expression", token)
        return builder(*args)


def parse_expression(text: str, variables: Iterable[str], functions: dict | None = None) -> sympy.Expr:
    """Parse plain math text into a sympy expression over the given variable names; `functions`
    replaces the table FUNCTIONS (exact witnesses may also use acos and asin)."""
    return ExpressionParser(text, variables, functions).parse_expression_only()


def parse_relation(text: str, variables: Iterable[str]) -> tuple[sympy.Expr, str, sympy.Expr]:
    """Parse 'lhs OP rhs' with OP one of =, >=, <=, >, < (also ==, ≥, ≤); returns (lhs, op, rhs)."""
    return ExpressionParser(text, variables).parse_relation()
