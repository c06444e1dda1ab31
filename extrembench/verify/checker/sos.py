"""`sos` certificates: an exact Positivstellensatz identity (Putinar/Schmüdgen style, degree-bounded)

    denominator * (objective - answer)  =  sum_k  g_k * z_k^T G_k z_k  +  sum_j  lambda_j * h_j

for polynomial and rational problems (min form; max negates the objective) with polynomial
equality constraints h_j = 0 and inequalities g >= 0 (the inequality constraints and the
rational domain ends), variables free or, when nonnegative, written as squares. g_k is 1 (block
0), one inequality or a product of two; each G_k is a rational positive semidefinite Gram matrix
over its monomial vector z_k, lambda_j rational polynomials, the denominator a constant > 0 or a
polynomial proven positive. The identity and every G_k's semidefiniteness are checked EXACTLY
(rational polynomial arithmetic, rational LDL^T). A numeric SDP (Clarabel, one thread, a fixed
iteration count) finds the G_k; they are then reduced to the face the optimum forces (the
numeric kernels, rounded to rational vectors), rounded to a coarse dyadic grid (a fixed list,
coarsest first, so float noise within solver tolerance gives the same rationals on any machine),
and projected exactly onto the identity — only the exact check counts. With epsilon = 0 here:
the bound is the answer itself.

This module is the checker's half (the polynomial form of the problem, the exact re-check); the
SDP and the projection that find an identity are provers/sos.py.
"""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction

import sympy

from extrembench.problems.problem import min_form_sign
from extrembench.verify.checker.document import in_recorded_order
from extrembench.verify.checker.symmetry import symmetric
from extrembench.verify.checker.witness import sign as witness_sign


class SosFailure(ValueError):
    pass


def _fraction(c) -> Fraction:
    return Fraction(int(c.p), int(c.q))


def _cleared(expr, syms, domains, what: str, positive: bool = True):
    """(numerator, denominator) Polys of expr, when `positive` with the denominator's coefficients
    all positive (so it is > 0 wherever expr is defined: it may only involve nonnegative
    variables), or SosFailure. An equality's denominator needs no sign: it is nonzero wherever
    the constraint is defined, so its numerator vanishes there."""
    numerator, denominator = sympy.fraction(sympy.together(expr))
    try:
        den = sympy.Poly(sympy.expand(denominator), *syms)
        num = sympy.Poly(sympy.expand(numerator), *syms)
    except sympy.PolynomialError:
        raise SosFailure(f"{what} is not a rational function") from None
    coeffs = den.coeffs()
    if not all(c.is_Rational for c in coeffs + num.coeffs()):
        raise SosFailure("coefficients are not rational")
    if not positive:
        return num, den
    if all(c < 0 for c in coeffs):
        num, den = -num, -den
    elif not all(c > 0 for c in coeffs):
        raise SosFailure(f"the denominator of {what} has coefficients of both signs")
    for s in sorted(den.as_expr().free_symbols, key=str):
        if domains[s].lo is None or domains[s].lo < 0:
            raise SosFailure(f"the denominator of {what} involves {s}, which can be negative")
    return num, den


def _objective(parsed):
    """The objective with each Abs(c*(x - y)) whose sign a chain of constraints x <= y (or y <= x)
    fixes replaced by its value: the same function on the feasible set. A problem invariant under
    every permutation of its variables has its extremum on x1 <= x2 <= ... too: that chain, then."""
    below = {
        (lhs, rhs) if op in ("<", "<=") else (rhs, lhs)
        for lhs, op, rhs in parsed.constraints
        if op != "=" and lhs.is_Symbol and rhs.is_Symbol
    }
    if not below and parsed.objective.has(sympy.Abs) and symmetric(parsed, parsed.symbols):
        below = set(itertools.combinations(parsed.symbols, 2))
    for k in parsed.symbols:  # transitive closure (Warshall)
        below |= {(x, y) for x, z in below if z == k for w, y in below if w == k}

    def resolve(u):
        terms = u.as_coefficients_dict()
        if len(terms) == 2 and sum(terms.values()) == 0 and all(v.is_Symbol for v in terms):
            x, y = sorted(terms, key=lambda v: terms[v])  # u = c*(y - x), c > 0
            if (x, y) in below or (y, x) in below:
                return u if (x, y) in below else -u
        return sympy.Abs(u)

    return parsed.objective.replace(sympy.Abs, resolve)


def _abs_sides(lhs, op, rhs, syms, domains, k: int) -> list:
    """|p| <= q (or q >= |p|), p and q rational functions: the numerators of q - p >= 0 and
    q + p >= 0, each cleared of a positive denominator; [] for any other constraint."""
    if op in (">", ">="):
        lhs, rhs = rhs, lhs
    if not isinstance(lhs, sympy.Abs) or rhs.has(sympy.Abs):
        return []
    try:
        return [_cleared(rhs - s * lhs.args[0], syms, domains, f"constraint {k + 1}")[0] for s in (1, -1)]
    except SosFailure:
        return []


def square_of(parsed, far: bool = False) -> tuple[str, str] | None:
    """(a, K) with the answer a + sqrt(K) (max) or a - sqrt(K) (min), a and K rational; a = 0 for
    an objective Abs(p). `far`: the answer on the far side of a instead, a + sqrt(K) (min) or
    a - sqrt(K) (max), for no Abs objective. None when the answer has no such form."""
    if far and isinstance(_objective(parsed), sympy.Abs):
        return None
    a = sympy.Integer(0) if isinstance(_objective(parsed), sympy.Abs) else parsed.answer.as_coeff_Add()[0]
    K = sympy.expand((parsed.answer - a) ** 2)
    if not (a.is_Rational and K.is_Rational) or witness_sign(
        (parsed.answer - a) * (1 if parsed.sense == "max" else -1)
    ) != (-1 if far else 1):
        return None
    return str(a), str(K)


def pieces_of(parsed) -> list | None:
    """The pieces p_i of a min-form objective Max(p_1, ..., p_k): a min of Max (Abs(q) as q and
    -q, nested Max flattened) or a max of Min (pieces -p_i, nested Min flattened); None otherwise."""
    objective, sign = parsed.objective, min_form_sign(parsed.sense)
    outer = sympy.Max if sign > 0 else sympy.Min
    if not isinstance(objective, outer):
        return None
    out = []

    def add(e):
        if isinstance(e, outer):
            for arg in e.args:
                add(arg)
        elif isinstance(e, sympy.Abs) and sign > 0:  # Max(|q|, ...) = Max(q, -q, ...)
            out.extend([e.args[0], -e.args[0]])
        else:
            out.append(sign * e)

    add(objective)
    return sorted(out, key=sympy.default_sort_key)  # a fixed order, whatever sympy's for the args


def at_level(parsed, level):
    """The problem with its answer replaced by a rational level."""
    return dataclasses.replace(parsed, answer=sympy.Rational(Fraction(level)))


def polynomial_forms(
    parsed,
    squares: tuple[str, ...] = (),
    polya: int = 0,
    square: tuple[str, str] | None = None,
    denominator: dict | str | None = None,
    far: bool = False,
    weights: list | None = None,
    lift: bool = False,
    strict: bool = False,
):
    """(variables, target, equalities h = 0, inequalities g >= 0) as {exponent: Fraction} dicts,
    or SosFailure.

    target = numerator - answer * denominator of the min-form objective; with `square` = (a, K)
    (the answer a + sqrt(K) for max, a - sqrt(K) for min) it is K * den^2 - (num - a * den)^2 of
    the objective num/den, or of p in an objective Abs(p) when a = 0: target >= 0 puts the
    objective (|p|, as p^2 <= K) within sqrt(K) of a, so on the answer's side of it. Every variable named in
    `squares` is replaced by its square (allowed when its domain lies in [0, inf): every such
    value is a square); the g are the inequality constraints and the rational domain ends
    (x - lo, hi - x), each cleared of a positive denominator, then q - p and q + p of each
    constraint |p| <= q. All of it describes a superset of
    the domain, so target >= 0 proven there holds on the problem. `polya` = k multiplies the
    target by (sum of the variables, or of their squares)^k: with every variable nonnegative that
    sum is > 0 except at the origin, where the target must be >= 0 itself (Polya/Reznick).

    A denominator D of the objective N/D that has no sign by its coefficients needs `denominator`:
    a Gram block {basis, gram} whose form equals D or -D exactly (then D, signed so, is >= 0
    everywhere, and != 0 wherever the objective is defined, so > 0 there: target N - answer * D as
    usual), or "cleared": target D * (N - answer * D), >= 0 iff N/D >= answer wherever D != 0,
    whatever D's sign. The `square` target K * D^2 - (N - a * D)^2 needs no sign of D either.
    `far` (the answer a + sqrt(K) of a min, a - sqrt(K) of a max): the target (N - a * D)^2 -
    K * D^2, so the objective is at least sqrt(K) away from a; a second identity must show it is
    on the answer's side of a.

    `lift` with `polya` = k: the multiplier is (1 + that sum)^k, k <= 2, >= 1 everywhere: the
    target times it is >= 0 exactly where the target is (ineq-0157: a^2 + b^2 - 4/5 times
    1 + a^2 + b^2 + x^2 on x^4 + a x^3 + b x^2 + a x + 1 = 0).

    `strict`: the translation as before verifier 9 (a square target's denominator positive by its
    coefficients, Polya only on nonnegative variables, no sides of |p| <= q), for the prover's
    routes that keep their certificates' bytes; the checker reads the wider one.

    `weights` w_i >= 0, not all 0, for a min-form objective Max(p_1, ..., p_k) (pieces_of): the
    target sum_i w_i * (N_i - answer * D_i) of the pieces p_i = N_i / D_i (D_i > 0); >= 0 puts
    some p_i, so the Max, at or above the answer."""
    sign = min_form_sign(parsed.sense)
    syms = list(parsed.symbols)
    put = {}
    for s in syms:
        if s.name in squares:
            if parsed.domains[s].lo is None or parsed.domains[s].lo < 0:
                raise SosFailure(f"variable {s} is not nonnegative, it cannot be written as a square")
            put[s] = s**2

    def poly(p):
        p = sympy.Poly(p.as_expr().subs(put), *syms)
        return {m: _fraction(c) for m, c in zip(p.monoms(), p.coeffs())}

    eqs, ineqs = _constraint_forms(parsed, syms, put, poly, strict)
    if square:
        target = _square_target(parsed, syms, poly, sign, square, far, strict)
    elif not parsed.answer.is_Rational:
        raise SosFailure("the answer is irrational")
    elif weights is not None:
        target = _weighted_target(parsed, syms, poly, sign, weights)
    else:
        target = _quotient_target(parsed, syms, poly, sign, denominator)
    if polya:
        target = _polya_multiplied(parsed, syms, put, target, polya, lift, strict)
    return syms, target, eqs, ineqs


def _constraint_forms(parsed, syms, put, poly, strict):
    """(equalities, inequalities) of polynomial_forms: the constraints cleared of positive
    denominators, the rational domain ends, then (unless strict) the sides of each |p| <= q."""
    eqs, ineqs, sides = [], [], []
    for k, (lhs, op, rhs) in enumerate(parsed.constraints):
        try:
            num, _ = _cleared(
                rhs - lhs if op in ("<", "<=") else lhs - rhs, syms, parsed.domains, f"constraint {k + 1}", op != "="
            )
        except SosFailure:
            if op == "=":
                raise
            sides.extend(_abs_sides(lhs, op, rhs, syms, parsed.domains, k))
            continue  # an inequality it cannot use is left out: a relaxation
        (eqs if op == "=" else ineqs).append(poly(num))
    for s in syms:
        d = parsed.domains[s]
        if d.lo is not None and d.lo.is_Rational and not (s in put and d.lo == 0):
            ineqs.append(poly(sympy.Poly(s - d.lo, *syms)))
        if d.hi is not None and d.hi.is_Rational:
            ineqs.append(poly(sympy.Poly(d.hi - s, *syms)))
    if not strict:
        ineqs.extend(poly(g) for g in sides)  # last, so the indices of the others stay as before verifier 9
    return eqs, ineqs


def _square_target(parsed, syms, poly, sign, square, far, strict):
    """K * den^2 - (num - a * den)^2 (or its negative when `far`): polynomial_forms' `square`."""
    objective = _objective(parsed)
    a, K = (sympy.Rational(Fraction(x)) for x in square)
    if (
        K < 0
        or sympy.expand((parsed.answer - a) ** 2) != K
        or witness_sign(sign * (a - parsed.answer)) not in ((0, -1) if far else (0, 1))
    ):
        raise SosFailure(f"the answer is not {a} {'+' if (sign < 0) != far else '-'} sqrt({K})")
    if isinstance(objective, sympy.Abs) and a == 0 and not far:
        objective = objective.args[0]
    num, den = _cleared(objective, syms, parsed.domains, "the objective", positive=strict)
    return poly((num - a * den) ** 2 - K * den**2 if far else K * den**2 - (num - a * den) ** 2)


def _weighted_target(parsed, syms, poly, sign, weights):
    """sum_i w_i * (N_i - answer * D_i) over the pieces of a Max objective: polynomial_forms' `weights`."""
    pieces = pieces_of(parsed)
    if pieces is None or len(weights) != len(pieces):
        raise SosFailure("weights need an objective Max(p_1, ..., p_k) (min form), one weight per piece")
    weights = [Fraction(w) for w in weights]
    if min(weights) < 0 or not any(weights):
        raise SosFailure("weights must be >= 0 and not all 0")
    target = {}
    for w, piece in zip(weights, pieces):
        num, den = _cleared(piece, syms, parsed.domains, "a piece of the objective")
        for m, c in poly(num - sign * parsed.answer * den).items():
            target[m] = target.get(m, 0) + w * c
    return {m: c for m, c in target.items() if c}


def _quotient_target(parsed, syms, poly, sign, denominator):
    """num - answer * den of the min-form objective, its denominator signed by `denominator`."""
    objective = _objective(parsed)
    if denominator is None:
        num, den = _cleared(sign * objective, syms, parsed.domains, "the objective")
        return poly(num - sign * parsed.answer * den)
    num, den = _cleared(sign * objective, syms, parsed.domains, "the objective", positive=False)
    if denominator == "cleared":
        return poly(den * (num - sign * parsed.answer * den))
    if isinstance(denominator, dict):
        form, why = _gram_form(syms, denominator, len(syms))
        if form is None:
            raise SosFailure(f"denominator: {why}")
        if form == {m: -c for m, c in poly(den).items()}:
            num, den = -num, -den
        elif form != poly(den):
            raise SosFailure("the denominator's Gram form is neither the objective's denominator nor its negative")
        return poly(num - sign * parsed.answer * den)
    raise SosFailure('denominator must be a Gram block {basis, gram} or "cleared"')


def _polya_multiplied(parsed, syms, put, target, polya, lift, strict):
    """The target times (sum of the variables or their squares)^polya, or (1 + that sum)^polya when lifted."""
    if strict and any(s not in put and (parsed.domains[s].lo is None or parsed.domains[s].lo < 0) for s in syms):
        raise SosFailure("a Polya multiplier needs every variable nonnegative")
    if lift and polya > 2:
        raise SosFailure("a lifted multiplier has a power of 1 or 2")
    if not lift and target.get((0,) * len(syms), 0) < 0:
        raise SosFailure("the target is negative at the origin")
    # each term >= 0, and 0 only where its variable is: x for a nonnegative variable, x^2 for
    # one written as a square or one of either sign
    total = {
        tuple(
            (2 if s in put or parsed.domains[s].lo is None or parsed.domains[s].lo < 0 else 1) * (j == i)
            for j in range(len(syms))
        ): Fraction(1)
        for i, s in enumerate(syms)
    }
    if lift:  # 1 + the sum: >= 1 everywhere, so no condition at the origin
        total[(0,) * len(syms)] = Fraction(1)
    for _ in range(polya):
        target = poly_mul(target, total)
    return target


def add_exponents(a, b):
    return tuple(x + y for x, y in zip(a, b))


def poly_mul(p: dict, q: dict) -> dict:
    out = {}
    for a, x in p.items():
        for b, y in q.items():
            m = add_exponents(a, b)
            out[m] = out.get(m, 0) + x * y
    return {m: c for m, c in out.items() if c}


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


def _gram_form(syms, block, n: int):
    """(the polynomial z^T G z of a body's block as a dict, or the reason it is malformed)."""
    basis = [tuple(int(e) for e in m) for m in block["basis"]]
    if any(len(m) != n or min(m, default=0) < 0 for m in basis):
        return None, "malformed basis"
    G = [[Fraction(x) for x in row] for row in block["gram"]]
    if len(G) != len(basis) or any(len(row) != len(basis) for row in G):
        return None, "Gram matrix does not match the basis"
    if any(G[i][j] != G[j][i] for i in range(len(G)) for j in range(len(G))):
        return None, "Gram matrix is not symmetric"
    if not psd_exact(G):
        return None, "Gram matrix is not positive semidefinite"
    form = {}
    for i, a in enumerate(basis):
        for j, b in enumerate(basis):
            if G[i][j]:
                m = add_exponents(a, b)
                form[m] = form.get(m, 0) + G[i][j]
    return form, ""


def verify(doc: dict, parsed, epsilon) -> tuple[bool, str]:  # noqa: C901 — the trusted exact re-check: every condition of the identity checked in one place
    """Exact re-check: rational polynomial arithmetic on both sides; every Gram matrix passes
    rational LDL^T; each positive block's factors index the inequalities the spec itself gives."""
    body = doc.get("body") or {}
    squares = body.get("squares", [])
    if not isinstance(squares, list) or not all(isinstance(v, str) for v in squares):
        return False, "sos: squares must be a list of variable names"
    polya = body.get("polya", 0)
    if not isinstance(polya, int) or not 0 <= polya <= 4:
        return False, "sos: polya must be an integer from 0 to 4"
    square = body.get("square")  # any (a, K) is sound: polynomial_forms checks the answer is a +- sqrt(K)
    parsed = in_recorded_order(parsed, body.get("variables"))
    try:
        level = body.get("level")
        if level is not None:  # the far side: objective >= a (min form) by an identity of its own
            if not isinstance(level, dict) or not square or "level" in level or "square" in level:
                return False, "sos: level must be an sos body without square or level, beside a square"
            ok, why = verify({"body": level}, at_level(parsed, square[0]), 0)
            if not ok:
                return False, f"sos: objective on the answer's side of {square[0]}: {why}"
        syms, target, eqs, ineqs = polynomial_forms(
            parsed,
            tuple(squares),
            polya,
            square,
            body.get("denominator"),
            level is not None,
            body.get("weights"),
            body.get("lift", False) is True,
        )
    except (SosFailure, KeyError, TypeError) as exc:
        return False, f"sos: {exc}"
    if body.get("variables") != [str(s) for s in syms]:
        return False, "sos: variables differ from the spec's"
    n = len(syms)
    total = {}
    blocks = body.get("positive", [])
    if not isinstance(blocks, list):
        return False, "sos: positive must be a list of blocks"
    for block in [{**body, "factors": []}, *blocks]:
        factors = block["factors"]
        if not isinstance(factors, list) or not all(isinstance(i, int) and 0 <= i < len(ineqs) for i in factors):
            return False, f"sos: factors {factors!r} do not index the {len(ineqs)} inequalities"
        form, why = _gram_form(syms, block, n)
        if form is None:
            return False, f"sos: {why}"
        for i in factors:
            form = poly_mul(form, ineqs[i])
        for m, c in form.items():
            total[m] = total.get(m, 0) + c
    if len(body["multipliers"]) != len(eqs):
        return False, "sos: one multiplier per equality constraint needed"
    for h, terms in zip(eqs, body["multipliers"]):
        lam = {}
        for m, c in terms:
            m = tuple(int(e) for e in m)
            if len(m) != n or min(m, default=0) < 0:
                return False, "sos: malformed multiplier"
            lam[m] = lam.get(m, 0) + Fraction(c)
        for m, c in poly_mul(lam, h).items():
            total[m] = total.get(m, 0) + c
    if {m: c for m, c in total.items() if c} != target:
        return False, "sos: the identity does not hold exactly"
    sides = ", ".join(str(len(b["gram"])) for b in [body, *blocks])
    times = f" times ({'1 + ' if body.get('lift') is True else ''}sum of the variables)^{polya}" if polya else ""
    what = f"{square[1]} - (objective - {square[0]})^2" if square else "objective - answer"
    if square and body.get("level") is not None:
        what = f"(objective - {square[0]})^2 - {square[1]}, and objective - {square[0]},"
    if body.get("weights") is not None:
        what = "a weighted sum of the pieces of the objective's Max, minus the answer,"
    return True, (
        f"sos: {what}{times} equals positive semidefinite Gram forms ({sides}) times products "
        "of the inequalities, plus multiples of the equality constraints (exact identity); exact witness attains it"
    )
