"""The prover half of `sos`: the numeric SDP (Clarabel), the face reduction and the exact projection
that find an identity sos.py checks. Nothing here is needed to check one."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import sympy
from sympy import QQ
from sympy.polys.matrices import DomainMatrix
from sympy.polys.matrices.ddm import DDM
from sympy.polys.matrices.dense import ddm_ilu_solve

from extrembench.core.native_stderr import native_panics_quiet
from extrembench.problems.problem import min_form_sign
from extrembench.verify.checker.sos import (
    SosFailure,
    add_exponents,
    at_level,
    pieces_of,
    poly_mul,
    polynomial_forms,
    psd_exact,
    square_of,
)
from extrembench.verify.checker.witness import is_zero
from extrembench.verify.checker.witness import sign as witness_sign


def _monomials(n: int, low: int, high: int) -> list[tuple[int, ...]]:
    out = []
    for total in range(max(low, 0), high + 1):
        for combo in itertools.combinations_with_replacement(range(n), total):
            exponent = [0] * n
            for i in combo:
                exponent[i] += 1
            out.append(tuple(exponent))
    return out


def _degree(p: dict) -> int:
    return max((sum(m) for m in p), default=0)


def _homogeneous(p: dict) -> bool:
    return len({sum(m) for m in p}) <= 1


MAX_ENTRIES = 1200  # Gram entries (upper triangles) over all blocks: bounds the SDP and the exact algebra


def _setup(n, target, eqs, ineqs, extra: int = 0):  # noqa: C901 — the block structure of the identity: one branch per multiplier kind
    """Blocks (factors, g, basis) of  target = sum_k g_k * z_k^T G_k z_k + sum_j lambda_j h_j, with
    g_k the product of the inequalities `factors` (block 0: no factor, g = 1), and the monomials of
    every lambda_j. Degrees: the identity's whole degree D is the target's or a constraint's
    (rounded up to even) plus `extra`; when everything is homogeneous each term is of the target's
    degree. With `extra`, an equality c = form (the form homogeneous of degree e, c != 0, e dividing
    every D - deg of the target's terms) lets the Gram forms be homogeneous of degree D: the
    homogenised target differs from the target by a multiple of the equality (Polya-style)."""
    one = {(0,) * n: Fraction(1)}
    tdeg = _degree(target)
    homogeneous = all(_homogeneous(p) for p in (target, *eqs, *ineqs))
    top = 2 * ((max([tdeg] + [_degree(h) for h in eqs]) + 1) // 2) + extra
    if homogeneous and extra:
        raise SosFailure("every polynomial is homogeneous: a higher degree adds nothing")
    exact = tdeg if homogeneous else None
    for h in eqs if extra else ():
        degrees = {sum(m) for m in h}
        if len(degrees) == 2 and 0 in degrees and all((top - sum(m)) % max(degrees) == 0 for m in target):
            exact = top
    low = min((sum(m) for m in target), default=0) // 2 if not ineqs and all(_homogeneous(h) for h in eqs) else 0
    singles = [(i,) for i in range(len(ineqs))]
    pairs = list(itertools.combinations_with_replacement(range(len(ineqs)), 2))
    blocks = []
    for factors in [()] + singles + pairs:
        g = one
        for i in factors:
            g = poly_mul(g, ineqs[i])
        d = _degree(g)
        if exact is not None and _homogeneous(g):
            if d > exact or (exact - d) % 2:
                continue
            basis = _monomials(n, (exact - d) // 2, (exact - d) // 2)
        elif d > top:
            continue
        else:
            basis = _monomials(n, low if not factors else 0, (top - d) // 2)
        blocks.append((factors, g, basis))
    multipliers = []
    for h in eqs:
        d = _degree(h)
        if d > (tdeg if homogeneous else top):
            raise SosFailure("a constraint has a higher degree than the objective")
        multipliers.append(_monomials(n, tdeg - d, tdeg - d) if homogeneous else _monomials(n, 0, top - d))
    # sign symmetry: when every polynomial is even in x_i, averaging a Gram matrix over x_i -> -x_i
    # keeps the identity, and the average only pairs monomials of equal parity in x_i — one block
    # per class. Used only when the whole blocks do not fit (the split SDP needs more face reductions).
    even = [i for i in range(n) if all(m[i] % 2 == 0 for p in (target, *eqs, *ineqs) for m in p)]
    split = []
    for factors, g, basis in blocks:
        classes = {}
        for m in basis:
            classes.setdefault(tuple(m[i] % 2 for i in even), []).append(m)
        split += [(factors, g, c) for c in classes.values()]
    for candidate in (blocks, split):
        entries = _entries(candidate)
        if entries > PRUNE_LIMIT:
            continue
        pruned = _prune(candidate, target, eqs, multipliers)
        entries = _entries(pruned)
        if entries <= MAX_ENTRIES:
            if not pruned:
                raise SosFailure("no Gram block can match the target's degrees")
            return pruned, multipliers
    raise SosFailure(f"{entries} Gram entries (limit {MAX_ENTRIES}; {PRUNE_LIMIT} before pruning)")


PRUNE_LIMIT = 30 * MAX_ENTRIES


# Size of the exact projection: unknowns (Gram entries plus equality multipliers' coefficients)
# and the bits of the coefficient equations' rationals. Its rational inverse grows cubically
# with both (ineq-0136, the largest certified: 1,159 unknowns, 19,312 bits, 4 CPU-min; ineq-0124's
# squared, sorted target: 1,329 unknowns, 119,875 bits, 98 CPU-s to fail), so counts, not a clock.
MAX_EXACT_UNKNOWNS = 1500


MAX_EXACT_BITS = 40000


def _entries(blocks) -> int:
    return sum(len(b[2]) * (len(b[2]) + 1) // 2 for b in blocks)


def _prune(blocks, target, eqs, multipliers):
    """Drops basis monomials m whose Gram diagonal entry must be 0: a monomial that only the
    diagonal terms G_mm m^2 g_k produce, all with coefficients of one sign, and that the target,
    off-diagonal terms and constraint multiples do not hold, forces those G_mm to 0 (a PSD matrix
    with a zero diagonal entry has that row zero). Repeated to the (unique) fixed point; then
    blocks past MAX_ENTRIES are left out, products of two inequalities only."""
    free = set(target)
    for h, monos in zip(eqs, multipliers):
        free.update(add_exponents(m, e) for m in monos for e in h)
    off, diagonal = {}, {}  # monomial -> number of off-diagonal products; -> its diagonal terms
    for k, (_, g, basis) in enumerate(blocks):
        for a, b in itertools.combinations(basis, 2):
            for e in g:
                mono = add_exponents(add_exponents(a, b), e)
                off[mono] = off.get(mono, 0) + 1
        for m in basis:
            for e, c in g.items():
                diagonal.setdefault(add_exponents(add_exponents(m, m), e), set()).add((k, m, c > 0))
    alive = [set(basis) for _, _, basis in blocks]
    queue = sorted(diagonal)
    while queue:
        mono = queue.pop()
        terms = [t for t in diagonal.get(mono, ()) if t[1] in alive[t[0]]]
        if mono in free or off.get(mono) or len({positive for _, _, positive in terms}) != 1:
            continue
        for k, m, _ in terms:
            alive[k].discard(m)
            g = blocks[k][1]
            for e in g:  # fewer products: other monomials may now be diagonal-only
                queue.append(add_exponents(add_exponents(m, m), e))
                for b in alive[k]:
                    other = add_exponents(add_exponents(m, b), e)
                    off[other] -= 1
                    if not off[other]:
                        queue.append(other)
    blocks = [(f, g, [m for m in basis if m in keep]) for (f, g, basis), keep in zip(blocks, alive) if keep]
    while _entries(blocks) > MAX_ENTRIES and blocks and len(blocks[-1][0]) == 2:
        blocks.pop()
    return blocks


def _coefficient_equations(blocks, Bs, multipliers, eqs, target):
    """Linear map (each block's Gram R_k in its B_k-coordinates, lambda) -> coefficients, and the
    target vector. G_k = B_k R_k B_k^T with B_k a rational (len(basis) x r_k) matrix given as rows
    of Fractions; the variables are the upper triangles of the R_k, then the lambda coefficients."""
    index, rows = {}, []

    def row(mono):
        if mono not in index:
            index[mono] = len(rows)
            rows.append({})
        return rows[index[mono]]

    offset, pairs = 0, []
    for (_, g, basis), B in zip(blocks, Bs):
        r = len(B[0])
        block_pairs = [(k, j) for k in range(r) for j in range(k, r)]
        pairs.append(block_pairs)
        # the polynomial p_k = sum_a B_ak z_a of each column; R_kj multiplies (2 - [k == j]) p_k p_j g
        columns = [{} for _ in range(r)]
        for a, m in enumerate(basis):
            for k, c in enumerate(B[a]):
                if c:
                    columns[k][m] = c
        for v, (k, j) in enumerate(block_pairs):
            factor = 1 if k == j else 2
            for mono, c in poly_mul(poly_mul(columns[k], columns[j]), g).items():
                entry = row(mono)
                entry[offset + v] = entry.get(offset + v, 0) + factor * c
        offset += len(block_pairs)
    for h, monos in zip(eqs, multipliers):
        for m in monos:
            for hm, hc in h.items():
                entry = row(add_exponents(m, hm))
                entry[offset] = entry.get(offset, 0) + hc
            offset += 1
    for tm in target:
        row(tm)
    goal = [Fraction(0)] * len(rows)
    for tm, tc in target.items():
        goal[index[tm]] = tc
    rows = [{v: c for v, c in entry.items() if c} for entry in rows]
    return rows, goal, pairs, offset


SDP_MAX_ITERATIONS = 200  # Clarabel's interior-point iterations: a count, never a time limit


def _solve_numeric(rows, goal, pairs, n_vars):
    """max t subject to the coefficient equations, every block's R_k - t I PSD, 0 <= t <= 1 (an
    interior solution survives rounding), solved by Clarabel on one thread. `pairs` lists each
    block's (k, j) upper-triangle positions, in variable order. Returns ([R_k], t, values)."""
    import clarabel  # deferred: the SDP solver costs start-up time and only this path needs it
    from scipy import sparse  # deferred: scipy costs start-up time and only this path needs it

    t_col = n_vars
    data, row_index, col_index, rhs = [], [], [], []

    def put(i, j, value):
        data.append(value)
        row_index.append(i)
        col_index.append(j)

    for i, (entry, g) in enumerate(zip(rows, goal)):  # zero cone: the identity's coefficients
        for v, c in entry.items():
            put(i, v, float(c))
        rhs.append(float(g))
    m = len(rows)
    put(m, t_col, -1.0)  # nonnegative cone: t >= 0, 1 - t >= 0
    put(m + 1, t_col, 1.0)
    rhs += [0.0, 1.0]
    k, offset, sizes = m + 2, 0, []
    root2 = 2**0.5
    for block in pairs:
        r = _side(block)
        sizes.append(r)
        position = {pair: offset + v for v, pair in enumerate(block)}
        offset += len(block)
        for j in range(r):  # PSD cone: svec(R - t I), upper triangle by columns
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
    settings.max_threads = 1  # one thread: the same float operations in the same order
    cones = [clarabel.ZeroConeT(m), clarabel.NonnegativeConeT(2)] + [clarabel.PSDTriangleConeT(r) for r in sizes]
    try:
        with native_panics_quiet("clarabel"):
            solution = clarabel.DefaultSolver(P, q, A, np.array(rhs), cones, settings).solve()
    except BaseException as exc:  # a Rust panic (an eigen-solver failure) is a BaseException, not an Exception
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise SosFailure(f"SDP solver failure: {str(exc)[:80]}") from None
    status = str(solution.status)
    if status not in ("Solved", "AlmostSolved"):
        raise SosFailure(f"SDP {status}")
    x = np.array(solution.x)
    values = list(x[:n_vars])
    return [np.array(R, dtype=float) for R in _grams(pairs, values)], float(x[t_col]), values


def _side(block_pairs) -> int:
    return math.isqrt(8 * len(block_pairs) + 1) // 2  # r from r (r + 1) / 2 upper-triangle entries


def _grams(pairs, values):
    """Each block's symmetric Gram matrix (lists) from the variable vector."""
    out, offset = [], 0
    for block in pairs:
        r = _side(block)
        R = [[Fraction(0)] * r for _ in range(r)]
        for (a, b), v in zip(block, values[offset : offset + len(block)]):
            R[a][b] = R[b][a] = v
        offset += len(block)
        out.append(R)
    return out


# Largest denominators of a rounded kernel vector's entries: the first for every face; the next
# only when the SDP on a face fails, for that face again.
KERNEL_DENOMINATORS = (1000, 60)


def _rational_kernel(matrix: np.ndarray, tol: float = 1e-5, limit: int = 1000) -> list[list[Fraction]]:
    """Rational vectors spanning the numeric kernel of a PSD matrix (rounded reduced row echelon)."""
    w, v = np.linalg.eigh(matrix)
    kernel = v[:, w < tol * max(1.0, float(w.max()))]
    if kernel.shape[1] == 0:
        return []
    # reduced row echelon form of kernel^T makes the basis rational-looking (pivot entries 1); the
    # largest pivot in each column, so solver noise is not divided by a near-zero entry
    m, pivots = kernel.T.copy(), 0
    for c in range(m.shape[1]):
        if pivots == m.shape[0]:
            break
        i = pivots + int(np.argmax(abs(m[pivots:, c])))
        if abs(m[i, c]) < 1e-4:
            continue
        m[[pivots, i]] = m[[i, pivots]]
        m[pivots] /= m[pivots, c]
        for k in range(m.shape[0]):
            if k != pivots:
                m[k] -= m[k, c] * m[pivots]
        pivots += 1
    return [[Fraction(float(x)).limit_denominator(limit) for x in row] for row in m[:pivots]]


def _compose(B, C):
    """B C (rational rows), or None when C is None (the block is forced to zero)."""
    if C is None:
        return None
    return [[sum(row[k] * C[k][j] for k in range(len(C)) if row[k]) for j in range(len(C[0]))] for row in B]


def _complement(kernel: list[list[Fraction]], n: int) -> list[list[Fraction]]:
    """Rows of a rational n x r matrix B whose columns span the vectors orthogonal to the kernel
    (None when there are none: the block is forced to zero)."""
    if not kernel:
        return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    K = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in row] for row in kernel])
    basis = K.nullspace()
    if not basis:
        return None
    B = sympy.Matrix.hstack(*basis)
    return [[Fraction(int(B[i, j].p), int(B[i, j].q)) for j in range(B.shape[1])] for i in range(n)]


class _Projector:
    """Exact least-norm correction onto {x : A x = goal}: x + A'^T (A' A'^T)^-1 (goal' - A' x) over
    a maximal set A' of independent rows (rational arithmetic, factored once for every grid)."""

    def __init__(self, rows, goal, n: int):

        self.rows, self.goal, self.n = rows, goal, n
        dense = [[QQ(0)] * n for _ in rows]
        for i, entry in enumerate(rows):
            for v, c in entry.items():
                dense[i][v] = QQ(c.numerator, c.denominator)
        A = DomainMatrix(dense, (len(rows), n), QQ)
        _, pivots = A.transpose().rref(method="GJ")  # pivots are unique: the method only sets the time
        self.independent = list(pivots)
        self.A = DomainMatrix([dense[i] for i in self.independent], (len(self.independent), n), QQ)
        self.b = DomainMatrix(
            [[QQ(goal[i].numerator, goal[i].denominator)] for i in self.independent], (len(self.independent), 1), QQ
        )
        self.At = self.A.transpose()
        # (A' A'^T) factored once as L U, each grid's correction two triangular solves: exact, so
        # the same rationals as the inverse, without it (the inverse's rational Gauss-Jordan took
        # 47 s of ineq-0061's 53 and 60 s of 130 for a sixth of the shipped set; sympy's DDM is
        # the one exact LU solve that keeps the factors)
        self.L, self.U, self.swaps = (self.A * self.At).to_dense().rep.to_ddm().lu()
        if any(not self.U[i][i] for i in range(len(self.independent))):
            raise SosFailure("the coefficient equations cannot be solved exactly")

    def project(self, values: list[Fraction]) -> list[Fraction]:

        x = DomainMatrix([[QQ(v.numerator, v.denominator)] for v in values], (self.n, 1), QQ)
        residual = (self.b - self.A * x).to_dense().rep.to_ddm()
        y = DDM.zeros(residual.shape, QQ)
        ddm_ilu_solve(y, self.L, self.U, self.swaps, residual)
        corrected = x + self.At * DomainMatrix.from_rep(y)
        out = [Fraction(int(e.numerator), int(e.denominator)) for e in corrected.to_list_flat()]
        for entry, g in zip(self.rows, self.goal):  # the dependent rows hold too when the system is consistent
            if sum(c * out[v] for v, c in entry.items()) != g:
                raise SosFailure("the coefficient equations are inconsistent")
        return out


# Rounding grids for the float SDP solution, coarsest first: a fixed list, so the same float
# solution (or one within solver tolerance of it) gives the same rationals on every machine:
# on a grid of step 2^-6 a perturbation of 1e-9 moves an entry to another grid point only when
# the entry sits within 1e-9 of a rounding boundary.
GRIDS = (6, 10, 16, 24, 32)


def _on_grid(value: float, bits: int) -> Fraction:
    return Fraction(math.floor(value * 2**bits + 0.5), 2**bits)


def exact_gram(projector: _Projector, pairs, values: list[float]) -> list[Fraction]:
    """The first grid (GRIDS, coarsest first) on which the rounded float solution, projected
    exactly onto the coefficient equations, has positive semidefinite Gram blocks."""
    for bits in GRIDS:
        exact = projector.project([_on_grid(v, bits) for v in values])
        grams = _grams(pairs, exact)
        if not any(map(_clearly_indefinite, grams)) and all(map(psd_exact, grams)):
            return exact
    raise SosFailure("the rounded Gram matrix is not positive semidefinite on any grid")


def _clearly_indefinite(R) -> bool:
    """A float eigenvalue far below rounding error: the exact LDL^T (slow on the long rationals of
    a projection) would reject it too. An exactly semidefinite matrix never passes this, so the
    grid chosen does not depend on the platform's floats."""
    floats = np.array(R, dtype=float)
    return bool(len(R)) and float(np.linalg.eigvalsh(floats)[0]) < -1e-6 * max(1.0, float(abs(floats).max()))


def attempt(  # noqa: C901 — the order of the attempts: each loop level is one kind of retry
    parsed, exact_witness, solve=None, squared: bool = False, extended: bool = False
) -> tuple[dict | None, str]:
    """(body, "") or (None, why not): every variable free, then the nonnegative ones as squares;
    each first without the inequalities (a smaller SDP, usually better conditioned), then with;
    then all of it once more at a degree 2 higher when an SDP found no certificate. `squared`:
    the target K - (objective - a)^2 of an answer a +- sqrt(K) (see polynomial_forms).

    `extended` (issue 26; the "sos, extended" route, tried after every other route so each
    certificate they give keeps its bytes): sos.polynomial_forms's wider translation (no `strict`), a
    denominator of no sign (`denominator`), a Max objective by weighted pieces, far-side square
    answers (`level`), a failed SDP solved again on independent equations and a failed face cut
    again with a coarser rounding, then every attempt again scaled by the witness, and last the
    lifted multiplier."""
    square = square_of(parsed) if squared else None
    level = None
    if squared and square is None:
        square = square_of(parsed, far=True) if extended else None
        if square is None:
            return None, "the answer is not a + sqrt(K) (max) or a - sqrt(K) (min) with a, K rational"
        # the far side (min a + sqrt(K)): first objective >= a, a rational level the witness is
        # sqrt(K) away from, then (objective - a)^2 >= K
        level, why = attempt(at_level(parsed, square[0]), None, solve, extended=True)
        if level is None:
            return None, f"objective - {square[0]} (the far side of {square[0]} +- sqrt({square[1]})): {why}"
    nonneg = tuple(str(s) for s in parsed.symbols if parsed.domains[s].lo is not None and parsed.domains[s].lo >= 0)
    pieces = pieces_of(parsed) if extended and not squared and parsed.answer.is_Rational else None
    if pieces is not None:
        return _attempt_pieces(parsed, pieces, exact_witness, solve, nonneg)
    denominator = _signed_denominator(parsed) if extended and not squared else None
    at = exact_witness if squared or denominator is not None else None
    reasons = []
    for scale in (None, _witness_scale(parsed, exact_witness) if extended else None):
        if scale is None and reasons:
            break
        infeasible = False
        for extra, polya in ((0, 0), (2, 0), (0, 1)):
            for positive in (False, True):
                for squares in ((), nonneg) if nonneg else ((),):
                    if (extra or polya) and not infeasible:
                        break
                    try:
                        body = _attempt(
                            parsed,
                            squares,
                            positive,
                            solve,
                            extra,
                            polya,
                            square,
                            at or exact_witness if scale else at,
                            denominator,
                            scale,
                            level is not None,
                            extended=extended,
                        )
                        return ({**body, "level": level} if level is not None else body), ""
                    except SosFailure as exc:
                        infeasible = infeasible or str(exc).startswith(("SDP", "no interior"))
                        reasons.append(
                            f"{'scaled, ' if scale else ''}{'squares' if squares else 'free'}"
                            f"{', inequalities' if positive else ''}"
                            f"{f', degree +{extra}' if extra else ''}{', Polya' if polya else ''}"
                            f"{', denominator cleared' if denominator == 'cleared' else ''}: {exc}"
                        )
                    except ImportError as exc:
                        return None, f"no SDP solver: {exc}"
                    except Exception as exc:  # a solver crash is a failure to certify, never a verdict
                        reasons.append(f"{type(exc).__name__}: {exc}")
    if not extended:
        return None, "; ".join(reasons)
    body, why = _attempt_lifted(parsed, solve, square, at, denominator, level is not None, nonneg)
    if body is None:
        return None, "; ".join([*reasons, why])
    return ({**body, "level": level} if level is not None else body), ""


def _attempt_lifted(parsed, solve, square, at, denominator, far, nonneg) -> tuple[dict | None, str]:
    """Last of all: the target times 1 + the sum of the squared variables (sos.polynomial_forms `lift`; plain
    and inhomogeneous targets too), free, then the nonnegative variables as squares (ineq-0513's
    Hoelder bound), each without and with the inequalities, so every identity found before it
    keeps its bytes."""
    reasons = []
    for squares in ((), nonneg) if nonneg else ((),):
        for positive in (False, True):
            try:
                return _attempt(
                    parsed, squares, positive, solve, 0, 1, square, at, denominator, None, far, lift=True, extended=True
                ), ""
            except SosFailure as exc:
                reasons.append(f"lifted{', squares' if squares else ''}{', inequalities' if positive else ''}: {exc}")
            except Exception as exc:  # a solver crash is a failure to certify, never a verdict
                reasons.append(f"{type(exc).__name__}: {exc}")
    return None, "; ".join(reasons)


MAX_PIECE_TRIES = 3  # pieces tried as the one of weight 1: the first active ones at the witness


def _attempt_pieces(parsed, pieces, witness, solve, nonneg) -> tuple[dict | None, str]:
    """A min-form objective Max(p_1, ..., p_k) >= answer: sum_i w_i (p_i - answer) >= 0 with
    w >= 0 (sos.polynomial_forms `weights`), the w found by the SDP with one piece's weight fixed to 1 (each
    other weight a 1x1 Gram block). The piece fixed is one at the answer at the witness: one with
    w > 0 in some certificate is (complementary slackness), so the first few of those are tried."""
    answer = min_form_sign(parsed.sense) * parsed.answer
    syms = list(parsed.symbols)
    active = [
        i for i, p in enumerate(pieces) if witness is None or is_zero(p.subs({s: witness[s] for s in syms}) - answer)
    ]
    reasons = []
    for c in active[:MAX_PIECE_TRIES]:
        for extra in (0, 2):
            for positive in (False, True):
                for squares in ((), nonneg) if nonneg else ((),):
                    try:
                        return _attempt(
                            parsed, squares, positive, solve, extra, piece=(c, len(pieces)), extended=True
                        ), ""
                    except SosFailure as exc:
                        reasons.append(
                            f"piece {c} of {len(pieces)}, {'squares' if squares else 'free'}"
                            f"{', inequalities' if positive else ''}{f', degree +{extra}' if extra else ''}: {exc}"
                        )
                    except Exception as exc:  # a solver crash is a failure to certify, never a verdict
                        reasons.append(f"{type(exc).__name__}: {exc}")
    return None, "; ".join(reasons) or "no piece of the objective's Max is at the answer at the witness"


def _witness_scale(parsed, witness) -> tuple[Fraction, ...] | None:
    """Each variable's scale for the SDP: |its witness coordinate| when that is rational and
    nonzero, a short rational near it when irrational, else 1; None when every scale is 1 (or no
    witness). The optimum then sits at coordinates +-1 and 0: monomials of one size, an SDP far
    better conditioned than at (2, 4, 8) or (1/3, 4/5, 3/2) (ineq-0123)."""
    if not witness:
        return None
    scale = []
    for s in parsed.symbols:
        v = witness[s]
        if v.is_Rational:
            scale.append(abs(Fraction(int(v.p), int(v.q))) or Fraction(1))
        else:
            near = Fraction(abs(float(v))).limit_denominator(16)
            scale.append(near or Fraction(1))
    return tuple(scale) if any(c != 1 for c in scale) else None


def _signed_denominator(parsed):
    """How the objective's denominator D gets its sign (see sos.polynomial_forms): None when its
    coefficients give it one; (c, s) when D = c * s^2 with c a nonzero rational and s a polynomial
    (a product of even powers: (x - y)^2 (y - z)^2 (z - x)^2), proven by a rank-one Gram block;
    else "cleared" (the target multiplied by D). A string other than "cleared" is why not."""
    try:
        polynomial_forms(parsed)
        return None
    except SosFailure as exc:
        if "denominator of the objective" not in str(exc):
            return None  # another failure: the attempts report it
    objective = min_form_sign(parsed.sense) * parsed.objective
    denominator = sympy.fraction(sympy.together(objective))[1]
    constant, factors = sympy.factor_list(sympy.expand(denominator), *parsed.symbols)
    if constant.is_Rational and constant != 0 and all(e % 2 == 0 for _, e in factors):
        return constant, sympy.Mul(*(f ** (e // 2) for f, e in factors))
    return "cleared"


def _denominator_block(syms, squares, constant, root) -> dict:
    """The rank-one Gram block c * v v^T of D = c * root^2 (root in the variables written as squares)."""
    put = {s: s**2 for s in syms if s.name in squares}
    p = sympy.Poly(sympy.expand(root.subs(put)), *syms)
    sign = 1 if constant > 0 else -1
    basis = [list(m) for m in p.monoms()]
    coeffs = [Fraction(int(c.p), int(c.q)) for c in p.coeffs()]
    c = Fraction(int(constant.p), int(constant.q)) * sign
    return {"basis": basis, "gram": [[str(c * x * y) for y in coeffs] for x in coeffs]}


# Unknowns up to which a failed SDP is solved again on independent rows (the exact row reduction
# grows with their number; the largest system retried is ineq-0076's face, 244 unknowns).
MAX_RETRY_UNKNOWNS = 600


def _solve_once(solve, rows, goal, pairs, n_vars):
    return solve(rows, goal, pairs, n_vars)


def _solve_independent(solve, rows, goal, pairs, n_vars):
    """solve(...), and when the SDP fails, once more on a maximal set of linearly independent
    coefficient equations (exact rref): dependent rows (the equality multipliers' products
    overlap, a face's reduction makes rows combinations of others) can leave Clarabel's KKT
    system singular (NumericalError at its first iteration, ineq-0076) or, rounded to floats,
    slightly inconsistent. Only after a failure, so every system that solves keeps its floats."""
    try:
        return solve(rows, goal, pairs, n_vars)
    except SosFailure as exc:
        if not str(exc).startswith("SDP") or n_vars > MAX_RETRY_UNKNOWNS:
            raise
        dense = [[QQ(0)] * n_vars for _ in rows]
        for i, entry in enumerate(rows):
            for v, c in entry.items():
                dense[i][v] = QQ(c.numerator, c.denominator)
        # Gauss-Jordan over QQ: the automatic choice took the fraction-free route, minutes on
        # ineq-0135's 490 x 210 system; pivots are unique, so the choice sets the time only
        _, pivots = DomainMatrix(dense, (len(rows), n_vars), QQ).transpose().rref(method="GJ")
        augmented = [row + [QQ(g.numerator, g.denominator)] for row, g in zip(dense, goal)]
        if len(pivots) == len(rows) or len(
            DomainMatrix(augmented, (len(rows), n_vars + 1), QQ).transpose().rref(method="GJ")[1]
        ) > len(pivots):
            raise  # no dependent row, or the equations are inconsistent: the failure stands
        return solve([rows[i] for i in pivots], [goal[i] for i in pivots], pairs, n_vars)


def _power(scale, m) -> Fraction:
    return math.prod((Fraction(s) ** e for s, e in zip(scale, m)), start=Fraction(1))


def _normalised(p: dict) -> tuple[dict, Fraction]:
    """p / w with w the power of 2 nearest its largest coefficient (|p / w| <= ~1), and w."""
    top = max((abs(c) for c in p.values()), default=Fraction(1))
    w = Fraction(2) ** round(math.log2(top)) if top else Fraction(1)
    return {m: c / w for m, c in p.items()}, w


def _scaled(scale, target, eqs, ineqs):
    """The polynomials in X = x / scale (p(scale * X)), each divided by a power of 2 near its largest
    coefficient, and the weights (target's, each inequality's, each equality's): an identity
    target(sX)/w = sum_k g_k(sX)/w_k z(X)^T G_k z(X) + sum_j lambda_j(X) h_j(sX)/w_j found in X
    is one in x with Gram D G_k D * w / w_k (D = diag(scale^-m)) and lambda_j(x/s) * w / w_j."""

    def at_scale(p):
        return _normalised({m: c * _power(scale, m) for m, c in p.items()})

    target, w = at_scale(target)
    ineqs, wg = zip(*map(at_scale, ineqs)) if ineqs else ((), ())
    eqs, wh = zip(*map(at_scale, eqs)) if eqs else ((), ())
    return target, list(eqs), list(ineqs), (w, list(wg), list(wh))


MAX_ORBIT_VARIABLES = 3  # permutations and sign changes of the witness are tried up to 3 variables (48 points)


def _orbit(at: dict, syms, target, eqs, ineqs) -> list[dict]:
    """The other points the witness's coordinates give by permuting them and changing their signs
    that are zeros of the target on the relaxed feasible set too (each checked exactly: every
    equality 0, every inequality >= 0 there), so every term of the identity vanishes there as well
    (a symmetric problem's optimum comes with its images). Empty past MAX_ORBIT_VARIABLES."""
    if len(syms) > MAX_ORBIT_VARIABLES:
        return []
    values = [at[s] for s in syms]
    points = []
    for perm in dict.fromkeys(itertools.permutations(values)):
        for signs in itertools.product((1, -1), repeat=len(syms)):
            p = {s: sign * v for s, sign, v in zip(syms, signs, perm)}
            if p == at or p in points or any(v == 0 and sign < 0 for v, sign in zip(perm, signs)):
                continue
            if (
                is_zero(_value(target, syms, p))
                and all(is_zero(_value(h, syms, p)) for h in eqs)
                and all(witness_sign(_value(g, syms, p)) in (0, 1) for g in ineqs)
            ):
                points.append(p)
    return points


def _value(p: dict, syms, at: dict):
    return sympy.expand(sum(c * sympy.Mul(*(at[s] ** e for s, e in zip(syms, m))) for m, c in p.items()))


FACE_ROUNDS = 8  # face reductions after the first SDP: each drops the numeric kernel the optimum forces


def _vanishing(basis, g, syms, at) -> list[list[Fraction]]:
    """Rational vectors every Gram matrix G of the block must annihilate: the target is 0 at the
    exact witness `at`, so each term g * z^T G z is, and where g > 0 there G z(at) = 0. z(at) over
    a field Q(sqrt(d1), sqrt(d2), ...) splits into rational vectors, one per square root (square
    roots of distinct squarefree integers are independent over Q), and G (rational) kills each.
    Empty when the witness has other irrationals or g is not proven > 0 there."""
    point = [at[s] for s in syms]

    def value(m):
        return sympy.expand(sympy.Mul(*(v**e for v, e in zip(point, m))))

    if witness_sign(sum(c * value(m) for m, c in g.items())) != 1:
        return []
    parts = {}
    for i, m in enumerate(basis):
        for root, c in value(m).as_coefficients_dict().items():
            if not (
                c.is_Rational and (root == 1 or (root.is_Pow and root.exp == sympy.S.Half and root.base.is_Integer))
            ):
                return []
            parts.setdefault(root, [Fraction(0)] * len(basis))[i] = Fraction(int(c.p), int(c.q))
    return list(parts.values())


def _attempt(
    parsed,
    squares: tuple[str, ...],
    positive: bool,
    solve=None,
    extra: int = 0,
    polya: int = 0,
    square: tuple[str, str] | None = None,
    at: dict | None = None,
    denominator=None,
    scale: tuple[Fraction, ...] | None = None,
    far: bool = False,
    piece: tuple[int, int] | None = None,
    lift: bool = False,
    extended: bool = False,
) -> dict:
    """`solve` is the float SDP solver (rows, goal, pairs, n_vars) -> ([R_k], t, values):
    _solve_numeric unless a test perturbs its answer. `positive`: use the inequalities. `at`: the
    exact witness, whose zero of the target fixes part of each block's kernel (see _vanishing)."""
    solve = solve or _solve_numeric
    if isinstance(denominator, tuple):
        denominator = _denominator_block(list(parsed.symbols), squares, *denominator)
    if piece:  # (c, k): target piece c's, each other piece i as a 1x1 block mu_i * (-t_i) (see _attempt_pieces)
        c, k = piece
        parts = [polynomial_forms(parsed, squares, polya, weights=[int(i == j) for j in range(k)]) for i in range(k)]
        syms, target, eqs, ineqs = parts[c]
        others = [(i, {m: -v for m, v in parts[i][1].items()}) for i in range(k) if i != c]
    else:
        syms, target, eqs, ineqs = polynomial_forms(
            parsed, squares, polya, square, denominator, far, lift=lift, strict=not extended
        )
    if polya and not lift and not _homogeneous(target):
        raise SosFailure("a Polya multiplier is tried on homogeneous targets only")
    if positive and not ineqs:
        raise SosFailure("no inequalities")
    ineqs = ineqs if positive else []
    if extra and not (eqs or ineqs):
        raise SosFailure("a higher degree needs a constraint to cancel against")
    if scale:  # the SDP in X = x / scale (see _scaled); the identity is mapped back exactly below
        target, eqs, ineqs, weights = _scaled(scale, target, eqs, ineqs)
        if isinstance(at, dict):
            at = {x: at[x] / sympy.Rational(c.numerator, c.denominator) for x, c in zip(syms, scale)}
    if piece:  # every piece's monomials count as the target's for the degrees and the pruning
        shape = {m: Fraction(1) for p in [target] + [g for _, g in others] for m in p}
        blocks, multipliers = _setup(len(syms), shape, eqs, ineqs, extra)
        blocks += [(("w", i), g, [(0,) * len(syms)]) for i, g in others]
    else:
        blocks, multipliers = _setup(len(syms), target, eqs, ineqs, extra)
    if at and squares and extended:  # the witness in the variables written as squares: their square roots
        at = {s: sympy.sqrtdenest(sympy.sqrt(v)) if s.name in squares else v for s, v in at.items()}
        squares_at = True
    else:
        squares_at = False
    if at and (
        (squares and not squares_at)
        or not is_zero(sum(c * sympy.Mul(*(at[s] ** e for s, e in zip(syms, m))) for m, c in target.items()))
    ):
        at = None  # the target is not 0 there (a witness off the chain x1 <= x2 <= ... of a symmetric problem)
    zeros = [at] if at else []
    if at and extended:
        zeros += _orbit(at, syms, target, eqs, ineqs)
    Bs = [_complement([v for p in zeros for v in _vanishing(basis, g, syms, p)], len(basis)) for _, g, basis in blocks]
    blocks, Bs = [b for b, B in zip(blocks, Bs) if B], [B for B in Bs if B]
    if not blocks:
        raise SosFailure("every Gram block is forced to zero")
    blocks, Bs, Rs, t, (rows, goal, pairs, n_vars), values = _solve_on_faces(
        solve, blocks, Bs, multipliers, eqs, target, extended
    )
    bits = sum(c.numerator.bit_length() + c.denominator.bit_length() for row in rows for c in row.values())
    if n_vars > MAX_EXACT_UNKNOWNS or bits > MAX_EXACT_BITS:  # on the final face, where they are smallest
        raise SosFailure(
            f"{n_vars} unknowns, {bits} bits for the exact projection (limits {MAX_EXACT_UNKNOWNS}, {MAX_EXACT_BITS})"
        )
    exact = exact_gram(_Projector(rows, goal, n_vars), pairs, [float(v) for v in values])
    grams = _exact_grams(blocks, Bs, pairs, exact, scale, weights if scale else None)
    return _attempt_body(
        syms,
        squares,
        blocks,
        grams,
        multipliers,
        exact[sum(len(p) for p in pairs) :],
        piece,
        polya,
        lift,
        square,
        denominator,
        scale,
        weights if scale else None,
    )


def _solve_on_faces(solve, blocks, Bs, multipliers, eqs, target, extended):
    """The float SDP, cut down to the face its optimum lies on (FACE_ROUNDS at most), until its
    Gram matrices are interior: (blocks, Bs, Rs, t, (rows, goal, pairs, n_vars), values)."""
    roundings, before = iter(KERNEL_DENOMINATORS if extended else KERNEL_DENOMINATORS[:1]), None
    denominator_limit = next(roundings)
    for _ in range(FACE_ROUNDS + 1):
        rows, goal, pairs, n_vars = _coefficient_equations(blocks, Bs, multipliers, eqs, target)
        try:
            Rs, t, values = (_solve_independent if extended else _solve_once)(solve, rows, goal, pairs, n_vars)
        except SosFailure:
            # the face just cut may be wrong (a slowly converging kernel vector rounded to 2498/999
            # for 5/2, ineq-0518): cut the face before it again with a coarser rounding
            denominator_limit = next(roundings, None)
            if before is None or denominator_limit is None:
                raise
            blocks, Bs, Rs = before
        else:
            if t >= 1e-4:
                break
            before = (blocks, Bs, Rs)
        # the optimum is on a face: solve again inside it, without the blocks forced to 0
        Bs = [_compose(B, _complement(_rational_kernel(R, limit=denominator_limit), len(R))) for B, R in zip(Bs, Rs)]
        blocks, Bs = [b for b, B in zip(blocks, Bs) if B], [B for B in Bs if B]
        if not blocks:
            raise SosFailure("every Gram block is forced to zero")
    if t < 1e-7:
        raise SosFailure(f"no interior Gram matrix on the reduced face (smallest eigenvalue {t:.2g})")
    return blocks, Bs, Rs, t, (rows, goal, pairs, n_vars), values


def _exact_grams(blocks, Bs, pairs, exact, scale, weights):
    """Each block's exact Gram matrix B R B^T as certificate text (mapped back when scaled)."""
    grams = []
    for (factors, _, basis), B, R in zip(blocks, Bs, _grams(pairs, exact)):
        r = len(B[0])
        BR = [[sum(B[a][k] * R[k][j] for k in range(r) if B[a][k]) for j in range(r)] for a in range(len(basis))]
        G = [
            [sum(BR[a][j] * B[b][j] for j in range(r) if B[b][j]) for b in range(len(basis))] for a in range(len(basis))
        ]
        if scale:  # g(x/s) z(x/s)^T G z(x/s) with z(x/s) = D z(x): the Gram D G D, times the weights
            w = weights[0] / math.prod((weights[1][i] for i in factors), start=Fraction(1))
            d = [_power(scale, m) for m in basis]
            G = [[w * G[a][b] / (d[a] * d[b]) for b in range(len(basis))] for a in range(len(basis))]
        grams.append(
            {"factors": list(factors), "basis": [list(m) for m in basis], "gram": [[str(x) for x in row] for row in G]}
        )
    return grams


def _attempt_body(
    syms, squares, blocks, grams, multipliers, lambdas, piece, polya, lift, square, denominator, scale, weights
):
    """The sos certificate body of one attempt: the first block, the positive ones, the options
    the checker needs to rebuild the target, and the multipliers of the equalities."""
    piece_weights = None
    if piece:  # the 1x1 blocks of the other pieces are their weights; piece c's is 1
        piece_weights = [Fraction(int(i == piece[0])) for i in range(piece[1])]
        for (factors, _, _), gram in zip(blocks, list(grams)):
            if factors[:1] == ("w",):
                piece_weights[factors[1]] = Fraction(gram["gram"][0][0])
                grams.remove(gram)
        blocks = [b for b in blocks if b[0][:1] != ("w",)]
    first = grams.pop(0) if blocks and not blocks[0][0] else {"basis": [], "gram": []}
    body = {
        "variables": [str(s) for s in syms],
        "basis": first["basis"],
        "gram": first["gram"],
        "multipliers": [],
        "squares": list(squares),
    }
    if grams:
        body["positive"] = grams
    if polya:
        body["polya"] = polya
    if lift:
        body["lift"] = True
    if square:
        body["square"] = list(square)
    if denominator is not None:
        body["denominator"] = denominator
    if piece_weights is not None:
        body["weights"] = [str(w) for w in piece_weights]
    lambdas = iter(lambdas)
    for j, monos in enumerate(multipliers):
        terms = [[list(m), str(c)] for m, c in zip(monos, lambdas) if c != 0]
        if scale:
            terms = [[m, str(Fraction(c) * weights[0] / weights[2][j] / _power(scale, m))] for m, c in terms]
        body["multipliers"].append(terms)
    return body


def size(body: dict) -> int:
    return sum(len(b["gram"]) ** 2 for b in [body, *body.get("positive", [])]) + sum(
        len(t) for t in body["multipliers"]
    )
