"""`sos` certificates: an exact sum-of-squares identity

    denominator * (objective - answer)  =  z^T G z  +  sum_j  lambda_j * h_j

for polynomial and rational problems with polynomial equality constraints h_j = 0 (min form; max
negates the objective), variables free or, when nonnegative, written as squares. G is a rational positive semidefinite Gram matrix over the
monomial vector z, lambda_j rational polynomials, and the denominator a constant > 0 or a
polynomial proven positive; the identity and G's semidefiniteness are checked EXACTLY (sympy
polynomial arithmetic, rational LDL^T). A numeric SDP (Clarabel, one thread, a fixed iteration
count) finds G; it is then reduced to the face the optimum forces (the numeric kernel, rounded to
rational vectors), rounded to a coarse dyadic grid (a fixed list, coarsest first, so float noise
within solver tolerance gives the same rationals on any machine), and projected exactly onto the
identity — only the exact check counts. With epsilon = 0 here: the bound is the answer itself.
"""

from __future__ import annotations

import itertools
import logging
import math
from fractions import Fraction

import numpy as np
import sympy

log = logging.getLogger(__name__)

MAX_BASIS = 20          # monomials in z; keeps the SDP and the exact LDL^T small


class SosFailure(ValueError):
    pass


def _polys(parsed, squares: tuple[str, ...] = ()):
    """(variables, target polynomial, equality polynomials) or SosFailure.

    target = numerator - answer * denominator of the min-form objective, with every variable
    named in `squares` replaced by its square (allowed when its domain lies in [0, inf): every
    such value is a square) and the others treated as free reals — both relaxations are
    supersets of the domain, so target >= 0 on them proves it on the problem. The denominator
    must have coefficients of one sign over variables whose domains are nonnegative (so it is
    > 0 wherever the objective is defined); it is then cleared."""
    sign = 1 if parsed.sense == "min" else -1
    syms = list(parsed.symbols)
    put = {}
    for s in syms:
        if s.name in squares:
            d = parsed.domains[s]
            if d.lo is None or d.lo < 0:
                raise SosFailure(f"variable {s} is not nonnegative, it cannot be written as a square")
            put[s] = s ** 2
    eqs = []
    for lhs, op, rhs in parsed.constraints:
        if op != "=":
            raise SosFailure("inequality constraints are not handled by sos")
        numerator, denominator = sympy.fraction(sympy.together(lhs - rhs))
        if not denominator.is_number:
            raise SosFailure("a constraint has a variable denominator")
        eqs.append(sympy.Poly(sympy.expand(numerator.subs(put)), *syms))
    if not parsed.answer.is_Rational:
        raise SosFailure("the answer is irrational")
    numerator, denominator = sympy.fraction(sympy.together(sign * parsed.objective))
    try:
        den = sympy.Poly(sympy.expand(denominator), *syms)
        num = sympy.Poly(sympy.expand(numerator), *syms)
    except sympy.PolynomialError:
        raise SosFailure("the objective is not a rational function") from None
    coeffs = den.coeffs()
    if not all(c.is_Rational for c in coeffs + num.coeffs()):
        raise SosFailure("coefficients are not rational")
    if all(c < 0 for c in coeffs):
        num, den = -num, -den
    elif not all(c > 0 for c in coeffs):
        raise SosFailure("the denominator's coefficients have both signs")
    if not den.is_ground:
        for s in sorted(den.as_expr().free_symbols, key=str):
            d = parsed.domains[s]
            if d.lo is None or d.lo < 0:
                raise SosFailure(f"the denominator involves {s}, which can be negative")
    target = sympy.Poly(sympy.expand((num.as_expr() - sign * parsed.answer * den.as_expr()).subs(put)), *syms)
    return syms, target, eqs


def _monomials(n: int, degree: int) -> list[tuple[int, ...]]:
    out = []
    for total in range(degree + 1):
        for combo in itertools.combinations_with_replacement(range(n), total):
            exponent = [0] * n
            for i in combo:
                exponent[i] += 1
            out.append(tuple(exponent))
    return out


def _add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def _setup(syms, target, eqs):
    n = len(syms)
    half = (target.total_degree() + 1) // 2
    low = min(sum(m) for m in target.monoms()) // 2 if target.monoms() else 0
    if eqs and any(not h.is_homogeneous for h in eqs):
        low = 0
    basis = [m for m in _monomials(n, half) if sum(m) >= low]
    if len(basis) > MAX_BASIS:
        raise SosFailure(f"{len(basis)} monomials in the Gram basis (limit {MAX_BASIS})")
    multipliers = []
    for h in eqs:
        room = 2 * half - h.total_degree()
        if room < 0:
            raise SosFailure("a constraint has a higher degree than the objective")
        multipliers.append([m for m in _monomials(n, room) if sum(m) + h.total_degree() >= 2 * low])
    return basis, multipliers


def _coefficient_equations(basis, multipliers, eqs, target, B):
    """Linear map (Gram R in basis B-coordinates, lambda) -> coefficients, and the target vector.
    G = B R B^T with B a rational (len(basis) x r) matrix given as rows of Fractions."""
    r = len(B[0]) if B else 0
    index = {}
    rows = []

    def row(mono):
        if mono not in index:
            index[mono] = len(rows)
            rows.append({})
        return rows[index[mono]]

    # z^T G z = sum_{a,b} G_ab z_a z_b, G_ab = sum_{k,j} B_ak R_kj B_bj; R symmetric: variables k<=j
    pairs = [(k, j) for k in range(r) for j in range(k, r)]
    nonzero = [[(k, c) for k, c in enumerate(line) if c] for line in B]
    pair_index = {pair: v for v, pair in enumerate(pairs)}
    for a, ma in enumerate(basis):
        for b, mb in enumerate(basis):
            entry = row(_add(ma, mb))
            # B_ak B_bj R_kj summed over all (k, j); R_kj = R_jk is the variable of (min, max)
            for k, ck in nonzero[a]:
                for j, cj in nonzero[b]:
                    v = pair_index[(k, j) if k <= j else (j, k)]
                    entry[v] = entry.get(v, 0) + ck * cj
    offset = len(pairs)
    for h, monos in zip(eqs, multipliers):
        for m in monos:
            for hm, hc in zip(h.monoms(), h.coeffs()):
                entry = row(_add(m, hm))
                entry[offset] = entry.get(offset, 0) + Fraction(int(hc.p), int(hc.q))
            offset += 1
    for tm in target.monoms():
        row(tm)
    goal = [Fraction(0)] * len(rows)
    for tm, tc in zip(target.monoms(), target.coeffs()):
        goal[index[tm]] = Fraction(int(tc.p), int(tc.q))
    rows = [{v: c for v, c in entry.items() if c} for entry in rows]
    return rows, goal, pairs, offset, list(index)


SDP_MAX_ITERATIONS = 200   # Clarabel's interior-point iterations: a count, never a time limit


def _solve_numeric(rows, goal, pairs, n_vars, r):
    """max t subject to the coefficient equations, R - t I PSD, 0 <= t <= 1 (an interior
    solution survives rounding), solved by Clarabel on one thread. Returns (R, t, values)."""
    import clarabel
    from scipy import sparse

    t_col = n_vars
    data, row_index, col_index, rhs = [], [], [], []

    def put(i, j, value):
        data.append(value)
        row_index.append(i)
        col_index.append(j)

    for i, (entry, g) in enumerate(zip(rows, goal)):      # zero cone: the identity's coefficients
        for v, c in entry.items():
            put(i, v, float(c))
        rhs.append(float(g))
    m = len(rows)
    put(m, t_col, -1.0)                                   # nonnegative cone: t >= 0, 1 - t >= 0
    put(m + 1, t_col, 1.0)
    rhs += [0.0, 1.0]
    position = {pair: v for v, pair in enumerate(pairs)}
    k = m + 2
    root2 = 2 ** 0.5
    for j in range(r):                                    # PSD cone: svec(R - t I), upper triangle by columns
        for i in range(j + 1):
            put(k, position[(i, j)], -1.0 if i == j else -root2)
            if i == j:
                put(k, t_col, 1.0)
            rhs.append(0.0)
            k += 1
    A = sparse.csc_matrix((data, (row_index, col_index)), shape=(k, n_vars + 1))
    P = sparse.csc_matrix((n_vars + 1, n_vars + 1))
    q = np.zeros(n_vars + 1)
    q[t_col] = -1.0
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.max_iter = SDP_MAX_ITERATIONS
    settings.max_threads = 1          # one thread: the same float operations in the same order
    cones = [clarabel.ZeroConeT(m), clarabel.NonnegativeConeT(2), clarabel.PSDTriangleConeT(r)]
    solution = clarabel.DefaultSolver(P, q, A, np.array(rhs), cones, settings).solve()
    status = str(solution.status)
    if status not in ("Solved", "AlmostSolved"):
        raise SosFailure(f"SDP {status}")
    x = np.array(solution.x)
    values = list(x[:n_vars])
    R = np.zeros((r, r))
    for (a, b), v in zip(pairs, values):
        R[a, b] = R[b, a] = v
    return R, float(x[t_col]), values


def _rational_kernel(matrix: np.ndarray, tol: float = 1e-5) -> list[list[Fraction]]:
    """Rational vectors spanning the numeric kernel of a PSD matrix (rounded reduced row echelon)."""
    w, v = np.linalg.eigh(matrix)
    kernel = v[:, w < tol * max(1.0, float(w.max()))]
    if kernel.shape[1] == 0:
        return []
    # reduced row echelon form of kernel^T makes the basis rational-looking (pivot entries 1)
    m = sympy.Matrix(kernel.T.tolist())
    reduced, pivots = m.rref(iszerofunc=lambda x: abs(x) < 1e-8)
    out = []
    for i in range(len(pivots)):
        out.append([Fraction(float(x)).limit_denominator(1000) for x in reduced.row(i)])
    return out


def _complement(kernel: list[list[Fraction]], n: int) -> list[list[Fraction]]:
    """Rows of a rational n x r matrix B whose columns span the vectors orthogonal to the kernel."""
    if not kernel:
        return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    K = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in row] for row in kernel])
    basis = K.nullspace()
    if not basis:
        raise SosFailure("the whole Gram matrix is forced to zero")
    B = sympy.Matrix.hstack(*basis)
    return [[Fraction(int(B[i, j].p), int(B[i, j].q)) for j in range(B.shape[1])] for i in range(n)]


class _Projector:
    """Exact least-norm correction onto {x : A x = goal}: x + A'^T (A' A'^T)^-1 (goal' - A' x) over
    a maximal set A' of independent rows (rational arithmetic, factored once for every grid)."""

    def __init__(self, rows, goal, n: int):
        from sympy import QQ
        from sympy.polys.matrices import DomainMatrix

        self.rows, self.goal, self.n = rows, goal, n
        dense = [[QQ(0)] * n for _ in rows]
        for i, entry in enumerate(rows):
            for v, c in entry.items():
                dense[i][v] = QQ(c.numerator, c.denominator)
        A = DomainMatrix(dense, (len(rows), n), QQ)
        _, pivots = A.transpose().rref()
        self.independent = list(pivots)
        self.A = DomainMatrix([dense[i] for i in self.independent], (len(self.independent), n), QQ)
        self.b = DomainMatrix([[QQ(goal[i].numerator, goal[i].denominator)] for i in self.independent],
                              (len(self.independent), 1), QQ)
        self.At = self.A.transpose()
        try:
            self.inverse = (self.A * self.At).inv()
        except Exception:  # noqa: BLE001 (a singular system: no exact repair, reported as such)
            raise SosFailure("the coefficient equations cannot be solved exactly") from None

    def project(self, values: list[Fraction]) -> list[Fraction]:
        from sympy import QQ
        from sympy.polys.matrices import DomainMatrix

        x = DomainMatrix([[QQ(v.numerator, v.denominator)] for v in values], (self.n, 1), QQ)
        corrected = x + self.At * (self.inverse * (self.b - self.A * x))
        out = [Fraction(int(e.numerator), int(e.denominator)) for e in corrected.to_list_flat()]
        for entry, g in zip(self.rows, self.goal):   # the dependent rows hold too when the system is consistent
            if sum(c * out[v] for v, c in entry.items()) != g:
                raise SosFailure("the coefficient equations are inconsistent")
        return out


# Rounding grids for the float SDP solution, coarsest first: a fixed list, so the same float
# solution (or one within solver tolerance of it) gives the same rationals on every machine:
# on a grid of step 2^-6 a perturbation of 1e-9 moves an entry to another grid point only when
# the entry sits within 1e-9 of a rounding boundary.
GRIDS = (6, 10, 16, 24, 32)


def _on_grid(value: float, bits: int) -> Fraction:
    return Fraction(math.floor(value * 2 ** bits + 0.5), 2 ** bits)


def exact_gram(projector: _Projector, pairs, r: int, values: list[float]) -> list[Fraction]:
    """The first grid (GRIDS, coarsest first) on which the rounded float solution, projected
    exactly onto the coefficient equations, has a positive semidefinite Gram matrix."""
    for bits in GRIDS:
        exact = projector.project([_on_grid(v, bits) for v in values])
        Rm = [[Fraction(0)] * r for _ in range(r)]
        for (k, j), v in zip(pairs, exact):
            Rm[k][j] = Rm[j][k] = v
        if psd_exact(Rm):
            return exact
    raise SosFailure("the rounded Gram matrix is not positive semidefinite on any grid")


def psd_exact(matrix: list[list[Fraction]]) -> bool:
    """Exact semidefiniteness by rational LDL^T with symmetric pivoting on zero pivots."""
    a = [row[:] for row in matrix]
    n = len(a)
    for k in range(n):
        pivot = a[k][k]
        if pivot < 0:
            return False
        if pivot == 0:
            if any(a[k][j] != 0 for j in range(k + 1, n)):
                return False
            continue
        for i in range(k + 1, n):
            factor = a[i][k] / pivot
            for j in range(k + 1, n):
                a[i][j] -= factor * a[k][j]
    return True


def attempt(parsed, exact_witness, solve=None) -> tuple[dict | None, str]:
    """(body, "") or (None, why not): first every variable free, then the nonnegative ones as squares."""
    nonneg = tuple(str(s) for s in parsed.symbols if parsed.domains[s].lo is not None and parsed.domains[s].lo >= 0)
    reasons = []
    for squares in ((), nonneg) if nonneg else ((),):
        try:
            return _attempt(parsed, squares, solve), ""
        except SosFailure as exc:
            reasons.append(f"{'squares' if squares else 'free'}: {exc}")
        except ImportError as exc:
            return None, f"no SDP solver: {exc}"
        except Exception as exc:  # a solver crash is a failure to certify, never a verdict
            reasons.append(f"{type(exc).__name__}: {exc}")
    return None, "; ".join(reasons)


def _attempt(parsed, squares: tuple[str, ...], solve=None) -> dict:
    """`solve` is the float SDP solver (rows, goal, pairs, n_vars, r) -> (R, t, values):
    _solve_numeric unless a test perturbs its answer."""
    solve = solve or _solve_numeric
    syms, target, eqs = _polys(parsed, squares)
    basis, multipliers = _setup(syms, target, eqs)
    n = len(basis)
    B = _complement([], n)
    rows, goal, pairs, n_vars, _ = _coefficient_equations(basis, multipliers, eqs, target, B)
    R, t, values = solve(rows, goal, pairs, n_vars, n)
    kernel = _rational_kernel(R) if t < 1e-4 else []
    if kernel:   # the optimum is on a face: solve again inside it
        B = _complement(kernel, n)
        rows, goal, pairs, n_vars, _ = _coefficient_equations(basis, multipliers, eqs, target, B)
        R, t, values = solve(rows, goal, pairs, n_vars, len(B[0]))
    r = len(B[0])
    if t < 1e-7:
        raise SosFailure(f"no interior Gram matrix on the reduced face (smallest eigenvalue {t:.2g})")
    exact = exact_gram(_Projector(rows, goal, n_vars), pairs, r, [float(v) for v in values])
    Rm = [[Fraction(0)] * r for _ in range(r)]
    for (k, j), v in zip(pairs, exact):
        Rm[k][j] = Rm[j][k] = v
    BR = [[sum(B[a][k] * Rm[k][j] for k in range(r) if B[a][k]) for j in range(r)] for a in range(n)]
    G = [[sum(BR[a][j] * B[b][j] for j in range(r) if B[b][j]) for b in range(n)] for a in range(n)]
    lambdas = exact[len(pairs):]
    body = {"variables": [str(s) for s in syms], "basis": [list(m) for m in basis],
            "gram": [[str(x) for x in row] for row in G],
            "multipliers": [], "squares": list(squares)}
    k = 0
    for monos in multipliers:
        terms = []
        for m in monos:
            if lambdas[k] != 0:
                terms.append([list(m), str(lambdas[k])])
            k += 1
        body["multipliers"].append(terms)
    return body


def size(body: dict) -> int:
    return len(body["gram"]) ** 2 + sum(len(t) for t in body["multipliers"])


def verify(doc: dict, parsed, epsilon) -> tuple[bool, str]:
    """Exact re-check: sympy expands both sides; the Gram matrix passes rational LDL^T."""
    body = doc.get("body") or {}
    squares = body.get("squares", [])
    if not isinstance(squares, list) or not all(isinstance(v, str) for v in squares):
        return False, "sos: squares must be a list of variable names"
    try:
        syms, target, eqs = _polys(parsed, tuple(squares))
    except SosFailure as exc:
        return False, f"sos: {exc}"
    if body.get("variables") != [str(s) for s in syms]:
        return False, "sos: variables differ from the spec's"
    basis = [tuple(int(e) for e in m) for m in body["basis"]]
    if any(len(m) != len(syms) or min(m, default=0) < 0 for m in basis):
        return False, "sos: malformed basis"
    G = [[Fraction(x) for x in row] for row in body["gram"]]
    if len(G) != len(basis) or any(len(row) != len(basis) for row in G):
        return False, "sos: Gram matrix does not match the basis"
    if any(G[i][j] != G[j][i] for i in range(len(G)) for j in range(len(G))):
        return False, "sos: Gram matrix is not symmetric"
    if not psd_exact(G):
        return False, "sos: Gram matrix is not positive semidefinite"
    z = [sympy.Mul(*[s ** e for s, e in zip(syms, m)]) for m in basis]
    total = sympy.Integer(0)
    for i in range(len(z)):
        for j in range(len(z)):
            if G[i][j]:
                total += sympy.Rational(G[i][j].numerator, G[i][j].denominator) * z[i] * z[j]
    if len(body["multipliers"]) != len(eqs):
        return False, "sos: one multiplier per equality constraint needed"
    for h, terms in zip(eqs, body["multipliers"]):
        lam = sympy.Integer(0)
        for m, c in terms:
            value = Fraction(c)
            lam += sympy.Rational(value.numerator, value.denominator) * sympy.Mul(*[s ** int(e) for s, e in zip(syms, m)])
        total += lam * h.as_expr()
    if sympy.expand(total - target.as_expr()) != 0:
        return False, "sos: the identity does not hold exactly"
    return True, (f"sos: objective - answer equals a {len(basis)}x{len(basis)} positive semidefinite Gram form "
                  "plus multiples of the equality constraints (exact identity); exact witness attains it")
