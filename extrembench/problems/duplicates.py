"""Near-duplicate problems: the same objective and constraints after renaming, permuting or scaling
variables or adding constants, or the same inequality under another normalisation, or the same
mathematics under a substitution, a monotone reformulation, another n or a strengthening (issue 36).

Tests comparing values at shared seeded points, so no symbolic identity has to be found:

- **same function** (`same-function`): after scaling each variable so that a single linear
  equality constraint becomes u1 + ... + un = 1 (or a domain [0, h] becomes [0, 1]), the
  constraints agree up to a constant factor and the objectives agree up to an affine map
  α·f + β (α < 0: the same function asked in the opposite sense) at the same feasible points, for
  some permutation of the variables. Feasible points: fixed random points of the domain, moved
  along their ray onto a single equality constraint (so a uniform rescaling such as abc = 1 vs
  abc = 8 needs no normalisation), kept when every inequality constraint holds.
- **same inequality** (`same-inequality`): for polynomial problems over positive / nonnegative
  variables with no constraint or one homogeneous equality constraint g = c, the underlying
  inequality s·(objective − answer) ≥ 0 (s = −1 for max) is homogenised with g/c; two problems
  whose homogeneous forms agree up to a positive factor and a permutation state one inequality
  (Schur's a³+b³+c³+3abc ≥ Σab(a+b) written with a + b + c = 1, with abc = 1, or not normalised).
- **function of** (`function-of`): as same function, but one objective is a polynomial of degree
  2 or 3 of the other at the same feasible points: on a + b + c = 0, a² + b² + c² = 6 each
  a² + ab + b² is 3, so Thailand 2018 Problem 4's ratio is (abc)²/27, the same problem as abc.
- **same family** (`same-family`): both files declare one `family` (one source problem);
  **same source** (`same-source`): one family extends the other (`apmo-2004-p5-strengthened`).
- **n-instance** (`n-instance`): problems with different numbers of variables whose objective and
  constraints have the same *shape*: each expanded into its terms, each term renamed canonically
  (its own variables renamed v1, v2, … in the problem's order; a Max, Min, sum or product of bare
  variables is one n-free node), additive constants dropped, a numeric factor shared by every term
  of one width reduced to its sign (½Σ(x_i − x_j)² is Σx² − Σx_i x_j for n = 3 and 2Σx² − Σx_i x_j
  for n = 5), the terms taken as a set, the domains by kind. IMO 1999 Problem 2 for n = 3 and
  n = 8 (Σ x_i x_j (x_i² + x_j²) on Σ x_i = 1), or USAMO 1999 Problem 4 for n = 5 and n = 10 (max
  of a_i under Σ a_i ≥ n, Σ a_i² ≥ n²), are one. A looser shape, the same number of constraints
  with the same terms whatever their direction (=, ≤, ≥) and whatever the domains, is an
  n-instance too: the largest of n numbers given their sum and a bound or value of their sum of
  squares.

Every test is also run with one of the two problems substituted (`_views`): x_i = u_i² when
square roots of nonnegative variables appear (√x + √y + √z on x + y + z = 3 is a + b + c on the
sphere), w_i = asin(x_i) when the variables range inside [−π/2, π/2] and the problem is a function
of their sines (Balkan 1985 Problem 2 is USAMO 1978 Problem 1).

Limits (each makes the detector miss, never flag wrongly): permutations are tried exhaustively up
to 6 variables, beyond that only cyclic shifts and the reversal; on two or more equality
constraints the feasible points are found by Gauss-Newton steps for every permutation up to 4
variables and for the cyclic shifts and reversals beyond (others are compared literally), and not at all when an
equality is not differentiable (Abs, Max); per-variable scalings are undone only through a linear
equality constraint or interval domains. An n-instance whose terms each carry more than
MAX_TERM_VARIABLES variables, or whose expansion exceeds MAX_SHAPE_TERMS terms, has no shape.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy

from extrembench.problems.problem import Problem, min_form_sign, parse_domain, parse_problem

POINTS = 24
RTOL = 1e-7
MAX_EXHAUSTIVE = 6
MAX_TERM_VARIABLES = 4  # terms over more variables (not an n-free node) leave the problem without a shape
MAX_SHAPE_OPS = 600  # larger expressions are not expanded for a shape (memory bound)
MAX_SHAPE_TERMS = 400
_ALL = sympy.Symbol("all")  # stands for "every variable" in an n-free node


@dataclass(frozen=True)
class Duplicate:
    first: str
    second: str
    kind: str  # same-function | same-inequality | same-family | n-instance
    detail: str

    def __str__(self) -> str:
        return f"{self.first} ~ {self.second} ({self.kind}: {self.detail})"


@dataclass
class _Prepared:
    id: str
    n: int
    domains: tuple[str, ...]  # per variable, after scaling
    # per permutation: (permutation, domains, constraint prints, standardised values, raw values)
    function: list[tuple[tuple[int, ...], tuple[str, ...], list, np.ndarray, np.ndarray]] | None
    inequality: list[np.ndarray] | None  # per permutation
    family: str | None = None
    shape: tuple | None = None  # n-free: see _shape
    loose_shape: tuple | None = None  # the shape up to constraint directions and domains
    views: list[_Prepared] = dataclasses.field(default_factory=list)  # substituted forms: see _views


def _permutations(n: int) -> list[tuple[int, ...]]:
    if n <= MAX_EXHAUSTIVE:
        return list(itertools.permutations(range(n)))
    shifts = [tuple((i + k) % n for i in range(n)) for k in range(n)]
    return shifts + [tuple(reversed(s)) for s in shifts]


def _equality_system(symbols, equalities) -> tuple[list, list]:
    """Two or more equalities as functions and their Jacobian, for _project_many; none when an
    equality is not differentiable everywhere (Abs, Max: their derivatives do not print)."""
    if len(equalities) < 2 or any(g.has(sympy.Abs, sympy.Max, sympy.Min, sympy.sign) for g in equalities):
        return [], []
    funcs = [sympy.lambdify(symbols, g, modules="numpy") for g in equalities]
    jacobian = [[sympy.lambdify(symbols, sympy.diff(g, x), modules="numpy") for x in symbols] for g in equalities]
    return funcs, jacobian


def _shifts_and_reversals(n: int) -> list[tuple[int, ...]]:
    shifts = [tuple((i + k) % n for i in range(n)) for k in range(n)]
    return shifts + [tuple(reversed(s)) for s in shifts]


def _project_many(equalities, jacobian, points: np.ndarray, steps: int = 60) -> np.ndarray:
    """Each point moved onto the intersection of the equalities by Gauss-Newton steps (the least
    change of the point that zeroes the linearised constraints), all points at once; NaN rows
    where it does not converge. A fixed number of steps: the same points on every machine."""
    x = points.copy()
    count, n = points.shape
    for _ in range(steps):
        residual = np.stack([_call(g, x) for g in equalities], axis=1)  # (points, m)
        jac = np.stack(
            [np.stack([_call(d, x) * np.ones(count) for d in row], axis=1) for row in jacobian], axis=1
        )  # (points, m, n)
        bad = ~(np.all(np.isfinite(residual), axis=1) & np.all(np.isfinite(jac), axis=(1, 2)))
        residual[bad], jac[bad] = 0.0, 0.0
        with np.errstate(all="ignore"):
            step = np.einsum("pnm,pm->pn", np.linalg.pinv(jac), residual)
        x = x - step
        x[bad] = np.nan
    residual = np.stack([_call(g, x) for g in equalities], axis=1)
    converged = np.all(np.abs(residual) <= 1e-9 * (1 + np.abs(x).max(axis=1, keepdims=True)), axis=1)
    x[~converged] = np.nan
    return x


def _inside(points: np.ndarray, domains: Sequence[str]) -> np.ndarray:
    """Rows whose every coordinate lies in its (scaled) domain."""
    inside = np.ones(len(points), dtype=bool)
    with np.errstate(invalid="ignore"):
        for column, text in zip(points.T, domains):
            if text in ("positive", "nonnegative", "real"):
                inside &= {"positive": column > 0, "nonnegative": column >= 0, "real": np.isfinite(column)}[text]
                continue
            d = parse_domain(text)
            if d.lo is not None:
                inside &= column > float(d.lo) if d.lo_open else column >= float(d.lo)
            if d.hi is not None:
                inside &= column < float(d.hi) if d.hi_open else column <= float(d.hi)
    return inside


def _views(problem: Problem, parsed) -> list[Problem]:
    """The problem after a substitution that removes a disguise, each named by its id:

    - x_i = u_i^2 when the variables are nonnegative and a square root of one appears
      (sqrt(x) + sqrt(y) + sqrt(z) on x + y + z = 3 is a + b + c on a^2 + b^2 + c^2 = 3);
    - w_i = asin(x_i) when every variable ranges inside [-pi/2, pi/2] and the problem is a
      function of the sines (cos 2w = 1 - 2 sin^2 w), so x_i ranges over [sin lo, sin hi].

    A substitution that leaves a square root or a trigonometric function of a variable behind
    gives no view. Monomial scalings (x = 3u^2) need none: the comparison undoes them."""
    symbols = parsed.symbols
    expressions = [parsed.objective, *(lhs - rhs for lhs, _, rhs in parsed.constraints)]
    views = []
    kinds = {text.strip() for text in problem.variables.values()}
    has_root = any(
        isinstance(a, sympy.Pow) and a.exp == sympy.Rational(1, 2) and a.base in symbols
        for e in expressions
        for a in e.atoms(sympy.Pow)
    )
    if has_root and kinds <= {"positive", "nonnegative"}:
        signed = {s: sympy.Symbol(str(s), positive=True) for s in symbols}
        plain = {v: s for s, v in signed.items()}
        square = {s: signed[s] ** 2 for s in symbols}
        views.append(_substituted(problem, parsed, square, plain, dict(problem.variables), "substituting x = u^2"))
    domains = [parsed.domains[s] for s in symbols]
    half = sympy.pi / 2
    trig = any(e.has(sympy.sin, sympy.cos) for e in expressions)
    if trig and all(d.lo is not None and d.hi is not None and d.lo >= -half and d.hi <= half for d in domains):
        variables = {
            str(s): f"{'(' if d.lo_open else '['}{sympy.sin(d.lo)}, {sympy.sin(d.hi)}{')' if d.hi_open else ']'}"
            for s, d in zip(symbols, domains)
        }
        sines = {s: sympy.asin(s) for s in symbols}
        views.append(_substituted(problem, parsed, sines, {}, variables, "substituting w = asin(x)"))
    return [view for view in views if view is not None]


def _substituted(problem, parsed, substitution, back, variables, name) -> Problem | None:
    def rewrite(expr):
        new = sympy.expand_trig(expr.xreplace(substitution)).xreplace(back)
        return (
            None
            if new.has(sympy.asin, sympy.sin, sympy.cos)
            or any(
                isinstance(a, sympy.Pow) and not a.exp.is_Integer and a.base.free_symbols for a in new.atoms(sympy.Pow)
            )
            else new
        )

    objective = rewrite(parsed.objective)
    constraints = [(rewrite(lhs), op, rewrite(rhs)) for lhs, op, rhs in parsed.constraints]
    if objective is None or any(lhs is None or rhs is None for lhs, _, rhs in constraints):
        return None
    return dataclasses.replace(
        problem,
        id=name,
        family=None,
        variables=variables,
        objective=sympy.sstr(objective),
        constraints=tuple(f"{sympy.sstr(lhs)} {op} {sympy.sstr(rhs)}" for lhs, op, rhs in constraints),
    )


def _domain_class(problem: Problem, name: str, scale: sympy.Expr) -> str | None:
    text = problem.variables[name].strip()
    if text in ("positive", "nonnegative", "real"):
        return text if text == "real" or scale > 0 else None
    d = parse_domain(text)
    lo = None if d.lo is None else d.lo / scale
    hi = None if d.hi is None else d.hi / scale
    if scale < 0:
        lo, hi = hi, lo
    return (
        f"{'(' if d.lo_open else '['}{sympy.nsimplify(lo) if lo is not None else '-inf'}, "
        f"{sympy.nsimplify(hi) if hi is not None else 'inf'}{')' if d.hi_open else ']'}"
    )


def _scales(problem: Problem, parsed) -> dict[sympy.Symbol, sympy.Expr]:
    """x_i = scale_i * u_i: a single linear equality Σ w_i x_i = c becomes Σ u_i = 1; without one,
    domains [0, h] become [0, 1]; otherwise no scaling."""
    symbols = parsed.symbols
    equalities = [lhs - rhs for lhs, op, rhs in parsed.constraints if op == "="]
    if len(equalities) == 1:
        poly = equalities[0]
        if poly.is_polynomial(*symbols) and sympy.Poly(poly, *symbols).total_degree() == 1:
            constant = -poly.subs({s: 0 for s in symbols})
            weights = [poly.coeff(s) for s in symbols]
            if constant != 0 and all(w != 0 and w.is_number for w in weights):
                return {s: constant / w for s, w in zip(symbols, weights)}
    scales = {}
    for s in symbols:
        d = parsed.domains[s]
        scales[s] = d.hi if d.lo == 0 and d.hi is not None and d.hi > 0 else sympy.Integer(1)
    return scales


def _raw_points(domains: Sequence[str], rng: np.random.Generator) -> np.ndarray:
    """POINTS points (rows), each coordinate drawn by its (scaled) domain's kind."""
    columns = []
    for text in domains:
        if text in ("positive", "nonnegative"):
            columns.append(np.exp(rng.normal(0, 0.7, POINTS)))
        elif text == "real":
            columns.append(rng.normal(0, 1.5, POINTS))
        else:
            d = parse_domain(text)
            lo = float(d.lo) if d.lo is not None else (float(d.hi) - 3 if d.hi is not None else -3.0)
            hi = float(d.hi) if d.hi is not None else lo + 3
            columns.append(lo + (hi - lo) * rng.uniform(0.05, 0.95, POINTS))
    return np.array(columns).T


def _call(func, points: np.ndarray) -> np.ndarray:
    """func at each row of `points` (any leading shape; the last axis is the variables), NaN where
    undefined or not real."""
    shape = points.shape[:-1]
    with np.errstate(all="ignore"):
        try:
            values = func(*np.moveaxis(points, -1, 0))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return np.full(shape, np.nan)
    values = np.asarray(values, dtype=complex) * np.ones(shape)
    return np.where(np.abs(values.imag) < 1e-12, values.real, np.nan)


def _project(equality, points: np.ndarray) -> np.ndarray:
    """Each point moved along its ray to the first λ > 0 with equality(λ·x) = 0 (NaN when none):
    a sign-change scan over a fixed λ grid, then bisection, all points at once."""
    lambdas = np.logspace(-4, 4, 321)
    values = _call(equality, lambdas[None, :, None] * points[:, None, :])  # (points, lambdas)
    finite = np.isfinite(values[:, :-1]) & np.isfinite(values[:, 1:])
    change = finite & (np.sign(values[:, :-1]) * np.sign(values[:, 1:]) <= 0)
    found = change.any(axis=1)
    first = np.argmax(change, axis=1)
    lo, hi = lambdas[first], lambdas[np.minimum(first + 1, len(lambdas) - 1)]
    f_lo = values[np.arange(len(points)), first]
    for _ in range(80):
        mid = (lo + hi) / 2
        f_mid = _call(equality, mid[:, None] * points)
        same = np.sign(f_mid) == np.sign(f_lo)
        lo, f_lo = np.where(same, mid, lo), np.where(same, f_mid, f_lo)
        hi = np.where(same, hi, mid)
    projected = ((lo + hi) / 2)[:, None] * points
    projected[~found] = np.nan
    return projected


def _unit(vector: np.ndarray, signed: bool) -> np.ndarray | None:
    """The vector up to a positive factor (signed) or any nonzero factor (not signed)."""
    scale = np.max(np.abs(vector))
    if not np.isfinite(scale) or scale == 0:
        return None
    unit = vector / scale
    if not signed:
        first = unit[np.nonzero(np.abs(unit) > 1e-9)[0][0]]
        unit = unit * np.sign(first)
    return unit


def _standardised(values: np.ndarray) -> np.ndarray | None:
    """Values up to an affine map α·v + β with α of either sign."""
    centred = values - values.mean()
    return _unit(centred, signed=False) if np.std(centred) > 1e-12 * (1 + np.abs(values).max()) else None


def _constraint_prints(constraint_funcs, points: np.ndarray, n: int, *, single_equality: bool) -> list:
    """Constraint fingerprints at the unprojected points: each up to a constant factor."""
    prints = []
    for func, op in constraint_funcs:
        values = _call(func, points)
        if op in ("<=", "<"):
            values, op = -values, {"<=": ">=", "<": ">"}[op]
        elif op == "=" and single_equality:
            # g = c and g = c' are one constraint up to a rescaling, which the projection
            # along rays undoes: the level is compared through the objectives' values
            at_zero = _call(func, np.zeros((1, n)))[0]
            values = values - at_zero if np.isfinite(at_zero) else values
        unit = _unit(values, signed=op != "=")
        prints.append((op, None if unit is None else np.round(unit, 9)))
    return prints


def _feasible_points(
    points: np.ndarray, perm, perm_domains, constraint_funcs, equality_funcs, jacobian, n: int, *, single_equality: bool
) -> np.ndarray:
    """The points moved onto the equality constraints, where that works (see the comment)."""
    # onto a single equality along rays; onto two or more by Gauss-Newton steps (the points
    # stay where they are when too few converge: then compared literally, as before)
    feasible = points
    if single_equality:
        feasible = _project(next(func for func, op in constraint_funcs if op == "="), points)
    elif jacobian and (len(_permutations(n)) <= 24 or perm in _shifts_and_reversals(n)):
        projected = _project_many(equality_funcs, jacobian, points)
        projected[~_inside(projected, perm_domains)] = np.nan
        if np.all(np.isfinite(projected), axis=1).sum() >= 6:
            feasible = projected
    return feasible


def _kept_values(feasible: np.ndarray, constraint_funcs, function_of) -> tuple[np.ndarray, np.ndarray]:
    """(objective values, mask of the points the objectives are compared at)."""
    finite = np.all(np.isfinite(feasible), axis=1)
    keep = finite.copy()
    for func, op in constraint_funcs:
        if op != "=":
            values = _call(func, feasible)
            keep &= {">=": values >= -1e-12, "<=": values <= 1e-12, ">": values > 0, "<": values < 0}[op]
    values = _call(function_of, feasible)
    keep &= np.isfinite(values)
    if keep.sum() < 6:
        # Inequalities (an ordering of 6 variables holds at 1/720 of the points) leave too few
        # points: compare the objectives on the whole sample instead. The constraints are
        # still compared by their own fingerprints; agreeing everywhere is the stronger test.
        keep = finite & np.isfinite(values)
    return values, keep


def _prepare(problem: Problem, seed: int, with_views: bool = True) -> _Prepared:
    parsed = parse_problem(problem)
    symbols = parsed.symbols
    n = len(symbols)
    scales = _scales(problem, parsed)
    scaled = {s: scales[s] * s for s in symbols}
    domains = tuple(_domain_class(problem, str(s), scales[s]) for s in symbols)
    objective = parsed.objective.xreplace(scaled)
    constraints = [((lhs - rhs).xreplace(scaled), op) for lhs, op, rhs in parsed.constraints]
    prepared = _Prepared(problem.id, n, domains, None, None, problem.family, *_shape(problem, parsed))
    if with_views:
        prepared.views = [_prepare(view, seed, with_views=False) for view in _views(problem, parsed)]
    if None in domains:
        return prepared
    rng = np.random.default_rng([seed, n])
    raw = _raw_points(domains, rng)  # the same for every problem with these domains
    equalities = [g for g, op in constraints if op == "="]
    function_of = sympy.lambdify(symbols, objective, modules="numpy")
    constraint_funcs = [(sympy.lambdify(symbols, g, modules="numpy"), op) for g, op in constraints]
    equality_funcs, jacobian = _equality_system(symbols, equalities)

    single = len(equalities) == 1
    function = []
    for perm in _permutations(n):
        points = raw[:, perm]
        perm_domains = tuple(domains[i] for i in perm)
        prints = _constraint_prints(constraint_funcs, points, n, single_equality=single)
        feasible = _feasible_points(
            points, perm, perm_domains, constraint_funcs, equality_funcs, jacobian, n, single_equality=single
        )
        values, keep = _kept_values(feasible, constraint_funcs, function_of)
        if keep.sum() < 6:
            continue
        standard = _standardised(values[keep])
        if standard is not None:
            placed = np.full(len(values), np.nan)
            placed[keep] = standard
            kept = np.where(keep, values, np.nan)
            function.append((perm, perm_domains, prints, placed, kept))
    prepared.function = function or None
    prepared.inequality = _inequality_prints(problem, parsed, objective, constraints, domains, symbols, seed)
    return prepared


def _inequality_prints(problem, parsed, objective, constraints, domains, symbols, seed) -> list[np.ndarray] | None:
    """The homogenised inequality form at shared simplex points, per permutation (see module doc)."""
    if any(d not in ("positive", "nonnegative") for d in domains) or any(op != "=" for _, op in constraints):
        return None
    if len(constraints) > 1:
        return None
    sign = min_form_sign(problem.sense)
    form = sign * (objective - parsed.answer)
    if not form.is_polynomial(*symbols):
        return None
    poly = sympy.Poly(sympy.expand(form), *symbols)
    degree = poly.total_degree()
    components: dict[int, sympy.Expr] = {}
    for monomial, coefficient in poly.terms():
        components[sum(monomial)] = components.get(sum(monomial), 0) + coefficient * sympy.prod(
            s**e for s, e in zip(symbols, monomial)
        )
    if constraints:
        g = constraints[0][0]
        constant = -g.subs({s: 0 for s in symbols})
        g_part = g + constant
        if constant == 0 or not g_part.is_polynomial(*symbols):
            return None
        g_poly = sympy.Poly(g_part, *symbols)
        k = g_poly.total_degree()
        if not g_poly.is_homogeneous or k == 0:
            return None
        homogeneous = sum(c * (g_part / constant) ** sympy.Rational(degree - j, k) for j, c in components.items())
    else:
        if len(components) != 1:
            return None  # not homogeneous and nothing to homogenise with
        homogeneous = form
    func = sympy.lambdify(symbols, homogeneous, modules="numpy")
    rng = np.random.default_rng([seed, len(symbols), 7])
    raw = rng.dirichlet(np.ones(len(symbols)), POINTS)
    prints = []
    for perm in _permutations(len(symbols)):
        values = _call(func, raw[:, perm])
        unit = _unit(values, signed=True) if np.all(np.isfinite(values)) else None
        if unit is not None:
            prints.append(unit)
    return prints or None


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    both = np.isfinite(a) & np.isfinite(b)
    return bool(
        both.sum() >= 6
        and np.array_equal(np.isfinite(a), np.isfinite(b))
        and np.allclose(a[both], b[both], rtol=RTOL, atol=RTOL)
    )


def _same_constraints(first, second) -> bool:
    if len(first) != len(second):
        return False
    unused = list(second)
    for op, unit in first:
        match = next(
            (
                j
                for j, (other_op, other) in enumerate(unused)
                if other_op == op
                and (
                    (unit is None and other is None) or (unit is not None and other is not None and _close(unit, other))
                )
            ),
            None,
        )
        if match is None:
            return False
        unused.pop(match)
    return True


def _n_free(expr: sympy.Expr, symbols: frozenset) -> sympy.Expr:
    """Max, Min, sums and products of bare variables (3 or more) become one node over `all`, so
    Max(x1, ..., xn) or x1·x2·…·xn is the same for every n."""
    if not expr.args:
        return expr
    args = [_n_free(arg, symbols) for arg in expr.args]
    if isinstance(expr, (sympy.Max, sympy.Min, sympy.Add, sympy.Mul)) and len(args) >= 3 and set(args) <= symbols:
        return sympy.Function(f"{type(expr).__name__}All")(_ALL)
    return expr.func(*args)


def _term_shape(term: sympy.Expr, order: dict) -> tuple[sympy.Expr, str] | None:
    """A term's numeric factor and the rest with its own variables renamed v1, v2, … in the
    problem's variable order, so x1·x3³ and x2·x5³ both read v1·v2³ (and x4²·x1, a cyclic
    wrap-around, reads v1·v2²); None past MAX_TERM_VARIABLES variables."""
    own = sorted(term.free_symbols - {_ALL}, key=lambda s: order.get(s, len(order)))
    if len(own) > MAX_TERM_VARIABLES:
        return None
    coefficient, rest = term.as_coeff_Mul()
    return coefficient, sympy.srepr(rest.xreplace({s: sympy.Symbol(f"v{i + 1}") for i, s in enumerate(own)}))


def _terms_shape(expr: sympy.Expr, order: dict) -> tuple[frozenset, bool] | None:
    """The set of term shapes of an expression, additive constants dropped, and whether every shape
    occurs equally often among the shapes of one width (number of variables): Σ_{i<j} (x_i³x_j +
    x_i x_j³) has as many terms of each orientation, the cyclic a³b + b³c + c³a (whose wrap-around
    term c³a reads v1·v2³) has not, and Σx_i² (n terms) beside Σx_i x_j (n(n - 1)/2) is still a
    symmetric sum. Where every term of one width carries the same numeric factor, only its sign is
    kept: its size changes with n in a symmetric sum (2(Σx)² - 5Σx_i x_j is 2Σx² - Σx_i x_j for
    n = 5, Σx² - Σx_i x_j for n = 3); unequal factors (2xy + 3yz + 4zx) are a weighting and stay."""
    if sympy.count_ops(expr) > MAX_SHAPE_OPS:
        return None
    symbols = frozenset(order)
    expanded = sympy.expand(expr)
    terms = sympy.Add.make_args(expanded)
    if len(terms) > MAX_SHAPE_TERMS:
        return None
    parts = []  # (width, coefficient, shape)
    for term in terms:
        if not term.free_symbols:
            continue
        found = _term_shape(_n_free(term, symbols), order)
        if found is None:
            return None
        parts.append((len(term.free_symbols), *found))
    factors: dict[int, set] = {}
    for width, coefficient, _ in parts:
        factors.setdefault(width, set()).add(coefficient)
    shapes = Counter()
    width_of = {}
    for width, coefficient, shape in parts:
        uniform = len(factors[width]) == 1 and coefficient.is_number
        key = ("-" if coefficient < 0 else "") + shape if uniform else f"{sympy.srepr(coefficient)}*{shape}"
        shapes[key] += 1
        width_of[key] = width
    balanced = all(len({shapes[s] for s in shapes if width_of[s] == k}) <= 1 for k in set(width_of.values()))
    return frozenset(shapes), balanced


def _domain_kind(text: str) -> str:
    text = text.strip()
    if text in ("positive", "nonnegative", "real"):
        return text
    d = parse_domain(text)
    return f"{'(' if d.lo_open else '['}{'-inf' if d.lo is None else 'lo'}, {'inf' if d.hi is None else 'hi'}{')' if d.hi_open else ']'}"


def _shape(problem: Problem, parsed) -> tuple[tuple | None, tuple | None]:
    """What an instance keeps when n or its constants change (see the module docstring), and the
    same up to each constraint's direction (= or <= or >=) and the variables' domains."""
    order = {s: i for i, s in enumerate(parsed.symbols)}
    objective = _terms_shape(parsed.objective, order)
    constraints, loose = set(), set()
    for lhs, op, rhs in parsed.constraints:
        shape = _terms_shape(lhs - rhs, order)
        if shape is None:
            return None, None
        # g <= c and -g >= -c are one constraint; the least of the two forms is kept
        flipped = _terms_shape(rhs - lhs, order)
        mirror = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "=": "="}[op]
        forms = [(tuple(sorted(shape[0])), shape[1]), (tuple(sorted(flipped[0])), flipped[1])]
        constraints.add(min((op, *forms[0]), (mirror, *forms[1])))
        loose.add(min(forms))
    if objective is None or not objective[0]:
        return None, None
    domains = frozenset(_domain_kind(text) for text in problem.variables.values())
    # the loose form keeps how many constraints there are: its direction-free terms alone would
    # make eight bounds x_i + x_{i+1} + x_{i+2} <= 1 one equality on the sum
    strict = (problem.sense, domains, objective, frozenset(constraints))
    return strict, (problem.sense, objective, frozenset(loose), len(parsed.constraints))


def _same_source(first: str | None, second: str | None) -> bool:
    """One family extends the other (`apmo-2004-p5` and `apmo-2004-p5-strengthened`): a variant of
    the same source problem."""
    if not first or not second or first == second:
        return False
    return first.startswith(second + "-") or second.startswith(first + "-")


def _function_of(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether `second` is a polynomial of degree 2 or 3 in `first` at the shared points (the
    affine case is `_close` on standardised values): (abc)^2/27 on the feasible set of abc."""
    both = np.isfinite(first) & np.isfinite(second)
    if both.sum() < 8 or not np.array_equal(np.isfinite(first), np.isfinite(second)):
        return False
    x, y = first[both], second[both]
    spread = np.ptp(x)
    if not np.isfinite(spread) or spread <= 1e-9 * (1 + np.abs(x).max()) or np.ptp(y) <= 1e-9 * (1 + np.abs(y).max()):
        return False
    x = (x - x.mean()) / spread
    for degree in (2, 3):
        fit = np.polynomial.polynomial.polyfit(x, y, degree)
        if np.allclose(np.polynomial.polynomial.polyval(x, fit), y, rtol=RTOL, atol=RTOL * np.abs(y).max()):
            return True
    return False


def _compare_forms(p: _Prepared, q: _Prepared) -> Duplicate | None:
    """p and q as they are (or one of them substituted: see _views)."""
    if p.n != q.n:
        if p.shape is not None and p.shape == q.shape:
            return Duplicate(p.id, q.id, "n-instance", "the same terms, constraints and domains for another n")
        if p.loose_shape is not None and p.loose_shape == q.loose_shape:
            return Duplicate(
                p.id, q.id, "n-instance", "the same terms for another n, up to the constraints' direction and domains"
            )
        return None
    if p.function and q.function:
        identity = [entry for entry in q.function if entry[0] == tuple(range(q.n))]
        q_domains, q_prints, q_values, q_raw = identity[0][1:] if identity else (None, None, None, None)
        for _, domains, prints, values, raw in p.function if identity else ():
            if domains != q_domains or not _same_constraints(prints, q_prints):
                continue
            if _close(values, q_values):
                return Duplicate(p.id, q.id, "same-function", "objectives agree up to α·f + β on the same feasible set")
            if _function_of(raw, q_raw) or _function_of(q_raw, raw):
                return Duplicate(
                    p.id, q.id, "function-of", "one objective is a polynomial of the other on the same feasible set"
                )
    if p.inequality and q.inequality and any(_close(mine, q.inequality[0]) for mine in p.inequality):
        return Duplicate(p.id, q.id, "same-inequality", "the homogenised inequalities agree up to a positive factor")
    return None


def _compare(p: _Prepared, q: _Prepared) -> Duplicate | None:
    if p.family is not None and p.family == q.family:
        return Duplicate(p.id, q.id, "same-family", f"both declare family {p.family}")
    if _same_source(p.family, q.family):
        return Duplicate(p.id, q.id, "same-source", f"families {p.family} and {q.family}: one source problem")
    for first, second, how in [(p, q, ""), *((v, q, v.id) for v in p.views), *((p, v, v.id) for v in q.views)]:
        found = _compare_forms(first, second)
        if found is not None:
            detail = f"{found.detail}, after {how}" if how else found.detail
            return Duplicate(p.id, q.id, found.kind, detail)
    return None


def find_duplicates(problems: Sequence[Problem], seed: int = 0) -> list[Duplicate]:
    """Every pair of near-duplicates among `problems` (each pair once, in input order)."""
    prepared = [_prepare(p, seed) for p in problems]
    pairs = (_compare(p, q) for p, q in itertools.combinations(prepared, 2))
    return [duplicate for duplicate in pairs if duplicate is not None]
