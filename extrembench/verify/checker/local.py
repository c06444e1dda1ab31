"""The local second-order argument of a `bound` leaf at a KKT point (the checker's half): the
Taylor form F(ref) + g.d + d'H d/2 of the objective (or of a Lagrangian) over a box, with H any
symmetric matrix inside the interval Hessian, is proven >= F(ref) + (a part of) g.d. Used by
bound._tangent_bound; pure functions of interval matrices and vectors, no search."""

from __future__ import annotations

from fractions import Fraction

from extrembench.verify.checker.interval import make, point


def positive_definite(rows) -> bool:
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


def _magnitude(x) -> float:
    return max(-x.a, x.b)


def split_plane(rows, free, box, ref, grads, d) -> list | None:
    """The directions whose plane term must still clear the target when the rest of the Taylor
    form is proven >= 0 by an active-face split (a KKT point at a vertex or edge of the box), or
    None. Active: free directions where ref sits at a box end and the gradient points into the box
    (d_i has one sign there, so g_i d_i = |g_i| |d_i|); the rest must have a positive definite
    Hessian block (their quadratic form is >= 0). Every cross and active-active term of d'H d/2 is
    charged to an active direction: |H_ik| |d_i| |d_k| <= |d_i| (|H_ik| w_k) (half of it when k is
    active too, the other half going to k), so the active part is
    >= sum |d_i| (|g_i| - charge_i) >= 0 when each |g_i| covers its charge. A single remaining
    direction needs only H_ii >= 0 (an edge along which the form is flat, as a corner's cleared
    form N - t*D can be)."""
    n = len(free)
    slopes = {}
    for a, i in enumerate(free):
        g = grads[i]
        if ref[i] == box[i][0] and g.a > 0:
            slopes[a] = g
        elif ref[i] == box[i][1] and g.b < 0:
            slopes[a] = -g
    if not slopes:
        return None
    rest = [a for a in range(n) if a not in slopes]
    if len(rest) == 1:
        if not rows[rest[0]][rest[0]].a >= 0:  # one direction: semidefinite is enough, d'H d >= 0
            return None
    elif rest and not positive_definite([[rows[r][s] for s in rest[: b + 1]] for b, r in enumerate(rest)]):
        return None
    for a, slope in slopes.items():
        charge = point(0)
        for b in range(n):
            m = rows[max(a, b)][min(a, b)]
            size = max(-m.a, 0.0) if b == a else _magnitude(m)  # a positive diagonal only helps
            w = _magnitude(d[free[b]])
            charge = charge + make(size, size) * make(w, w) * (point(Fraction(1, 2)) if b in slopes else point(1))
        if not (slope - charge).a >= 0:
            return None
    return [free[b] for b in rest]
