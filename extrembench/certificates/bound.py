"""`bound` certificates: interval branch-and-bound proving  objective >= answer - eps  on every
feasible point of a reduced problem (extrembench.certificates.reduce), in min form.

The proof is a tree over boxes, stored in prefix order as short tokens; the verifier replays it,
re-running only the test each leaf names, so checking needs no search:
    s<i>:<p>      split variable i at the rational p (children: lower part, then upper part)
    f<i>:lo|hi    the objective is monotone in variable i on the box and every constraint holds on
                  all of it, so its minimum over the box is on that face (child: the face)
    v<k>          eliminated variable k's solved form misses its domain on the whole box
    x<j>          constraint j is negative on the whole box, or <= 0 there when it is strict
                  (no feasible point)
    u             the objective is undefined on the whole box
    r             the objective's interval enclosure is >= target
    m             mean-value form f(mid) + grad(box).(box - mid) >= target
    c:<p1>,<p2>.. the Hessian is positive definite on the box (interval LDL^T), so
                  f >= f(p) + grad f(p).(x - p) there, and that linear bound is >= target
Work is bounded by node and depth counts, never by time.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy

from extrembench.certificates.interval import (Undefined, compile_enclosure, ctx, interval, point)
from extrembench.certificates.reduce import Reduced

MAX_NODES = 6000
MAX_DEPTH = 64
CONVEX_DEPTH = 10


class BoundFailure(ValueError):
    """The search did not close (count limit) or a replayed leaf does not hold."""


Box = list  # list of (lo, hi) Fraction | None


class Infeasible(Exception):
    """No feasible point in the box; the message is the proof token."""


@dataclass
class _Compiled:
    f: object
    grad: list
    hess: list          # lower triangle rows
    cons: list          # (enclosure, strict)
    aux: list           # (enclosure of the solved form, Domain)
    n: int


def total_derivative(expr: sympy.Expr, y: sympy.Symbol, aux) -> sympy.Expr:
    """d expr / d y where every auxiliary v = phi(free symbols) depends on y."""
    out = sympy.diff(expr, y)
    for v, phi, _ in aux:
        if expr.has(v):
            out += sympy.diff(expr, v) * sympy.diff(phi, y)
    return out


def compile_reduced(reduced: Reduced) -> _Compiled:
    syms = list(reduced.symbols)
    every = syms + [v for v, _, _ in reduced.aux]
    grads = [total_derivative(reduced.objective, s, reduced.aux) for s in syms]
    hess = [[compile_enclosure(total_derivative(grads[i], syms[j], reduced.aux), every) for j in range(i + 1)]
            for i in range(len(syms))]
    return _Compiled(compile_enclosure(reduced.objective, every), [compile_enclosure(g, every) for g in grads], hess,
                     [(compile_enclosure(c, every), strict) for c, strict in reduced.nonneg],
                     [(compile_enclosure(phi, syms), domain) for _, phi, domain in reduced.aux], len(syms))


def _with_aux(comp: _Compiled, xs: list) -> list:
    """Box intervals followed by each auxiliary's enclosure cut to its domain; raises Infeasible
    ("v<k>") when that cut is empty."""
    out = list(xs)
    for k, (phi, domain) in enumerate(comp.aux):
        try:
            v = phi(out[:comp.n])
        except (Undefined, ZeroDivisionError, ValueError):
            raise Infeasible(f"v{k}") from None
        lo = point(_fraction(domain.lo)).a if domain.lo is not None else v.a
        hi = point(_fraction(domain.hi)).b if domain.hi is not None else v.b
        low, high = max(v.a, lo), min(v.b, hi)
        if low > high or (domain.lo is not None and domain.lo_open and v.b <= lo) or \
                (domain.hi is not None and domain.hi_open and v.a >= hi):
            raise Infeasible(f"v{k}")
        out.append(ctx.mpf([low, high]))
    return out


def _fraction(value) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _ivbox(comp: _Compiled, box: Box) -> list:
    return _with_aux(comp, [interval(lo, hi) for lo, hi in box])


def _ivpoint(comp: _Compiled, values: list[Fraction]) -> list | None:
    try:
        return _with_aux(comp, [point(v) for v in values])
    except Infeasible:
        return None


def _finite(box: Box) -> bool:
    return all(lo is not None and hi is not None for lo, hi in box)


def _ge(value, target) -> bool:
    """value >= target proven (value an interval, target an interval)."""
    return value.a >= target.b


def _safe(func, xs):
    try:
        return func(xs)
    except (Undefined, ZeroDivisionError, ValueError):
        return None


def _infeasible(comp: _Compiled, xs, only: int | None = None) -> str | None:
    for j, (c, strict) in enumerate(comp.cons):
        if only is not None and j != only:
            continue
        v = _safe(c, xs)
        if v is not None and (v.b < 0 or (strict and v.b <= 0)):
            return f"x{j}"
    return None


def _constraints_hold(comp: _Compiled, xs) -> bool:
    for c, _ in comp.cons:
        v = _safe(c, xs)
        if v is None or v.a < 0:
            return False
    return True


def _range(comp, xs, target) -> bool:
    v = _safe(comp.f, xs)
    return v is not None and _ge(v, target)


def _midpoint(box: Box) -> list[Fraction]:
    return [(lo + hi) / 2 for lo, hi in box]


def _gradient(comp, xs) -> list:
    return [_safe(g, xs) for g in comp.grad]


def _mean_value(comp, box, xs, target, grads=None) -> bool:
    if not _finite(box):
        return False
    grads = grads if grads is not None else _gradient(comp, xs)
    mid = _midpoint(box)
    pts = _ivpoint(comp, mid)
    if pts is None:
        return False
    fc = _safe(comp.f, pts)
    if fc is None:
        return False
    total = fc
    for i, gi in enumerate(grads):
        if gi is None:
            return False
        total = total + gi * (xs[i] - pts[i])
    return _ge(total, target)


def _positive_definite(rows) -> bool:
    """Every symmetric matrix in the interval matrix is PD: interval LDL^T with positive pivots."""
    n = len(rows)
    a = [[rows[max(i, j)][min(i, j)] for j in range(n)] for i in range(n)]
    for k in range(n):
        pivot = a[k][k]
        if not pivot.a > 0:
            return False
        for i in range(k + 1, n):
            factor = a[i][k] / pivot
            for j in range(k + 1, n):
                a[i][j] = a[i][j] - factor * a[k][j]
    return True


def _convex(comp, box, xs, target, ref: list[Fraction]) -> bool:
    if not _finite(box):
        return False
    rows = []
    for i in range(comp.n):
        row = []
        for j in range(i + 1):
            h = _safe(comp.hess[i][j], xs)
            if h is None or not (abs(float(h.a)) < float("inf") and abs(float(h.b)) < float("inf")):
                return False
            row.append(h)
        rows.append(row)
    if not _positive_definite(rows):
        return False
    pts = _ivpoint(comp, ref)
    if pts is None:
        return False
    total = _safe(comp.f, pts)
    if total is None:
        return False
    for i, g in enumerate(comp.grad):
        gi = _safe(g, pts)
        if gi is None:
            return False
        total = total + gi * (xs[i] - pts[i])
    return _ge(total, target)


def _monotone_face(comp, box, xs, grads=None) -> tuple[int, str] | None:
    if not _constraints_hold(comp, xs):
        return None
    grads = grads if grads is not None else _gradient(comp, xs)
    for i, gi in enumerate(grads):
        if box[i][0] == box[i][1]:
            continue
        if gi is None:
            continue
        if gi.a >= 0 and box[i][0] is not None:
            return i, "lo"
        if gi.b <= 0 and box[i][1] is not None:
            return i, "hi"
    return None


def _face(box: Box, i: int, side: str) -> Box:
    end = box[i][0] if side == "lo" else box[i][1]
    return [(end, end) if k == i else b for k, b in enumerate(box)]


def _split_choice(box: Box, ref: list[Fraction] | None) -> tuple[int, Fraction] | None:
    best, best_width = None, Fraction(-1)
    for i, (lo, hi) in enumerate(box):
        if lo is None or hi is None:
            if lo is None and hi is None:
                return i, Fraction(0)
            if hi is None:
                return i, max(2 * lo, Fraction(1)) if lo >= 0 else Fraction(0) if lo < -1 else lo + 2
            return i, min(2 * hi, Fraction(-1)) if hi <= 0 else Fraction(0) if hi > 1 else hi - 2
        width = hi - lo
        if width > best_width:
            best, best_width = i, width
    if best is None or best_width == 0:
        return None
    lo, hi = box[best]
    return best, (lo + hi) / 2


def _inside(ref, box) -> bool:
    return ref is not None and all((lo is None or lo <= r) and (hi is None or r <= hi) for r, (lo, hi) in zip(ref, box))


def search(reduced: Reduced, target, ref: list[Fraction] | None, max_nodes: int = MAX_NODES) -> list[str]:
    """The proof tree's tokens, or BoundFailure when it does not close within max_nodes."""
    comp = compile_reduced(reduced)
    tokens: list[str] = []
    box0 = [tuple(b) for b in reduced.bounds]

    def close(box, depth):
        if len(tokens) > max_nodes:
            raise BoundFailure(f"more than {max_nodes} boxes")
        try:
            xs = _ivbox(comp, box)
        except Infeasible as exc:
            tokens.append(str(exc))
            return
        if (token := _infeasible(comp, xs)) is not None:
            tokens.append(token)
            return
        if _safe(comp.f, xs) is None:
            tokens.append("u")
            return
        if _range(comp, xs, target):
            tokens.append("r")
            return
        grads = _gradient(comp, xs)
        if _mean_value(comp, box, xs, target, grads):
            tokens.append("m")
            return
        face = _monotone_face(comp, box, xs, grads)
        if face is not None:
            tokens.append(f"f{face[0]}:{face[1]}")
            close(_face(box, *face), depth + 1)
            return
        # the Hessian test is the costly one: near the witness, or once boxes are small
        if _finite(box) and (_inside(ref, box) or depth >= CONVEX_DEPTH):
            anchor = [min(max(r, lo), hi) for r, (lo, hi) in zip(ref, box)] if ref is not None else _midpoint(box)
            for candidate in ([anchor, _midpoint(box)] if anchor != _midpoint(box) else [anchor]):
                if _convex(comp, box, xs, target, candidate):
                    tokens.append("c:" + ",".join(str(v) for v in candidate))
                    return
        choice = _split_choice(box, ref)
        if choice is None or depth >= MAX_DEPTH:
            raise BoundFailure(f"a box at depth {depth} cannot be closed: {box}")
        i, p = choice
        tokens.append(f"s{i}:{p}")
        close([(b[0], p) if k == i else b for k, b in enumerate(box)], depth + 1)
        close([(p, b[1]) if k == i else b for k, b in enumerate(box)], depth + 1)

    close(box0, 0)
    return tokens


def replay(reduced: Reduced, target, tokens: list[str]) -> None:
    """Re-check a proof tree; raises BoundFailure naming the first token that does not hold."""
    comp = compile_reduced(reduced)
    position = 0

    def fail(message):
        raise BoundFailure(f"token {position} ({tokens[position - 1] if position else ''}): {message}")

    def check(box, depth):
        nonlocal position
        if depth > MAX_DEPTH:
            fail("tree deeper than allowed")
        if position >= len(tokens):
            fail("proof ends early")
        token = tokens[position]
        position += 1
        try:
            xs = _ivbox(comp, box)
        except Infeasible as exc:
            if token != str(exc):
                fail(f"box is infeasible by {exc}, not by {token}")
            return
        head, _, arg = token.partition(":")
        if head.startswith("s"):
            i, p = int(head[1:]), Fraction(arg)
            lo, hi = box[i]
            if not ((lo is None or lo < p) and (hi is None or p < hi)):
                fail(f"split point {p} is not inside ({lo}, {hi})")
            check([(b[0], p) if k == i else b for k, b in enumerate(box)], depth + 1)
            check([(p, b[1]) if k == i else b for k, b in enumerate(box)], depth + 1)
        elif head.startswith("f"):
            i = int(head[1:])
            gi = _safe(comp.grad[i], xs)
            if gi is None or not _constraints_hold(comp, xs):
                fail("face step needs a defined gradient and every constraint to hold on the box")
            if not ((arg == "lo" and gi.a >= 0 and box[i][0] is not None) or (arg == "hi" and gi.b <= 0 and box[i][1] is not None)):
                fail(f"objective not monotone towards the {arg} face of variable {i}")
            check(_face(box, i, arg), depth + 1)
        elif head.startswith("v"):
            fail("auxiliary variable's range is not empty on the box")
        elif head.startswith("x"):
            if _infeasible(comp, xs, only=int(head[1:])) is None:
                fail("constraint not negative on the whole box")
        elif head == "u":
            if _safe(comp.f, xs) is not None:
                fail("objective is defined on the box")
        elif head == "r":
            if not _range(comp, xs, target):
                fail("enclosure not above the target")
        elif head == "m":
            if not _mean_value(comp, box, xs, target):
                fail("mean-value bound not above the target")
        elif head == "c":
            ref = [Fraction(v) for v in arg.split(",")] if arg else []
            if len(ref) != comp.n or not _inside(ref, box):
                fail("convexity anchor outside the box")
            if not _convex(comp, box, xs, target, ref):
                fail("convexity bound not above the target")
        else:
            fail(f"unknown token {token!r}")

    check([tuple(b) for b in reduced.bounds], 0)
    if position != len(tokens):
        raise BoundFailure(f"{len(tokens) - position} tokens left over after the proof tree")
