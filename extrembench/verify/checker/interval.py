"""Rigorous interval enclosures of parsed expressions.

Two arithmetics:
- `Interval`: pairs of machine floats, every end rounded outward by hand (IEEE round-to-nearest,
  then one step with math.nextafter unless the result is known exact). This is what the
  branch-and-bound runs on: +, -, *, / and sqrt are correctly rounded in IEEE 754, so the bytes
  of a proof are the same on every machine; powers are repeated products for the same reason
  (libm's pow is not correctly rounded everywhere). Transcendental functions (exp, log, sin, ...)
  go through mpmath's interval context at 53 bits (its own software arithmetic, the same result
  everywhere), never through libm.
- `enclose_mp(expr, prec)`: mpmath intervals at any precision, for the sign of an exact
  constant (witness checks) and, strict, for the refutation verifier's exact points.

Why not arb balls: tails to infinity need half-infinite intervals ([1, +inf] and
1/[0, d] = [1/d, +inf]), which balls cannot represent.

Expressions come from the safe parser (extrembench.problems.expr), so the node types below are the whole
vocabulary plus what sympy's differentiation of it produces (sign, Heaviside). A node outside it
raises Unsupported. Many expressions over the same symbols (objective, gradient, Hessian) compile
into one `Program` sharing common subexpressions, evaluated once per box.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import mpmath
import sympy
from mpmath.libmp import from_float as _from_float
from mpmath.libmp import libmpi
from mpmath.libmp import round_ceiling as _CEILING
from mpmath.libmp import round_floor as _FLOOR
from mpmath.libmp import to_float as _to_float

PRECISION_BITS = 53
ctx = mpmath.MPIntervalContext()  # a context of our own: another module's iv.prec never changes ours
ctx.prec = PRECISION_BITS

_INF = math.inf
_MAX = 1.7976931348623157e308
_nextafter = math.nextafter


class Unsupported(ValueError):
    """An expression node this module cannot enclose rigorously."""


class Undefined(ArithmeticError):
    """The expression is undefined (not real) on the whole box: no valid point lies in it."""


def _dn(x: float) -> float:
    return _nextafter(x, -_INF)


def _upw(x: float) -> float:
    return _nextafter(x, _INF)


def _add_lo(x: float, y: float) -> float:
    s = x + y
    if -_MAX <= s <= _MAX:
        # TwoSum: s + err is the exact sum, so s is a lower bound exactly when err >= 0
        t = s - x
        err = (x - (s - t)) + (y - t)
        return s if err >= 0 else _dn(s)
    if s != s:  # inf - inf: an unbounded lower end
        return -_INF
    if s == _INF and x != _INF and y != _INF:
        return _MAX  # overflow of finite ends: the exact sum is above the largest float
    return s


def _add_hi(x: float, y: float) -> float:
    s = x + y
    if -_MAX <= s <= _MAX:
        t = s - x
        err = (x - (s - t)) + (y - t)
        return s if err <= 0 else _upw(s)
    if s != s:
        return _INF
    if s == -_INF and x != -_INF and y != -_INF:
        return -_MAX
    return s


_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's split of a double into two 26-bit halves
_SAFE = 1e150  # below this the split and the error term neither overflow nor lose bits


def _product_error(x: float, y: float, p: float) -> float:
    """x*y - p exactly (Dekker's TwoProduct), for |x|, |y| < _SAFE and p = fl(x*y) not tiny."""
    c = _SPLIT * x
    xh = c - (c - x)
    xl = x - xh
    c = _SPLIT * y
    yh = c - (c - y)
    yl = y - yh
    return ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _mul_lo(x: float, y: float) -> float:
    p = x * y
    if p != p:  # 0 * inf: an end at 0 times an unbounded end; 0 times any real is 0
        return 0.0
    if x == 0 or y == 0:
        return p
    if 1e-290 < abs(p) < 1e300 and -_SAFE < x < _SAFE and -_SAFE < y < _SAFE:
        # exact products (a sign flip, a dyadic box end times a small integer) stay exact, so
        # a difference that is exactly 0 at a box end keeps its sign
        return p if _product_error(x, y, p) >= 0 else _dn(p)
    if p == 0:  # underflow: the sign is still known
        return 0.0 if (x > 0) == (y > 0) else -5e-324
    if p == _INF:
        return _MAX if (x != _INF and x != -_INF and y != _INF and y != -_INF) else _INF
    return _dn(p)


def _mul_hi(x: float, y: float) -> float:
    p = x * y
    if p != p:
        return 0.0
    if x == 0 or y == 0:
        return p
    if 1e-290 < abs(p) < 1e300 and -_SAFE < x < _SAFE and -_SAFE < y < _SAFE:
        return p if _product_error(x, y, p) <= 0 else _upw(p)
    if p == 0:
        return 0.0 if (x > 0) != (y > 0) else 5e-324
    if p == -_INF:
        return -_MAX if (x != _INF and x != -_INF and y != _INF and y != -_INF) else -_INF
    return _upw(p)


def _quotient_remainder_sign(x: float, y: float, q: float) -> float:
    """The sign of x/y - q (q = fl(x/y)) exactly, from x - q*y (TwoProduct), for moderate values."""
    p = q * y
    remainder = (x - p) - _product_error(q, y, p)  # x - p is exact: p is within an ulp of x
    return remainder if y > 0 else -remainder


def _div_lo(x: float, y: float) -> float:
    q = x / y
    if q != q:  # inf / inf
        return -_INF
    if x == 0:
        return q
    if 1e-290 < abs(q) < 1e300 and 1e-140 < abs(x) < 1e140 and 1e-140 < abs(y) < 1e140:
        return q if _quotient_remainder_sign(x, y, q) >= 0 else _dn(q)
    if q == 0:  # underflow or a finite end over an infinite one: the sign is still known
        return 0.0 if (x > 0) == (y > 0) else -5e-324
    if q == _INF:
        return _MAX if (x != _INF and x != -_INF) else _INF
    return _dn(q)


def _div_hi(x: float, y: float) -> float:
    q = x / y
    if q != q:
        return _INF
    if x == 0:
        return q
    if 1e-290 < abs(q) < 1e300 and 1e-140 < abs(x) < 1e140 and 1e-140 < abs(y) < 1e140:
        return q if _quotient_remainder_sign(x, y, q) <= 0 else _upw(q)
    if q == 0:
        return 0.0 if (x > 0) != (y > 0) else 5e-324
    if q == -_INF:
        return -_MAX if (x != _INF and x != -_INF) else -_INF
    return _upw(q)


class Interval:
    """[a, b] with float ends (a may be -inf, b +inf); arithmetic rounds outward."""

    __slots__ = ("a", "b")

    def __init__(self, a: float, b: float):
        self.a = a
        self.b = b

    def __repr__(self) -> str:
        return f"[{self.a!r}, {self.b!r}]"

    @property
    def mid(self) -> float:
        """A float near the middle (0 for an interval unbounded both ways); not rigorous."""
        if self.a == -_INF or self.b == _INF:
            return self.b if self.a == -_INF and self.b != _INF else (self.a if self.a != -_INF else 0.0)
        return self.a / 2 + self.b / 2

    def __add__(self, o):
        if type(o) is not Interval:
            o = _const(o)
        return Interval(_add_lo(self.a, o.a), _add_hi(self.b, o.b))

    __radd__ = __add__

    def __neg__(self):
        return Interval(-self.b, -self.a)

    def __sub__(self, o):
        if type(o) is not Interval:
            o = _const(o)
        return Interval(_add_lo(self.a, -o.b), _add_hi(self.b, -o.a))

    def __rsub__(self, o):
        return _const(o) - self

    def __mul__(self, o):
        if type(o) is not Interval:
            o = _const(o)
        a, b, c, d = self.a, self.b, o.a, o.b
        if a >= 0:
            if c >= 0:
                return Interval(_mul_lo(a, c), _mul_hi(b, d))
            if d <= 0:
                return Interval(_mul_lo(b, c), _mul_hi(a, d))
            return Interval(_mul_lo(b, c), _mul_hi(b, d))
        if b <= 0:
            if c >= 0:
                return Interval(_mul_lo(a, d), _mul_hi(b, c))
            if d <= 0:
                return Interval(_mul_lo(b, d), _mul_hi(a, c))
            return Interval(_mul_lo(a, d), _mul_hi(a, c))
        if c >= 0:
            return Interval(_mul_lo(a, d), _mul_hi(b, d))
        if d <= 0:
            return Interval(_mul_lo(b, c), _mul_hi(a, c))
        return Interval(min(_mul_lo(a, d), _mul_lo(b, c)), max(_mul_hi(a, c), _mul_hi(b, d)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        if type(o) is not Interval:
            o = _const(o)
        return _divide(self, o)

    def __rtruediv__(self, o):
        return _divide(_const(o), self)

    def __pow__(self, n):
        if not isinstance(n, int):
            raise TypeError("Interval ** needs an integer exponent")
        return _int_power(self, n)


ENTIRE = Interval(-_INF, _INF)


def _divide(x: Interval, y: Interval) -> Interval:
    a, b, c, d = x.a, x.b, y.a, y.b
    if c < 0 < d or (c == 0 and d == 0):
        return ENTIRE
    if d <= 0 and c < 0:  # a nonpositive divisor: x / y = (-x) / (-y)
        a, b, c, d = -b, -a, -d, -c
    if c == 0:  # divisor [0, d]: values x / t for t in (0, d]
        if a >= 0:
            return Interval(_div_lo(a, d), _INF) if a > 0 else Interval(0.0, _INF)
        if b <= 0:
            return Interval(-_INF, _div_hi(b, d)) if b < 0 else Interval(-_INF, 0.0)
        return ENTIRE
    if a >= 0:
        return Interval(_div_lo(a, d), _div_hi(b, c))
    if b <= 0:
        return Interval(_div_lo(a, c), _div_hi(b, d))
    return Interval(_div_lo(a, c), _div_hi(b, c))


def _pow_lo(v: float, n: int, mul=_mul_lo) -> float:
    """A lower bound on v**n for v >= 0 (repeated rounded-down products); mul=_mul_hi: an upper bound."""
    out, base = 1.0, v
    while n:
        if n & 1:
            out = mul(out, base)
        n >>= 1
        if n:
            base = mul(base, base)
    return out


def _pow_hi(v: float, n: int) -> float:
    return _pow_lo(v, n, _mul_hi)


def _int_power(x: Interval, n: int) -> Interval:
    if n < 0:
        return _divide(_ONE, _int_power(x, -n))
    if n == 0:
        return _ONE
    if n == 1:
        return x
    a, b = x.a, x.b
    if a >= 0:
        return Interval(_pow_lo(a, n), _pow_hi(b, n))
    if n & 1:  # odd: increasing; (-v)^n = -(v^n)
        lo = -_pow_hi(-a, n)
        hi = _pow_hi(b, n) if b >= 0 else -_pow_lo(-b, n)
        return Interval(lo, hi)
    if b <= 0:
        return Interval(_pow_lo(-b, n), _pow_hi(-a, n))
    return Interval(0.0, _pow_hi(max(-a, b), n))


def _float_point(value: Fraction) -> Interval:
    """The tightest float interval around an exact rational."""
    try:
        f = value.numerator / value.denominator  # correctly rounded (Python's int true division)
    except OverflowError:
        return Interval(_MAX, _INF) if value > 0 else Interval(-_INF, -_MAX)
    if f == _INF:
        return Interval(_MAX, _INF)
    if f == -_INF:
        return Interval(-_INF, -_MAX)
    exact = Fraction(f)
    if exact == value:
        return Interval(f, f)
    return Interval(f, _upw(f)) if exact < value else Interval(_dn(f), f)


def _const(value) -> Interval:
    if isinstance(value, Interval):
        return value
    if isinstance(value, float):
        return Interval(value, value)
    return _float_point(Fraction(value))


_ONE = Interval(1.0, 1.0)


def point(value: Fraction | int) -> Interval:
    """The tightest interval around an exact rational."""
    return _float_point(Fraction(value))


def interval(lo: Fraction | None, hi: Fraction | None) -> Interval:
    """[lo, hi] enclosed outward; None is an infinite end."""
    low = _float_point(Fraction(lo)).a if lo is not None else -_INF
    high = _float_point(Fraction(hi)).b if hi is not None else _INF
    return Interval(low, high)


def make(lo: float, hi: float) -> Interval:
    return Interval(lo, hi)


def lower(x: Interval) -> float:
    return x.a


def upper(x: Interval) -> float:
    return x.b


# ------------------------------------------------------------- transcendental functions via mpmath


def _from_raw(lo_raw, hi_raw) -> Interval:
    """mpmath raw ends (53 bits, rounded down / up) as floats, one step further outward: mpmath's
    transcendental functions are not correctly rounded in hard cases (exp(-1.4354403615871498)
    rounded up comes out below the true value, by 4e-20 relative), so an end is trusted only
    when it is 0 (exact zeros: sin 0, log 1)."""
    lo, hi = _to_float(lo_raw, rnd=_FLOOR), _to_float(hi_raw, rnd=_CEILING)
    if lo != lo or hi != hi:
        return ENTIRE
    if lo != 0:
        lo = _dn(lo)
    if hi != 0:
        hi = _upw(hi)
    return Interval(lo, hi)


def _from_mp(v) -> Interval:
    return _from_raw(*v._mpi_)


def _libmpi_unary(func, lowest: float = -_INF, highest: float = _INF):
    """A mpmath.libmp interval function applied to float ends (exact as raw mpf) at 53 bits:
    mpmath's own software arithmetic, never libm; clipped to the function's range."""

    def apply(x: Interval) -> Interval:
        lo, hi = func((_from_float(x.a), _from_float(x.b)), PRECISION_BITS)
        out = _from_raw(lo, hi)
        if out.a < lowest or out.b > highest:
            out = Interval(max(out.a, lowest), min(out.b, highest))
        return out

    return apply


_exp = _libmpi_unary(libmpi.mpi_exp, 0.0)
_log_raw = _libmpi_unary(libmpi.mpi_log)


def _root_candidate(v: float, q: int) -> float:
    """A float within a few ulps of v^(1/q), v > 0 finite, by Newton's iteration in correctly
    rounded arithmetic only (the same bits everywhere)."""
    m, e = math.frexp(v)
    k, r = divmod(e, q)
    w = math.ldexp(m, r)  # v = w * 2^(q k), w in [1/2, 2^(q-1)): root in [1/2, 2)
    x = 1.0
    for _ in range(100):
        power = 1.0
        for _ in range(q - 1):
            power *= x
        nx = ((q - 1) * x + w / power) / q
        if nx == x:
            break
        x = nx
    return math.ldexp(x, k)


def _root_lo(v: float, q: int) -> float:
    """A float r with r^q <= v, within a few ulps of v^(1/q) (v >= 0)."""
    if v == 0 or v == _INF:
        return v
    r = _root_candidate(v, q)
    for _ in range(64):
        if _pow_hi(r, q) <= v:
            return r
        r = _dn(r)
    return 0.0


def _root_hi(v: float, q: int) -> float:
    if v == 0 or v == _INF:
        return v
    r = _root_candidate(v, q)
    for _ in range(64):
        if _pow_lo(r, q) >= v:
            return r
        r = _upw(r)
    return _INF


def _abs(x: Interval) -> Interval:
    lo, hi = x.a, x.b
    if lo >= 0:
        return x
    if hi <= 0:
        return -x
    return Interval(0.0, max(-lo, hi))


def _sqrt(x: Interval) -> Interval:
    # points where the radicand is negative are not real points of the problem: enclose the rest
    if x.b < 0:
        raise Undefined("square root of a negative number on the whole box")
    lo = max(x.a, 0.0)
    r_lo = math.sqrt(lo)
    r_hi = math.sqrt(x.b) if x.b != _INF else _INF
    if not _exact_root(r_lo, lo):  # sqrt is correctly rounded: one step outward unless exact
        r_lo = _dn(r_lo)
    if r_hi != _INF and not _exact_root(r_hi, x.b):
        r_hi = _upw(r_hi)
    return Interval(max(r_lo, 0.0), r_hi)


def _exact_root(r: float, v: float) -> bool:
    """r * r == v exactly, decided where the product cannot round: r an integer below 2^26."""
    return r == 0 and v == 0 or (r.is_integer() and r < 67108864 and r * r == v)


def _log(x: Interval) -> Interval:
    if x.b <= 0:
        raise Undefined("logarithm of a non-positive number on the whole box")
    return _log_raw(Interval(max(x.a, 0.0), x.b))


def _sign(x: Interval) -> Interval:
    if x.a > 0:
        return Interval(1.0, 1.0)
    if x.b < 0:
        return Interval(-1.0, -1.0)
    return Interval(-1.0 if x.a < 0 else 0.0, 1.0 if x.b > 0 else 0.0)


def _heaviside(x: Interval) -> Interval:
    if x.a > 0:
        return Interval(1.0, 1.0)
    if x.b < 0:
        return Interval(0.0, 0.0)
    return Interval(0.0, 1.0)


def _max2(x: Interval, y: Interval) -> Interval:
    return Interval(max(x.a, y.a), max(x.b, y.b))


def _min2(x: Interval, y: Interval) -> Interval:
    return Interval(min(x.a, y.a), min(x.b, y.b))


def _rational_power(base: Interval, exponent: Fraction) -> Interval:
    if exponent.denominator == 1:
        return _int_power(base, int(exponent))
    if exponent.denominator == 2:
        return _int_power(_sqrt(base), exponent.numerator)
    # other roots of a nonnegative base (sympy's cbrt is x**(1/3), principal branch)
    if base.b < 0:
        raise Undefined("fractional power of a negative number on the whole box")
    lo, hi = max(base.a, 0.0), base.b
    if hi == 0 and exponent < 0:
        raise Undefined("0 to a negative power on the whole box")
    q = exponent.denominator
    root = Interval(_root_lo(lo, q), _root_hi(hi, q))
    return _int_power(root, exponent.numerator)


def _general_power(base: Interval, power: Interval) -> Interval:
    return _exp(power * _log(base))


_UNARY = {
    sympy.sin: _libmpi_unary(libmpi.mpi_sin, -1.0, 1.0),
    sympy.cos: _libmpi_unary(libmpi.mpi_cos, -1.0, 1.0),
    sympy.tan: _libmpi_unary(libmpi.mpi_tan),
    sympy.exp: _exp,
    sympy.log: _log,
    sympy.Abs: _abs,
    sympy.sign: _sign,
    sympy.Heaviside: _heaviside,
}

_PI = _from_mp(ctx.pi)
_E = _from_mp(ctx.e)


# ------------------------------------------------------------- programs: expressions sharing subexpressions


def _add(x, y):
    return x + y


def _mul(x, y):
    return x * y


class Program:
    """Expressions over `symbols` compiled into one list of steps; identical subexpressions
    (sympy trees compare structurally) become one step, computed once per evaluation."""

    def __init__(self, symbols: Sequence[sympy.Symbol]):
        self.symbols = list(symbols)
        self._slot = {s: i for i, s in enumerate(self.symbols)}
        self._template: list = [None] * len(self.symbols)
        self._steps: list = []  # (slot, op, arg slot, arg slot)
        self._needed: list = []  # per added expression: the steps it needs, in order
        self._step_of: dict = {}  # slot -> step index
        self._cache: dict = {}
        self.exprs: list = []  # per handle: the expression added

    def add(self, expr: sympy.Expr) -> int:
        """Compile `expr`; returns its handle for `Run.value`."""
        self.exprs.append(sympy.sympify(expr))  # expr is already a sympy tree; sympify only wraps ints
        slot = self._node(self.exprs[-1])
        needed, seen, stack = [], set(), [slot]
        while stack:
            s = stack.pop()
            if s in seen or s not in self._step_of:
                continue
            seen.add(s)
            _, _, x, y = self._steps[self._step_of[s]]
            stack.extend((x, y))
        needed = sorted(self._step_of[s] for s in seen)
        self._needed.append(([self._steps[k] for k in needed], slot))
        return len(self._needed) - 1

    def _leaf(self, value) -> int:
        self._template.append(value)
        return len(self._template) - 1

    def _emit(self, op, x: int, y: int) -> int:
        slot = self._leaf(None)
        self._step_of[slot] = len(self._steps)
        self._steps.append((slot, op, x, y))
        return slot

    def _fold(self, op, operands):
        """op applied left to right over the operands' nodes (a + b + c as (a + b) + c)."""
        args = [self._node(a) for a in operands]
        total = args[0]
        for a in args[1:]:
            total = self._emit(op, total, a)
        return total

    def _node(self, e: sympy.Expr) -> int:
        cached = self._cache.get(e)
        if cached is not None:
            return cached
        slot = self._compile(e)
        self._cache[e] = slot
        return slot

    def _compile(self, e: sympy.Expr) -> int:
        if e.is_Symbol:
            if e not in self._slot:
                raise Unsupported(f"unknown symbol {e}")
            return self._slot[e]
        if e.is_Rational:
            return self._leaf(point(Fraction(int(e.p), int(e.q))))
        if e is sympy.pi:
            return self._leaf(_PI)
        if e is sympy.E:
            return self._leaf(_E)
        if isinstance(e, (sympy.Add, sympy.Mul)):
            return self._fold(_add if isinstance(e, sympy.Add) else _mul, e.args)
        if isinstance(e, sympy.Pow):
            base = self._node(e.base)
            if e.exp.is_Rational:
                exponent = Fraction(int(e.exp.p), int(e.exp.q))
                if exponent.denominator == 1:
                    n = int(exponent)
                    return self._emit(lambda x, _: _int_power(x, n), base, base)
                return self._emit(lambda x, _: _rational_power(x, exponent), base, base)
            return self._emit(_general_power, base, self._node(e.exp))
        if isinstance(e, (sympy.Max, sympy.Min)):
            return self._fold(_max2 if isinstance(e, sympy.Max) else _min2, e.args)
        for kind, func in _UNARY.items():
            # Heaviside carries its value at 0 as a second argument; [0, 1] covers it either way
            if isinstance(e, kind) and (len(e.args) == 1 or kind is sympy.Heaviside):
                inner = self._node(e.args[0])
                return self._emit(lambda x, _, func=func: func(x), inner, inner)
        raise Unsupported(f"no interval enclosure for {type(e).__name__} in {e}")

    def run(self, xs: Sequence[Interval]) -> Run:
        return Run(self, xs)


class Run:
    """One evaluation of a Program at one list of intervals (one per symbol), memoised."""

    __slots__ = ("values", "program", "done")

    def __init__(self, program: Program, xs: Sequence[Interval]):
        values = list(program._template)
        values[: len(xs)] = xs
        self.values = values
        self.program = program
        self.done = set()

    def value(self, handle: int) -> Interval:
        """The enclosure of added expression `handle`; raises Undefined (or ZeroDivisionError,
        ValueError) when it has no real value on the whole box."""
        steps, slot = self.program._needed[handle]
        values = self.values
        if handle not in self.done:
            for target, op, x, y in steps:
                if values[target] is None:
                    values[target] = op(values[x], values[y])
            self.done.add(handle)
        return values[slot]


Enclosure = Callable[[Sequence[Interval]], Interval]


def compile_enclosure(expr: sympy.Expr, symbols: Sequence[sympy.Symbol]) -> Enclosure:
    """A function from one interval per symbol to an interval containing every value of `expr`
    at real points of that box where it is defined."""
    program = Program(symbols)
    handle = program.add(expr)
    return lambda xs: program.run(xs).value(handle)


# ------------------------------------------------------------- exact constants at any precision


@contextlib.contextmanager
def precision(prec: int):
    """ctx's precision set and restored around a computation (its intervals have no workprec)."""
    saved, ctx.prec = ctx.prec, prec
    try:
        yield
    finally:
        ctx.prec = saved


def enclose_mp(expr: sympy.Expr, prec: int = PRECISION_BITS, box: dict | None = None, strict: bool = False):
    """An mpmath interval (ends .a, .b) around expr at `prec` bits, its symbols read from box
    (symbol -> ctx interval). Lenient: a base or logarithm's argument that may be negative is clipped
    at 0 (the sign of an exact constant). strict: Undefined unless expr is provably defined and real
    on the whole box (the refutation verifier)."""
    with precision(prec):
        return _mp_value(sympy.sympify(expr), box or {}, strict)


def _mp_value(e: sympy.Expr, box: dict, strict: bool):  # noqa: C901 (one case per node type)
    def value(a):
        return _mp_value(a, box, strict)

    if e.is_Rational:
        return ctx.mpf(int(e.p)) / int(e.q)
    if e is sympy.pi:  # ctx.pi is lazy (evaluated at the precision of the moment): fix it now
        return ctx.pi * 1
    if e is sympy.E:
        return ctx.e * 1
    if e.is_Symbol:
        if e in box:
            return box[e]
        raise Unsupported(f"not a constant: {e}")
    if isinstance(e, (sympy.Add, sympy.Mul)):
        total = value(e.args[0])
        for a in e.args[1:]:
            total = total + value(a) if e.is_Add else total * value(a)
        return total
    if isinstance(e, sympy.Pow):
        base, n = value(e.base), e.exp
        if n.is_Integer:
            if strict and n < 0 and base.a <= 0 <= base.b:
                raise Undefined(f"division by a value that may be 0 in {e}")
            return base ** int(n)
        if base.b < 0 or (strict and (base.a < 0 or (base.a == 0 and n.is_negative))):
            raise Undefined(f"the base of {e} may be negative")
        if strict:
            if n == sympy.Rational(1, 2):
                return ctx.sqrt(base)
            if n.is_Rational:
                return base ** value(n)
            if base.a <= 0:
                raise Undefined(f"the argument of {e} may be <= 0")
            return ctx.exp(value(n) * ctx.log(base))
        clipped = ctx.mpf([max(base.a, 0), base.b])
        if n.is_Rational and n.q == 2:
            return ctx.sqrt(clipped) ** int(n.p)
        if clipped.a == 0:
            raise Unsupported("power of an interval touching 0")
        return ctx.exp(ctx.log(clipped) * value(n))
    if isinstance(e, (sympy.Max, sympy.Min)):
        parts = [value(a) for a in e.args]
        pick = max if isinstance(e, sympy.Max) else min
        return ctx.mpf([pick(p.a for p in parts), pick(p.b for p in parts)])
    if isinstance(e, sympy.tan) and strict:
        cosine = ctx.cos(value(e.args[0]))
        if cosine.a <= 0 <= cosine.b:
            raise Undefined(f"tan may be at a pole in {e}")
    funcs = {sympy.sin: ctx.sin, sympy.cos: ctx.cos, sympy.tan: ctx.tan, sympy.exp: ctx.exp, sympy.Abs: abs}
    for kind, func in funcs.items():
        if isinstance(e, kind) and len(e.args) == 1:
            return func(value(e.args[0]))
    if isinstance(e, sympy.log) and len(e.args) == 1:
        inner = value(e.args[0])
        if inner.b <= 0 or (strict and inner.a <= 0):
            raise Undefined(f"the argument of {e} may be <= 0")
        return ctx.log(ctx.mpf([max(inner.a, 0), inner.b]))
    raise (Undefined if strict else Unsupported)(f"no interval rule for {type(e).__name__}")


def constant(expr: sympy.Expr) -> Interval:
    """A float interval around a constant expression (mpmath at 53 bits, ends outward)."""
    return _from_mp(enclose_mp(expr))
