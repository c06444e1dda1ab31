"""Orders of magnitude of an answer, by logarithms, without building the number.

`\\boxed{9^{9^{9^9}}}` makes every symbolic engine try to build a number with 10^369,693,099 digits;
the grade times out. Yet its size is easy to bound: log10(9^{9^{9^9}}) = 9^{9^9} * log10(9), and
that product can itself be bounded through its logarithm. This module reads the small LaTeX
arithmetic such answers are written in (numerals, ^, products, \\frac, parentheses, unary minus)
and returns an interval that provably contains log10 |value|; no library does this without
evaluating. A sum or anything else it does not read gives None (no claim).

Interval ends are floats widened by a relative 1e-9 against rounding; a lower end of +inf means
"at least about 1e308", which is all a comparison with a gold answer of ordinary size needs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_SLACK = 1e-9
_TOKEN = re.compile(r"\s+|(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)|(?P<cmd>\\[A-Za-z]+|\\[,;:! ])|(?P<op>[-+^*/{}()\[\]])")
_SKIPPED = {"\\left", "\\right", "\\,", "\\;", "\\:", "\\!", "\\ ", "\\displaystyle"}
_TIMES = {"*", "\\cdot", "\\times"}
MAX_TOKENS = 2000


@dataclass(frozen=True)
class Size:
    """A real number by its sign and an interval [lo, hi] holding log10 |x|; zero has sign 0."""

    sign: int
    lo: float
    hi: float


ZERO = Size(0, -math.inf, -math.inf)


def _widen(lo: float, hi: float) -> tuple[float, float]:
    return lo - _SLACK * (1 + abs(lo)) if math.isfinite(lo) else lo, hi + _SLACK * (1 + abs(hi)) if math.isfinite(
        hi
    ) else hi


def _pow10(exponent: float) -> float:
    """10^exponent, saturating at +inf (a lower end of inf reads "at least ~1e308")."""
    if exponent > 308:
        return math.inf
    return 10.0**exponent


def _numeral(text: str) -> Size:
    digits = text.replace(".", "").lstrip("0")
    if not digits:
        return ZERO
    whole = text.split(".")[0].lstrip("0")
    if len(whole) > 300:  # too long for a float: the digit count bounds it
        return Size(1, len(whole) - 1, len(whole))
    value = math.log10(float(text))
    return Size(1, *_widen(value, value))


def _times(a: Size, b: Size) -> Size:
    if a.sign == 0 or b.sign == 0:
        return ZERO
    return Size(a.sign * b.sign, *_widen(a.lo + b.lo, a.hi + b.hi))


def _divide(a: Size, b: Size) -> Size | None:
    if b.sign == 0:
        return None
    if a.sign == 0:
        return ZERO
    return Size(a.sign * b.sign, *_widen(a.lo - b.hi, a.hi - b.lo))


def _power(base: Size, exponent: Size) -> Size | None:
    """base^exponent for base > 0: log10 = exponent * log10(base), bounded through logarithms."""
    if base.sign <= 0:
        return None  # a negative or zero base: not read
    if exponent.sign == 0:
        return Size(1, 0.0, 0.0)  # x^0 = 1
    if base.lo > 0:
        log_base_sign, mag_lo, mag_hi = 1, base.lo, base.hi  # base > 1: log10(base) in [lo, hi] > 0
    elif base.hi < 0:
        log_base_sign, mag_lo, mag_hi = -1, -base.hi, -base.lo  # base < 1: |log10(base)| in [-hi, -lo]
    else:
        return None  # base may be 1: no claim
    if not (mag_lo > 0):
        return None
    # |exponent * log10(base)| = 10^(log10|exponent| + log10|log10(base)|), each end separately
    low = _pow10(exponent.lo + math.log10(mag_lo))
    high = _pow10(exponent.hi + math.log10(mag_hi))
    low, high = _widen(low, high)
    low = max(low, 0.0)
    if exponent.sign * log_base_sign > 0:
        return Size(1, low, high)
    return Size(1, -high, -low)


def _read(value: Size | None) -> Size:
    """The value of a step, or the "not read" failure when the step makes no claim."""
    if value is None:
        raise ValueError("not read")
    return value


class _Reader:
    def __init__(self, text: str):
        self.tokens = [m.group() for m in _TOKEN.finditer(text) if not m.group().isspace()]
        joined = "".join(self.tokens)
        if joined != re.sub(r"\s+", "", text) or len(self.tokens) > MAX_TOKENS:
            raise ValueError("not read")
        self.tokens = [t for t in self.tokens if t not in _SKIPPED]
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ValueError("not read")
        self.pos += 1
        return token

    def product(self) -> Size:
        value = self.unary()
        while self.peek() in _TIMES or self.peek() == "/":
            op = self.take()
            right = self.unary()
            value = _read(_times(value, right) if op != "/" else _divide(value, right))
        return value

    def unary(self) -> Size:
        if self.peek() in ("-", "+"):
            sign = -1 if self.take() == "-" else 1
            value = self.unary()
            return Size(sign * value.sign, value.lo, value.hi)
        return self.power()

    def power(self) -> Size:
        base = self.atom()
        if self.peek() == "^":
            self.take()
            exponent = self.unary()  # right associative: 9^9^9 = 9^(9^9)
            base = _read(_power(base, exponent))
        return base

    def atom(self) -> Size:
        token = self.take()
        if re.fullmatch(r"[0-9.]+", token):
            return _numeral(token)
        closing = {"{": "}", "(": ")", "[": "]"}.get(token)
        if closing:
            value = self.product()
            self.take(closing)
            return value
        if token in ("\\frac", "\\dfrac", "\\tfrac"):
            top = self.braced()
            return _read(_divide(top, self.braced()))
        raise ValueError("not read")

    def braced(self) -> Size:
        self.take("{")
        value = self.product()
        self.take("}")
        return value


def log10_size(text: str) -> Size | None:
    """Sign and an interval holding log10 |value| of a LaTeX answer, or None when it is not the
    plain arithmetic this reads."""
    try:
        reader = _Reader(text)
        value = reader.product()
        if reader.peek() is not None:
            return None
        return value
    except (ValueError, OverflowError, RecursionError):
        return None


def far_apart(answer: Size, gold_value: float) -> bool:
    """True when |answer| is provably more than 10 times larger or smaller than |gold|, or the
    answer is provably nonzero against a gold of 0 (so the two cannot be equal)."""
    if gold_value == 0:
        return answer.sign != 0 and answer.lo > -math.inf
    if answer.sign == 0:
        return True
    gold_log = math.log10(abs(gold_value))
    return answer.lo > gold_log + 1 or answer.hi < gold_log - 1
