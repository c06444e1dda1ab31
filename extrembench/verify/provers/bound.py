"""The prover half of `bound`: the branch-and-bound search that writes a proof tree. Its leaf tests
are bound.py's, which the trusted checker replays; nothing here is needed to check a tree."""

from __future__ import annotations

from fractions import Fraction
from itertools import islice
from math import inf as _INF

from sympy.utilities.iterables import multiset_permutations

from extrembench.problems.problem import min_form_sign
from extrembench.verify.checker.bound import (
    MAX_DEPTH,
    BoundFailure,
    Box,
    Infeasible,
    box_face,
    box_finite,
    cleared_form,
    cleared_range,
    cleared_tail,
    cleared_tangent,
    compile_reduced,
    concave_along,
    convex_along,
    extra_point_holds,
    face_ok,
    free_axes,
    gradient_at,
    infeasible_at,
    ivbox,
    ivpoint,
    lagrangian,
    mean_value,
    midpoint,
    point_inside,
    raw_of,
    run_value,
    safe_eval,
    tail_range,
    target_interval,
    value_at_least,
)
from extrembench.verify.checker.document import EPSILON
from extrembench.verify.checker.interval import Program, Unsupported, point
from extrembench.verify.checker.reduce import PlanError, Reduced, apply_plan, needs_exact_level
from extrembench.verify.provers.plan import choose_plan

MAX_NODES = 4500  # the largest proofs among the shipped problems: ineq-0535 4321 boxes, ineq-0242 (sorted) 3018


CONVEX_DEPTH = 10


MODERATE_WEIGHTS = (Fraction(1, 4), Fraction(2), Fraction(16))  # rho tried besides multiplier / (2 hbar)


MAX_CUTS = 2  # constraints cutting a box tried for a multiplier (ineq-0163 has 15)


def _multiplier(g: list, h: list, ref: list, box: Box) -> float:
    """The multiplier m making grad g - m grad h small where ref is inside the box (least squares),
    and kept, where ref is at an end of the box, on the side whose sign the box faces allow."""
    inner = [(a, b) for a, b, r, (lo, hi) in zip(g, h, ref, box) if lo < r < hi] or list(zip(g, h))
    norm = sum(b * b for _, b in inner)
    m = sum(a * b for a, b in inner) / norm if norm > 0 else 0.0
    low, high = -_INF, _INF
    for a, b, r, (lo, hi) in zip(g, h, ref, box):
        if b != 0 and r in (lo, hi) and lo != hi:
            # (a - m b) must be >= 0 at the low end, <= 0 at the high end
            if (r == lo) == (b > 0):
                high = min(high, a / b)
            else:
                low = max(low, a / b)
    return min(max(m, low), high) if low <= high else m


def _lagrangian_choice(comp, box, at, target, ref) -> str | None:
    """Try each constraint that cuts the box with the KKT multiplier at the anchor."""
    pts = ivpoint(comp, ref)
    if pts is None:
        return None
    tried = 0
    for j, (c, _) in enumerate(comp.cons):
        h = safe_eval(at, c)
        if h is None or not (h.a < 0 <= h.b) or tried == MAX_CUTS:
            continue
        tried += 1
        # the multiplier from the free directions only: a fixed one contributes nothing to the plane
        gh = [safe_eval(pts, comp.cons_grad[j][i]) for i in free_axes(box)]
        gg = [safe_eval(pts, comp.grad[i]) for i in free_axes(box)]
        if any(v is None for v in gh + gg):
            continue
        gh_f, gg_f = [float(v.mid) for v in gh], [float(v.mid) for v in gg]
        norm = sum(v * v for v in gh_f)
        if not 0 < norm < float("inf") or not all(abs(v) < float("inf") for v in gg_f):
            continue
        multiplier = _multiplier(gg_f, gh_f, [ref[i] for i in free_axes(box)], [box[i] for i in free_axes(box)])
        if not abs(multiplier) < float("inf") or not float(h.b) < float("inf"):
            continue
        if h.b <= 0:
            # H = 0 on every feasible point of the box: any multiplier, and any weight on H^2
            choices = [
                (Fraction(multiplier).limit_denominator(2**30), Fraction(4) ** k, Fraction(0)) for k in (0, 3, 6)
            ]
        elif multiplier > 0:
            hbar = Fraction(float(h.b)).limit_denominator(2**40)
            hbar = hbar if point(hbar).a >= h.b else Fraction(float(h.b)) * 2
            # half the multiplier on H^2 convexifies; none leaves a small Hessian for the Taylor term
            choices = [
                (
                    Fraction(multiplier / 2).limit_denominator(2**30),
                    Fraction(multiplier / (2 * float(hbar))).limit_denominator(2**30),
                    hbar,
                ),
                (Fraction(multiplier).limit_denominator(2**30), Fraction(0), hbar),
            ]
            # a fixed weight on H^2, just enough to convexify across the face, leaves the Hessian
            # entries small for the active-face split (a vertex where a box face meets this one)
            choices += [
                (Fraction(multiplier - rho * float(hbar)).limit_denominator(2**30), rho, hbar)
                for rho in MODERATE_WEIGHTS
                if rho * float(hbar) < multiplier
            ]
        else:
            continue
        for mu, rho, hbar in choices:
            if lagrangian(comp, box, at, target, j, mu, rho, hbar, ref):
                return f"l{j}:{mu}:{rho}:{hbar}:" + ",".join(str(v) for v in ref)
    return None


MAX_CORNERS = 16  # box corners tried as anchors of the cleared form (all of them up to 4 free variables)


def _cleared_choice(comp, box: Box, cut, raw, target, refs) -> str | None:
    """A leaf on the cleared form N - t*D where the box touches D = 0 (a 0/0 or 0 * inf corner):
    its enclosure, its tail expansion, or its Taylor form anchored at a box corner where D vanishes
    (the corner where the objective is singular) or at the witness."""
    cleared = cleared_form(comp, target)
    if cleared is None:
        return None
    d = run_value(cleared.program.run(cut.xs), cleared.d)
    if d is None or d.a != 0:
        return None  # D < 0 somewhere (not this test), or bounded away from 0 (the quotient's tests)
    if cleared_range(comp, cut, target):
        return "q:r"
    if cleared_tail(comp, cut, target):
        return "q:t"
    if raw is None or not box_finite(box):
        return None
    free = free_axes(box)
    corners = []
    for k in range(min(2 ** len(free), MAX_CORNERS)):
        corner = [lo for lo, _ in box]
        for bit, i in enumerate(free):
            if k >> bit & 1:
                corner[i] = box[i][1]
        at = ivpoint(comp, corner)
        value = None if at is None else run_value(cleared.program.run(at.xs), cleared.d)
        if value is not None and value.a <= 0:
            corners.append(corner)
    for anchor in dict.fromkeys(map(tuple, corners + ([_anchor(refs, box)] if refs else []))):
        if cleared_tangent(comp, box, raw, target, list(anchor)):
            return "q:c:" + ",".join(str(v) for v in anchor)
    return None


def _monotone_face(comp, box, at, grads=None) -> tuple[int, str] | None:
    grads = grads if grads is not None else gradient_at(comp, at)
    return next(
        ((i, side) for i, gi in enumerate(grads) for side in ("lo", "hi") if face_ok(comp, box, at, i, side, gi)), None
    )


FAR = Fraction(2**12)  # an unbounded side this far out is split only after the finite ones


FINE = Fraction(1, 2**8)  # ... have been narrowed to this width


def _split_choice(box: Box) -> tuple[int, Fraction] | None:
    best, best_width, far = None, Fraction(-1), None
    for i, (lo, hi) in enumerate(box):
        if lo is None or hi is None:
            if lo is None and hi is None:
                return i, Fraction(0)
            if hi is None:
                choice = i, max(2 * lo, Fraction(1)) if lo >= 0 else Fraction(0) if lo < -1 else lo + 2
            else:
                choice = i, min(2 * hi, Fraction(-1)) if hi <= 0 else Fraction(0) if hi > 1 else hi - 2
            # a tail that did not close far out usually needs the other variables narrowed first
            if abs(lo if hi is None else hi) < FAR:
                return choice
            far = far or choice
            continue
        width = hi - lo
        if width > best_width:
            best, best_width = i, width
    if far is not None and (best is None or best_width <= FINE):
        return far
    if best is None or best_width == 0:
        return None
    lo, hi = box[best]
    return best, (lo + hi) / 2


def _uphill(comp, box: Box, at) -> list:
    """For each constraint cutting or touching the box: the corner where it is largest when its
    gradient has a sign in each direction (a box whose only feasible point is a corner closes
    with an anchor there)."""
    out = []
    for (c, _), grads in zip(comp.cons, comp.cons_grad):
        h = safe_eval(at, c)
        if h is None or not h.a < 0 <= h.b:
            continue
        signs = [safe_eval(at, g) for g in grads]
        if all(g is not None and (g.a >= 0 or g.b <= 0) for g in signs):
            out.append([hi if g.a >= 0 else lo for g, (lo, hi) in zip(signs, box)])
    return out


def _anchor(refs: list, box: Box) -> list[Fraction]:
    """The reference point inside the box, else the one nearest to it clamped into it."""
    if not refs:
        return midpoint(box)
    ends = [(float(lo), float(hi)) for lo, hi in box]
    best = min(refs, key=lambda ref: sum(max(lo - float(r), 0.0, float(r) - hi) ** 2 for r, (lo, hi) in zip(ref, ends)))
    return [min(max(r, lo), hi) for r, (lo, hi) in zip(best, box)]


def _second_order(comp, box: Box, cut, raw, target, refs, depth: int) -> str | None:
    """A leaf by second-order tests: tangent planes of the objective or of a Lagrangian, then the
    cleared form where the box touches a zero of the objective's denominator."""
    # the Hessian test is the costly one: near the witness, or once boxes are small
    if raw is not None and box_finite(box) and (any(point_inside(r, box) for r in refs) or depth >= CONVEX_DEPTH):
        anchor = _anchor(refs, box)
        for candidate in dict.fromkeys(map(tuple, [anchor, midpoint(box)] + _uphill(comp, box, raw)[:1])):
            candidate = list(candidate)
            if convex_along(comp, box, raw, target, candidate):
                return "c:" + ",".join(str(v) for v in candidate)
            token = _lagrangian_choice(comp, box, raw, target, candidate)
            if token is not None:
                return token
    return _cleared_choice(comp, box, cut, raw, target, refs)


def search(
    reduced: Reduced, target, ref: list[Fraction] | None, max_nodes: int = MAX_NODES, others: tuple = ()
) -> list[str]:
    """The proof tree's tokens, or BoundFailure when it does not close within max_nodes. ref and
    `others` (more optima: symmetric copies of the witness) anchor the convexity tests."""
    comp = compile_reduced(reduced)
    refs = ([ref] if ref is not None else []) + list(others)
    tokens: list[str] = []
    box0 = [tuple(b) for b in reduced.bounds]

    def close(box, depth):
        if len(tokens) > max_nodes:
            raise BoundFailure(f"more than {max_nodes} boxes")
        try:
            xs = ivbox(comp, box)
        except Infeasible as exc:
            tokens.append(str(exc))
            return
        if (token := infeasible_at(comp, xs)) is not None:
            tokens.append(token)
            return
        if safe_eval(xs, comp.f) is None:
            tokens.append("u")
            return
        if value_at_least(comp, xs, target) or tail_range(comp, xs, target):
            tokens.append("r")
            return
        cut, xs = xs, raw_of(comp, xs)
        grads = gradient_at(comp, xs) if xs is not None else None
        if xs is not None and mean_value(comp, box, xs, target, grads):
            tokens.append("m")
            return
        face = _monotone_face(comp, box, xs, grads) if xs is not None else None
        if face is not None:
            tokens.append(f"f{face[0]}:{face[1]}")
            close(box_face(box, *face), depth + 1)
            return
        # only where a face is a domain face: two faces at inner split points double the work
        concave = (
            next(
                (
                    i
                    for i in range(comp.n)
                    if (box0[i][0] == box[i][0] or box0[i][1] == box[i][1]) and concave_along(comp, box, xs, i)
                ),
                None,
            )
            if xs is not None
            else None
        )
        if concave is not None:
            tokens.append(f"e{concave}")
            close(box_face(box, concave, "lo"), depth + 1)
            close(box_face(box, concave, "hi"), depth + 1)
            return
        token = _second_order(comp, box, cut, xs, target, refs, depth)
        if token is not None:
            tokens.append(token)
            return
        choice = _split_choice(box)
        if choice is None or depth >= MAX_DEPTH:
            raise BoundFailure(f"a box at depth {depth} cannot be closed: {box}")
        i, p = choice
        tokens.append(f"s{i}:{p}")
        close([(b[0], p) if k == i else b for k, b in enumerate(box)], depth + 1)
        close([(p, b[1]) if k == i else b for k, b in enumerate(box)], depth + 1)

    close(box0, 0)
    return tokens


def prove_bound(parsed, witness_point: dict | None, approx: dict, max_nodes: int):
    """(plan, proof trees and epsilon of a bound certificate, "") or (None, why not). The plan of
    verifier 9 first; where it fails, the wider normalisation (homogeneous inequalities, degree 0 on
    nonnegative variables), whose simplex has no origin corner for a degree-0 objective to take
    every value in."""
    sign = min_form_sign(parsed.sense)
    plan = choose_plan(parsed, sign * parsed.answer, approx)
    if plan is None:
        return None, "no reduction plan (an equality constraint could not be solved for one variable)"
    body, why = _prove_plan(parsed, plan, witness_point, approx, max_nodes)
    if body is not None:
        return body, ""
    wide = choose_plan(parsed, sign * parsed.answer, approx, wide=True)
    if wide is None or wide == plan:
        return None, why
    body, why_wide = _prove_plan(parsed, wide, witness_point, approx, max_nodes)
    if body is not None:
        return body, ""
    return None, f"{why}; normalised: {why_wide}"


def _prove_plan(parsed, plan: list, witness_point: dict | None, approx: dict, max_nodes: int):
    sign = min_form_sign(parsed.sense)
    try:
        branches = apply_plan(parsed, sign * parsed.answer, plan)
    except PlanError as exc:
        return None, f"plan: {exc}"
    epsilon = Fraction(0) if needs_exact_level(parsed, plan) else EPSILON
    target = target_interval(parsed, epsilon)
    trees = []
    copies = _copies(parsed, approx)
    for branch in branches:
        ref = reference_point(branch, witness_point, approx, plan)
        others = tuple(reference_point(branch, None, c, plan) for c in copies)
        try:
            trees.append(search(branch, target, ref, max_nodes=max_nodes, others=others))
        except (BoundFailure, Unsupported) as exc:
            return None, f"branch-and-bound: {exc}"
    for extra in branches[0].extra_points if branches else ():
        if not extra_point_holds(sign * parsed.objective, extra, target):
            return None, "the origin (outside the normalised simplex) is below the answer"
    # the box coordinates follow this order of the variables, which a Parquet row's spec does not keep
    return {"plan": plan, "trees": trees, "epsilon": epsilon, "variables": [str(s) for s in parsed.symbols]}, ""


MAX_COPIES = 200


def _copies(parsed, approx: dict) -> list[dict]:
    """Other optima: permutations of the witness's values, and their mean in every variable, where
    the objective takes the same value and the constraints and domains still hold (numerically:
    they only anchor convexity tests). A symmetric problem has a copy of its optimum at each
    permutation, and each needs a local proof."""
    if not approx:
        return []
    names = [s.name for s in parsed.symbols]
    program = Program(parsed.symbols)
    handles = [program.add(parsed.objective)] + [program.add(lhs - rhs) for lhs, _, rhs in parsed.constraints]

    def values(point_: list) -> list | None:
        run = program.run([point(Fraction(v)) for v in point_])
        try:
            return [float(run.value(h).mid) for h in handles]
        except (ArithmeticError, ValueError):
            return None

    base = values([approx[n] for n in names])
    if base is None:
        return []
    tol = 1e-7 * (1 + abs(base[0]))
    out = []
    mean = [sum(approx.values()) / len(names)] * len(names)
    for perm in [mean, *islice(multiset_permutations([approx[n] for n in names]), MAX_COPIES)]:
        here = values(perm)
        if here is None or abs(here[0] - base[0]) > tol or perm == [approx[n] for n in names]:
            continue
        ok = all(
            abs(v) <= tol if op == "=" else (v >= -tol if op in (">=", ">") else v <= tol)
            for v, (_, op, _) in zip(here[1:], parsed.constraints)
        )
        ok = ok and all(parsed.domains[s].contains(v) for s, v in zip(parsed.symbols, perm))
        if ok:
            out.append(dict(zip(names, perm)))
    return out


def reference_point(branch, witness_point, approx, plan) -> list[Fraction] | None:
    """The witness in the branch's coordinates, normalised when the plan normalises (a hint for
    the convexity test; any point works for soundness)."""
    values = {s.name: float(approx[s.name]) for s in branch.symbols} if approx else None
    if values is None:
        return None
    if any(step["op"] == "normalize" for step in plan):
        total = sum(float(v) for v in approx.values())
        if total > 0:
            values = {k: v / total for k, v in values.items()}
    return [Fraction(v).limit_denominator(10**12) for v in values.values()]
