"""`bound` certificates: interval branch-and-bound proving  objective >= answer - eps  on every
feasible point of a reduced problem (extrembench.verify.checker.reduce), in min form.

The proof is a tree over boxes, stored in prefix order as short tokens; the verifier replays it,
re-running only the test each leaf names, so checking needs no search:
    s<i>:<p>      split variable i at the rational p (children: lower part, then upper part)
    l<j>:<mu>:<rho>:<hbar>:<p..>  constraint j (H >= 0) cuts the box and H <= hbar on it; with
                  L = f - mu*H - rho*H*(hbar - H) <= f on feasible points, L's Hessian is positive
                  definite on the box and L(p) + grad L(p).(x - p) >= target (KKT on a slanted face)
    f<i>:lo|hi    the objective is monotone in variable i on the box and every constraint holds on
                  all of it or grows towards that face, so the minimum over the box's feasible
                  points is on that face (child: the face)
    e<i>          the objective is concave in variable i on the box (second derivative <= 0) and
                  every constraint holds on all of it, so its minimum is on one of the two end
                  faces (children: the lower face, then the upper face)
    v<k>          eliminated variable k's solved form misses its domain on the whole box
    x<j>          constraint j is negative on the whole box, or <= 0 there when it is strict
                  (no feasible point)
    u             the objective is undefined on the whole box
    r             the objective's interval enclosure is >= target
    m             mean-value form f(mid) + grad(box).(box - mid) >= target
    c:<p1>,<p2>.. the Hessian (in the box's free directions) is positive definite on the box
                  (interval LDL^T), so
                  f >= f(p) + grad f(p).(x - p) there, and that linear bound is >= target
    q:r | q:t | q:c:<p..>  the objective N/D (sympy's together) cleared at t = the target's upper
                  end: D >= 0 and P = N - t*D >= 0 on the box, by P's enclosure (r), its tail
                  expansion (t) or its Taylor form at p (c); a 0/0 corner no quotient enclosure closes
Work is bounded by node and depth counts, never by time.

This module is the checker's half (the leaf tests and the replay); the search that writes a tree
is provers/bound.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from math import inf as _INF

import sympy

from extrembench.problems.problem import min_form_sign
from extrembench.verify.checker.document import epsilon_abs, in_recorded_order
from extrembench.verify.checker.interval import (
    Program,
    Undefined,
    Unsupported,
    compile_enclosure,
    constant,
    interval,
    make,
    point,
)
from extrembench.verify.checker.local import positive_definite, split_plane
from extrembench.verify.checker.reduce import PlanError, Reduced, apply_plan

MAX_DEPTH = 64


class BoundFailure(ValueError):
    """The search did not close (count limit) or a replayed leaf does not hold."""


Box = list  # list of (lo, hi) Fraction | None


class Infeasible(Exception):
    """No feasible point in the box; the message is the proof token."""


@dataclass
class _Compiled:
    program: Program  # objective, constraints and their derivatives over symbols + auxiliaries
    f: int
    grad: list
    hess: list | None  # lower triangle rows of handles
    cons: list  # (handle, strict)
    cons_grad: list  # per constraint: handles of its gradient
    cons_hess: list  # per constraint: lower-triangle handles of its Hessian, or None
    aux_program: Program  # the solved forms over the symbols
    aux: list  # (handle of the solved form, of its numerator, of its denominator, Domain)
    n: int
    exact: dict  # (point, handle) -> exact value there (`_exact`)
    reduced: Reduced | None = None  # over real symbols: the cleared form (`cleared_form`) derives from it


class _At:
    """The compiled expressions evaluated on one list of intervals (box, then auxiliaries)."""

    __slots__ = ("xs", "run")

    def __init__(self, comp: _Compiled, xs: list):
        self.xs = xs
        self.run = comp.program.run(xs)


def total_derivative(expr: sympy.Expr, y: sympy.Symbol, aux) -> sympy.Expr:
    """d expr / d y where every auxiliary v = phi(free symbols) depends on y."""
    out = sympy.diff(expr, y)
    for v, phi, _ in aux:
        if expr.has(v):
            out += sympy.diff(expr, v) * sympy.diff(phi, y)
    return out


def _real(reduced: Reduced) -> Reduced:
    """The same problem over real-declared symbols: d|x|/dx is then sign(x), not re/im terms."""
    real = {s: sympy.Symbol(s.name, real=True) for s in list(reduced.symbols) + [v for v, _, _ in reduced.aux]}
    return Reduced(
        tuple(real[s] for s in reduced.symbols),
        reduced.bounds,
        reduced.objective.xreplace(real),
        tuple((c.xreplace(real), strict) for c, strict in reduced.nonneg),
        tuple((real[v], phi.xreplace(real), d) for v, phi, d in reduced.aux),
        reduced.extra_points,
    )


def _hessian(program: Program, grads: list, syms: list, aux) -> list | None:
    try:
        return [[program.add(total_derivative(grads[i], syms[j], aux)) for j in range(i + 1)] for i in range(len(syms))]
    except Unsupported:
        return None  # a kink (Abs, Max): no second derivative, so no convexity test


def compile_reduced(reduced: Reduced) -> _Compiled:
    reduced = _real(reduced)
    syms = list(reduced.symbols)
    program = Program(syms + [v for v, _, _ in reduced.aux])
    grads = [total_derivative(reduced.objective, s, reduced.aux) for s in syms]
    f = program.add(reduced.objective)
    grad = [program.add(g) for g in grads]
    cons, cons_grad, cons_hess = [], [], []
    for c, strict in reduced.nonneg:
        cons.append((program.add(c), strict))
        cg = [total_derivative(c, s, reduced.aux) for s in syms]
        cons_grad.append([program.add(g) for g in cg])
        cons_hess.append(_hessian(program, cg, syms, reduced.aux))
    hess = _hessian(program, grads, syms, reduced.aux)
    aux_program = Program(syms)
    aux = [(aux_program.add(phi), *_quotient(aux_program, phi, syms), domain) for _, phi, domain in reduced.aux]
    return _Compiled(program, f, grad, hess, cons, cons_grad, cons_hess, aux_program, aux, len(syms), {}, reduced)


def _quotient(program: Program, phi: sympy.Expr, syms) -> tuple:
    """Handles of phi's numerator and denominator (None when phi has no variable denominator)."""
    num, den = sympy.fraction(sympy.together(phi))
    if den.is_number:
        return None, None
    return program.add(num), program.add(den)


_ERRORS = (Undefined, ZeroDivisionError, ValueError, OverflowError)


def _with_aux(comp: _Compiled, xs: list, closed: bool = False) -> list:
    """Box intervals followed by each auxiliary's enclosure cut to its domain; raises Infeasible
    ("v<k>") when that cut is empty."""
    out = list(xs)
    if not comp.aux:
        return out
    run = comp.aux_program.run(xs)
    for k, (phi, num, den, domain) in enumerate(comp.aux):
        try:
            v = run.value(phi)
            if num is not None and domain.lo is not None and domain.lo >= 0 and not v.a >= 0:
                # phi = N/D must be >= 0: when N has a sign, so has D; cut D to that side first
                # (a D straddling 0 would otherwise lose everything: N/[0, d] = [N/d, +inf])
                n, d = run.value(num), run.value(den)
                if n.a > 0 and d.b > 0:
                    v = n / make(max(d.a, 0.0), d.b)
                elif n.b < 0 and d.a < 0:
                    v = n / make(d.a, min(d.b, 0.0))
        except _ERRORS:
            raise Infeasible(f"v{k}") from None
        lo = _end(domain.lo).a if domain.lo is not None else v.a
        hi = _end(domain.hi).b if domain.hi is not None else v.b
        low, high = max(v.a, lo), min(v.b, hi)
        if low > high or (
            not closed
            and (
                (domain.lo is not None and domain.lo_open and v.b <= lo)
                or (domain.hi is not None and domain.hi_open and v.a >= hi)
            )
        ):
            raise Infeasible(f"v{k}")
        out.append(make(low, high))
    return out


def _end(value):
    """A domain end as an interval: exact when rational, an outward enclosure when not (pi): the
    clamped box is then a superset of the true one, which keeps the proof sound."""
    if value.is_Rational:
        return point(Fraction(int(value.p), int(value.q)))
    return compile_enclosure(value, [])([])


def ivbox(comp: _Compiled, box: Box) -> _At:
    return _At(comp, _with_aux(comp, [interval(lo, hi) for lo, hi in box]))


def _bounded(interval) -> bool:
    """Both ends of an interval enclosure are finite."""
    return interval.a > -_INF and interval.b < _INF


def _raw(comp: _Compiled, xs: list) -> _At | None:
    """Box intervals followed by each auxiliary's enclosure NOT cut to its domain: the derivative
    tests reason along segments of the box, which may leave the feasible set, so their enclosures
    must cover every point of the box. None when an auxiliary is undefined somewhere on it."""
    out = list(xs)
    if comp.aux:
        run = comp.aux_program.run(xs)
        for phi, _, _, _ in comp.aux:
            try:
                v = run.value(phi)
            except _ERRORS:
                return None
            if not _bounded(v):
                return None
            out.append(v)
    return _At(comp, out)


def raw_of(comp: _Compiled, at: _At) -> _At | None:
    """`_raw` of a box already evaluated: the same evaluation when nothing is eliminated."""
    return at if not comp.aux else _raw(comp, at.xs[: comp.n])


def ivpoint(comp: _Compiled, values: list[Fraction]) -> _At | None:
    return _raw(comp, [point(v) for v in values])


def box_finite(box: Box) -> bool:
    return all(lo is not None and hi is not None for lo, hi in box)


def _ge(value, target) -> bool:
    """value >= target proven (value an interval, target an interval)."""
    return value.a >= target.b


def safe_eval(at: _At, handle: int):
    return run_value(at.run, handle)


def run_value(run, handle: int):
    try:
        return run.value(handle)
    except _ERRORS:
        return None


def infeasible_at(comp: _Compiled, at: _At, only: int | None = None) -> str | None:
    for j, (c, strict) in enumerate(comp.cons):
        if only is not None and j != only:
            continue
        v = safe_eval(at, c)
        if v is not None and (v.b < 0 or (strict and v.b <= 0)):
            return f"x{j}"
        if (
            v is not None
            and v.a < 0
            and not all(map(_bounded, at.xs))
            and _tail_sign(comp, at, -comp.program.exprs[c], not strict)
        ):
            return f"x{j}"
    return None


def _terms(comp: _Compiled, expr) -> list | None:
    """expr as (exponents, rational coefficient) terms of a polynomial in the box's variables and
    auxiliaries, or None (cached per expression: the tail test expands each once)."""
    if expr not in comp.exact:
        try:
            poly = sympy.Poly(expr, *comp.program.symbols)
            terms = [(m, Fraction(int(c.p), int(c.q))) for m, c in poly.terms()]
        except (sympy.PolynomialError, AttributeError, TypeError):
            terms = None
        comp.exact[expr] = terms
    return comp.exact[expr]


def _tail_sign(comp: _Compiled, at: _At, expr, strict: bool) -> bool:
    """expr >= 0 (> 0 when strict) where some variables (or auxiliaries) are unbounded on one side,
    for a polynomial in them: with x = end + s (or end - s), s >= 0, every coefficient of the
    expansion in the s's is >= 0 over the bounded ones (the constant one > 0 when strict), each
    variable ranging over its enclosure independently (a superset). Natural interval extension
    cannot see this: at a tail, terms of opposite signs both grow and give [-inf, inf]."""
    terms = _terms(comp, expr)
    if terms is None:
        return False
    total: dict = {}
    for exponents, coefficient in terms:
        parts, factor = [((), coefficient)], point(1)
        for index, (v, k) in enumerate(zip(at.xs, exponents)):
            if _bounded(v) or k == 0:
                factor = factor * v**k
                continue
            if v.a == -_INF and v.b == _INF:
                return False
            end, sign = (Fraction(v.a), 1) if v.b == _INF else (Fraction(v.b), -1)
            parts = [
                (t + (((index, j),) if j else ()), c * comb(k, j) * end ** (k - j) * sign**j)
                for t, c in parts
                for j in range(k + 1)
            ]
        for t, c in parts:  # t: the monomial in the s's as (variable, power) pairs
            total[t] = total[t] + point(c) * factor if t in total else point(c) * factor
    constant = total.pop((), point(0))
    return all(v.a >= 0 for v in total.values()) and (constant.a > 0 or (not strict and constant.a >= 0))


def tail_range(comp: _Compiled, at: _At, target) -> bool:
    """The objective N/D >= target on an unbounded box, by `_tail_sign` on D and N - t*D (t the
    target's upper end, an exact rational)."""
    if all(map(_bounded, at.xs)):
        return False
    key = ("tail", target.b)
    if key not in comp.exact:
        num, den = sympy.fraction(sympy.together(comp.program.exprs[comp.f]))
        t = sympy.Rational(Fraction(target.b).numerator, Fraction(target.b).denominator)
        comp.exact[key] = [(sign * den, sympy.expand(sign * (num - t * den))) for sign in (1, -1)]
    return any(_tail_sign(comp, at, den, True) and _tail_sign(comp, at, rest, False) for den, rest in comp.exact[key])


def _constraints_hold(comp: _Compiled, at: _At) -> bool:
    # strict constraints strictly: the face a monotone step moves to is then feasible too, so
    # nothing below it may be discarded as infeasible on a boundary the box only touched
    for c, strict in comp.cons:
        v = safe_eval(at, c)
        if v is None or v.a < 0 or (strict and not v.a > 0):
            return False
    return True


def value_at_least(comp, at, target) -> bool:
    v = safe_eval(at, comp.f)
    return v is not None and _ge(v, target)


def midpoint(box: Box) -> list[Fraction]:
    return [(lo + hi) / 2 for lo, hi in box]


def gradient_at(comp, at) -> list:
    return [safe_eval(at, g) for g in comp.grad]


def mean_value(comp, box, at, target, grads=None) -> bool:
    if not box_finite(box):
        return False
    grads = grads if grads is not None else gradient_at(comp, at)
    if any(g is None for g in grads):
        return False
    pts = ivpoint(comp, midpoint(box))
    if pts is None:
        return False
    fc = safe_eval(pts, comp.f)
    if fc is None:
        return False
    total = fc
    for i, gi in enumerate(grads):
        total = total + gi * (at.xs[i] - pts.xs[i])
    return _ge(total, target)


def free_axes(box: Box) -> list[int]:
    return [i for i, (lo, hi) in enumerate(box) if lo != hi]


def _exact(comp, ref: list[Fraction], program: Program | None = None):
    """handle -> its value at the rational point ref, exactly when rational (None where undefined):
    float enclosures cannot prove the sign of an exact 0, such as f and grad f at a minimum when the
    proof must reach the answer exactly (epsilon 0). `program`: another one over the same symbols
    (the cleared form's)."""
    program = program or comp.program
    values = {s: sympy.Rational(r.numerator, r.denominator) for s, r in zip(comp.program.symbols, ref)}
    for (phi, *_), v in zip(comp.aux, comp.program.symbols[comp.n :]):
        values[v] = comp.aux_program.exprs[phi].xreplace(values)

    def get(handle):
        key = (tuple(ref), handle) if program is comp.program else (tuple(ref), id(program), handle)
        if key not in comp.exact:
            value = program.exprs[handle].xreplace(values)
            try:
                comp.exact[key] = point(Fraction(int(value.p), int(value.q))) if value.is_Rational else constant(value)
            except (Unsupported, ArithmeticError, ValueError, TypeError):
                comp.exact[key] = None
        return comp.exact[key]

    return get


def _tangent_bound(comp, box, at, target, ref, entry, linear, program: Program | None = None) -> bool:
    """Taylor at ref: F(x) = F(ref) + grad F(ref).d + d'H d/2 with H a Hessian on the segment,
    d = x - ref, so within the entries `entry(i, k)` over the box (free directions). When they form
    a positive definite interval matrix the quadratic term is >= 0 and the tangent plane alone
    must clear the target, else the plane plus the quadratic term's enclosure (a vertex or edge
    optimum: concave directions that leave through the box's own faces), or (verifier 10) the
    active-face split (local.split_plane): the plane in the remaining directions alone. `linear(get)`
    gives F(ref) and grad F(ref) from the handles' values there: floats first, exact when floats
    only just miss. `program`: the one the handles belong to (default the objective's)."""
    if not box_finite(box):
        return False
    program = program or comp.program
    free = free_axes(box)
    rows = [[entry(i, k) for k in free[: a + 1]] for a, i in enumerate(free)]
    if any(h is None or not _bounded(h) for row in rows for h in row):
        return False
    d = [at.xs[i] - point(ref[i]) for i in range(comp.n)]
    quadratic = point(0)
    definite = positive_definite(rows)
    if not definite:
        for a, i in enumerate(free):
            quadratic = quadratic + rows[a][a] * d[i] ** 2 / 2
            for b, k in enumerate(free[:a]):
                quadratic = quadratic + rows[a][b] * d[i] * d[k]
    pts = ivpoint(comp, ref)
    run = None if pts is None else pts.run if program is comp.program else program.run(pts.xs)
    for get in ((lambda h: run_value(run, h)) if run is not None else None, _exact(comp, ref, program)):
        terms = linear(get) if get is not None else None
        if terms is None or any(t is None for t in terms[1]):
            continue
        total = terms[0] + quadratic
        for i, g in enumerate(terms[1]):
            total = total + g * d[i]
        if _ge(total, target):
            return True
        kept = None if definite else split_plane(rows, free, box, ref, terms[1], d)
        if kept is not None:
            split = terms[0]
            for i in kept:
                split = split + terms[1][i] * d[i]
            if _ge(split, target):
                return True
            total = split if split.a > total.a else total
        # exact values lie inside the float ones: they can lift the bound only by those widths
        gain = terms[0].b - terms[0].a + sum((g.b - g.a) * max(-x.a, x.b) for g, x in zip(terms[1], d))
        if not total.a + 2 * gain >= target.b:
            return False
    return False


def convex_along(comp, box, at, target, ref: list[Fraction]) -> bool:
    if comp.hess is None:
        return False

    def linear(get):
        return get(comp.f), [get(g) for g in comp.grad]

    return _tangent_bound(comp, box, at, target, ref, lambda i, k: safe_eval(at, comp.hess[i][k]), linear)


def lagrangian(comp, box, at, target, j: int, mu: Fraction, rho: Fraction, hbar: Fraction, ref: list[Fraction]) -> bool:
    """Constraint j (H >= 0) cuts the box, with H <= hbar on it. For feasible x in the box
    0 <= H <= hbar, so  g >= L = g - mu*H - rho*H*(hbar - H)  (mu, rho >= 0; of any sign when
    hbar = 0, as H = 0 on every feasible point then), and L is closed by
    its tangent plane (`_tangent_bound`): a KKT point on a slanted face, with the multiplier
    mu + rho*hbar."""
    if comp.hess is None or comp.cons_hess[j] is None or (hbar != 0 and (mu < 0 or rho < 0)):
        return False
    h_enc = safe_eval(at, comp.cons[j][0])
    if h_enc is None or not h_enc.b <= point(hbar).a:
        return False
    mu_i, rho_i, hbar_i = point(mu), point(rho), point(hbar)
    grad_h = [safe_eval(at, g) for g in comp.cons_grad[j]]
    if any(g is None for g in grad_h):
        return False

    def entry(i, k):
        hg, hh = safe_eval(at, comp.hess[i][k]), safe_eval(at, comp.cons_hess[j][i][k])
        # d2/dxi dxk of  g - (mu + rho*hbar) H + rho H^2
        return (
            None
            if hg is None or hh is None
            else (hg - (mu_i + rho_i * hbar_i) * hh + rho_i * 2 * (grad_h[i] * grad_h[k] + h_enc * hh))
        )

    def linear(get):
        gp, hp = get(comp.f), get(comp.cons[j][0])
        if gp is None or hp is None:
            return None
        grads = [(gi, hi) for gi, hi in zip((get(g) for g in comp.grad), (get(h) for h in comp.cons_grad[j]))]
        return gp - mu_i * hp - rho_i * hp * (hbar_i - hp), [
            None if gi is None or hi is None else gi - (mu_i + rho_i * hbar_i) * hi + 2 * rho_i * hp * hi
            for gi, hi in grads
        ]

    return _tangent_bound(comp, box, at, target, ref, entry, linear)


@dataclass
class _Cleared:
    """The objective N/D (sympy's `together`) cleared at the level t: P = N - t*D, compiled with its
    gradient and Hessian (total derivatives through the auxiliaries) over the box's symbols."""

    program: Program
    p: int
    d: int
    grad: list
    hess: list | None
    num: sympy.Expr
    den: sympy.Expr
    t: sympy.Rational


def cleared_form(comp, target) -> _Cleared | None:
    """The cleared form at t = the target's upper end (an exact rational: a float), or None when
    the objective has no variable denominator or no enclosure. N/D >= t wherever D > 0 and P >= 0;
    a feasible point where the objective is defined has D != 0 (together only puts the objective's
    own denominators under one bar), so D >= 0 there means D > 0. This closes corners where N and D
    both vanish (0/0, 0 * inf), which no enclosure of the quotient can: P is smooth there."""
    key = ("cleared", target.b)
    if key not in comp.exact:
        comp.exact[key] = _compile_cleared(comp.reduced, Fraction(target.b))
    return comp.exact[key]


def _compile_cleared(reduced: Reduced, level: Fraction) -> _Cleared | None:
    num, den = sympy.fraction(sympy.together(reduced.objective))
    if den.is_number:
        return None
    t = sympy.Rational(level.numerator, level.denominator)
    syms = list(reduced.symbols)
    program = Program(syms + [v for v, _, _ in reduced.aux])
    try:
        form = num - t * den
        p, d = program.add(form), program.add(den)
        grads = [total_derivative(form, s, reduced.aux) for s in syms]
        grad = [program.add(g) for g in grads]
    except Unsupported:
        return None
    return _Cleared(program, p, d, grad, _hessian(program, grads, syms, reduced.aux), num, den, t)


def cleared_range(comp, at, target) -> bool:
    """q:r: D >= 0 and P >= 0 on the box (enclosures cut to the auxiliaries' domains)."""
    cleared = cleared_form(comp, target)
    if cleared is None:
        return False
    run = cleared.program.run(at.xs)
    d, p = run_value(run, cleared.d), run_value(run, cleared.p)
    return d is not None and p is not None and d.a >= 0 and p.a >= 0


def cleared_tail(comp, at, target) -> bool:
    """q:t: on an unbounded box, D >= 0 and P >= 0 by `_tail_sign` (D may vanish at the box's
    finite ends, where the objective is undefined)."""
    cleared = cleared_form(comp, target)
    if cleared is None or all(map(_bounded, at.xs)):
        return False
    return _tail_sign(comp, at, cleared.den, False) and _tail_sign(
        comp, at, sympy.expand(cleared.num - cleared.t * cleared.den), False
    )


def cleared_tangent(comp, box, at, target, ref) -> bool:
    """q:c:<p>: D >= 0 on the box, and P's Taylor form at p (`_tangent_bound`, target 0)."""
    cleared = cleared_form(comp, target)
    if cleared is None or cleared.hess is None:
        return False
    run = cleared.program.run(at.xs)
    d = run_value(run, cleared.d)
    if d is None or not d.a >= 0:
        return False

    def linear(get):
        return get(cleared.p), [get(g) for g in cleared.grad]

    return _tangent_bound(
        comp, box, at, point(0), ref, lambda i, k: run_value(run, cleared.hess[i][k]), linear, cleared.program
    )


def face_ok(comp, box, at, i: int, side: str, gi) -> bool:
    """The objective is monotone towards the face, and along variable i towards it every constraint
    holds throughout or only grows: each feasible point of the box then has a feasible point on the
    face at most as high."""
    if gi is None or box[i][0] == box[i][1] or box[i][0 if side == "lo" else 1] is None:
        return False
    if not (gi.a >= 0 if side == "lo" else gi.b <= 0) or safe_eval(at, comp.f) is None:
        return False
    for (c, strict), grads in zip(comp.cons, comp.cons_grad):
        v = safe_eval(at, c)
        if v is not None and (v.a > 0 or (not strict and v.a >= 0)):
            continue
        d = safe_eval(at, grads[i])
        if d is None or not (d.b <= 0 if side == "lo" else d.a >= 0):
            return False
    return True


def concave_along(comp, box, at, i: int) -> bool:
    """The objective is concave along variable i on the box, which lies inside the feasible set."""
    if box[i][0] is None or box[i][1] is None or box[i][0] == box[i][1] or comp.hess is None:
        return False
    h = safe_eval(at, comp.hess[i][i])
    return h is not None and h.b <= 0 and _constraints_hold(comp, at) and safe_eval(at, comp.f) is not None


def box_face(box: Box, i: int, side: str) -> Box:
    end = box[i][0] if side == "lo" else box[i][1]
    return [(end, end) if k == i else b for k, b in enumerate(box)]


def point_inside(ref, box) -> bool:
    return ref is not None and all((lo is None or lo <= r) and (hi is None or r <= hi) for r, (lo, hi) in zip(ref, box))


def replay(reduced: Reduced, target, tokens: list[str]) -> None:  # noqa: C901 — the trusted proof-tree replay: the nodes that split a box here, the leaves in leaf_failure
    """Re-check a proof tree; raises BoundFailure naming the first token that does not hold."""
    comp = compile_reduced(reduced)
    position = 0

    def fail(message):
        raise BoundFailure(f"token {position} ({tokens[position - 1] if position else ''}): {message}")

    def check(box, depth):  # the nodes that split a box; leaf_failure holds the rules of the leaves
        nonlocal position
        if depth > MAX_DEPTH:
            fail("tree deeper than allowed")
        if position >= len(tokens):
            fail("proof ends early")
        token = tokens[position]
        position += 1
        try:
            xs = ivbox(comp, box)
        except Infeasible as exc:
            if token != str(exc):
                fail(f"box is infeasible by {exc}, not by {token}")
            return
        head, _, arg = token.partition(":")
        # derivative tests need enclosures over the whole box
        raw = raw_of(comp, xs) if head[:1] in ("e", "f", "l", "m", "c") else None
        if head[:1] in ("e", "f", "l", "m", "c") and raw is None:
            fail("an eliminated variable is undefined somewhere on the box")
        if head.startswith("s"):
            i, p = int(head[1:]), Fraction(arg)
            lo, hi = box[i]
            if not ((lo is None or lo < p) and (hi is None or p < hi)):
                fail(f"split point {p} is not inside ({lo}, {hi})")
            check([(b[0], p) if k == i else b for k, b in enumerate(box)], depth + 1)
            check([(p, b[1]) if k == i else b for k, b in enumerate(box)], depth + 1)
        elif head.startswith("f"):
            i = int(head[1:])
            if (
                not 0 <= i < comp.n
                or arg not in ("lo", "hi")
                or not face_ok(comp, box, raw, i, arg, safe_eval(raw, comp.grad[i]))
            ):
                fail(f"objective not monotone towards the {arg} face of variable {i}, or a constraint shrinks that way")
            check(box_face(box, i, arg), depth + 1)
        elif head.startswith("e"):
            i = int(head[1:])
            if not 0 <= i < comp.n or not concave_along(comp, box, raw, i):
                fail(f"objective not concave along variable {i} on a feasible box")
            check(box_face(box, i, "lo"), depth + 1)
            check(box_face(box, i, "hi"), depth + 1)
        else:
            why = leaf_failure(comp, box, xs, raw, target, token)
            if why is not None:
                fail(why)

    check([tuple(b) for b in reduced.bounds], 0)
    if position != len(tokens):
        raise BoundFailure(f"{len(tokens) - position} tokens left over after the proof tree")


def leaf_failure(comp, box, xs, raw, target, token: str) -> str | None:  # noqa: C901 — one rule table, a branch per leaf token
    """Why a leaf token of a proof tree (one that closes its box: Lagrangian, range, mean value,
    cleared form, convexity, an empty or undefined box) does not hold on that box, or None: the
    leaves of replay's rule table, each rule in one branch."""
    head, _, arg = token.partition(":")
    if head.startswith("l"):
        parts = token.split(":")
        if len(parts) != 5:
            return "malformed Lagrangian token"
        j, mu, rho, hbar = int(parts[0][1:]), Fraction(parts[1]), Fraction(parts[2]), Fraction(parts[3])
        ref = [Fraction(v) for v in parts[4].split(",")]
        if not 0 <= j < len(comp.cons) or len(ref) != comp.n or not point_inside(ref, box):
            return "Lagrangian step names no constraint or an anchor outside the box"
        if not lagrangian(comp, box, raw, target, j, mu, rho, hbar, ref):
            return "Lagrangian bound not above the target"
    elif head.startswith("v"):
        return "auxiliary variable's range is not empty on the box"
    elif head.startswith("x"):
        if infeasible_at(comp, xs, only=int(head[1:])) is None:
            return "constraint not negative on the whole box"
    elif head == "u":
        if safe_eval(xs, comp.f) is not None:
            return "objective is defined on the box"
    elif head == "r":
        if not (value_at_least(comp, xs, target) or tail_range(comp, xs, target)):
            return "enclosure not above the target"
    elif head == "m":
        if not mean_value(comp, box, raw, target):
            return "mean-value bound not above the target"
    elif head == "q":
        test, _, anchor = arg.partition(":")
        if test == "r":
            ok = cleared_range(comp, xs, target)
        elif test == "t":
            ok = cleared_tail(comp, xs, target)
        elif test == "c":
            ref = [Fraction(v) for v in anchor.split(",")] if anchor else []
            if len(ref) != comp.n or not point_inside(ref, box):
                return "cleared-form anchor outside the box"
            raw = raw_of(comp, xs)
            ok = raw is not None and cleared_tangent(comp, box, raw, target, ref)
        else:
            return f"unknown cleared-form test {test!r}"
        if not ok:
            return "the cleared form N - t*D is not proven >= 0 with D >= 0"
    elif head == "c":
        ref = [Fraction(v) for v in arg.split(",")] if arg else []
        if len(ref) != comp.n or not point_inside(ref, box):
            return "convexity anchor outside the box"
        if not convex_along(comp, box, raw, target, ref):
            return "convexity bound not above the target"
    else:
        return f"unknown token {token!r}"
    return None


# a tree longer than any the prover writes (its box budgets are 3000 and 10000) is refused unread
MAX_TREE_TOKENS = 100_000


def target_interval(parsed, epsilon: Fraction):
    """answer - eps (min form) as an interval: the objective must be proven >= its upper end."""
    sign = min_form_sign(parsed.sense)
    return compile_enclosure(sign * parsed.answer, [])([]) - point(epsilon_abs(epsilon, parsed.answer))


def replay_plan(
    parsed, level_signed: sympy.Expr, target, plan: list, trees, variables: list | None = None
) -> tuple[str | None, int]:
    """The one replay of a bound proof, for a confirmed answer and a refutation's level alike: the
    plan applied at the min-form level, one tree per branch replayed against `target`, and the
    points the plan set aside (the origin of a normalised simplex) checked on their own.
    `variables`: the order of the box coordinates the prover used (None: the spec's, as certificates
    before it was recorded). (why it fails or None, the number of boxes)."""
    if variables is not None:
        if not isinstance(variables, list) or sorted(map(str, variables)) != sorted(str(s) for s in parsed.symbols):
            return f"variables {variables!r} must name the spec's variables", 0
        parsed = in_recorded_order(parsed, variables)
    try:
        branches = apply_plan(parsed, level_signed, plan)
    except PlanError as exc:
        return f"plan: {exc}", 0
    if not isinstance(trees, list) or len(trees) != len(branches):
        return f"{len(branches)} branches need as many proof trees", 0
    for k, (branch, tokens) in enumerate(zip(branches, trees)):
        if not isinstance(tokens, list) or len(tokens) > MAX_TREE_TOKENS:
            return f"tree {k} is not a list of tokens the prover could write", 0
        try:
            replay(branch, target, [str(t) for t in tokens])
        except (BoundFailure, Unsupported) as exc:
            return f"branch {k}: {exc}", 0
    sign = min_form_sign(parsed.sense)
    for extra in branches[0].extra_points if branches else ():
        if not extra_point_holds(sign * parsed.objective, extra, target):
            return "the origin (checked on its own) is past the bound", 0
    return None, sum(len(t) for t in trees)


def extra_point_holds(objective: sympy.Expr, extra: dict, target) -> bool:
    """The objective at a point the plan set aside (the origin) is >= target, or undefined there
    (not a feasible value): sympy's exact value first, where 0 * (1/0) is nan, which an enclosure
    of the product (0 times [-inf, inf]) does not see; then the enclosure."""
    exact = objective.xreplace(extra)
    if exact.has(sympy.zoo, sympy.nan):
        return True
    try:
        value = compile_enclosure(objective, list(extra))([point(0)] * len(extra))
    except (ArithmeticError, ValueError):
        return True  # undefined there: not a feasible point
    return value.a >= target.b
