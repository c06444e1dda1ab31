"""Build the certificate of a confirmed answer: try `sos`, then `bound`, within count limits, and
fall back to `numeric`. Deterministic: same problem and witness give the same bytes."""

from __future__ import annotations

import logging
import math
from fractions import Fraction
from itertools import islice

from sympy.utilities.iterables import multiset_permutations

from extrembench.problems.problem import Problem, min_form_sign
from extrembench.verify.certificates import bound, numeric
from extrembench.verify.certificates.document import (
    EPSILON,
    FORMAT,
    VERIFIER_VERSION,
    canonical,
    embed_spec,
    epsilon_abs,
    spec_problem,
)
from extrembench.verify.certificates.interval import Program, Unsupported, compile_enclosure, point
from extrembench.verify.certificates.reduce import PlanError, apply_plan, choose_plan, needs_exact_level
from extrembench.verify.certificates.witness import find_witness, witness_text

log = logging.getLogger(__name__)


def target_interval(parsed, epsilon: Fraction):
    """answer - eps (min form) as an interval: the objective must be proven >= its upper end."""
    sign = min_form_sign(parsed.sense)
    return compile_enclosure(sign * parsed.answer, [])([]) - point(epsilon_abs(epsilon, parsed.answer))


def _document(
    problem: Problem, kind: str, witness: dict[str, str] | None, body: dict, size: int, epsilon: Fraction | None = None
) -> dict:
    doc = {
        "format": FORMAT,
        "verifier": VERIFIER_VERSION,
        "kind": kind,
        "spec": embed_spec(problem),
        "witness": witness,
        "size": size,
        "body": body,
    }
    if kind in ("bound", "sos"):
        doc["epsilon"] = str(epsilon) if kind == "bound" else "0"  # sos identities are exact
    return doc


def _try_bound(parsed, witness_point: dict | None, approx: dict, max_nodes: int):
    sign = min_form_sign(parsed.sense)
    plan = choose_plan(parsed, sign * parsed.answer, approx)
    if plan is None:
        return None, "no reduction plan (an equality constraint could not be solved for one variable)"
    try:
        branches = apply_plan(parsed, sign * parsed.answer, plan)
    except PlanError as exc:
        return None, f"plan: {exc}"
    epsilon = Fraction(0) if needs_exact_level(parsed, plan) else EPSILON
    target = target_interval(parsed, epsilon)
    trees = []
    copies = _copies(parsed, approx)
    for branch in branches:
        ref = _reference(branch, witness_point, approx, plan)
        others = tuple(_reference(branch, None, c, plan) for c in copies)
        try:
            trees.append(bound.search(branch, target, ref, max_nodes=max_nodes, others=others))
        except (bound.BoundFailure, Unsupported) as exc:
            return None, f"branch-and-bound: {exc}"
    for extra in branches[0].extra_points if branches else ():
        value = compile_enclosure(sign * parsed.objective, list(extra))([point(0)] * len(extra))
        if not value.a >= target.b:
            return None, "the origin (outside the normalised simplex) is below the answer"
    return {"plan": plan, "trees": trees, "epsilon": epsilon}, ""


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


def _reference(branch, witness_point, approx, plan) -> list[Fraction] | None:
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


MAX_SUBSTITUTED = 4  # a work bound: 5-10 cos variables (Putnam 2018 A3 family) spent 25-60 s failing the box budget


def certify(
    problem: Problem, witness: dict[str, float] | None, reason: str = "", max_nodes: int = bound.MAX_NODES
) -> dict:
    """The certificate (a dict; `canonical` gives its bytes) of a confirmed problem. Never raises:
    a failure inside a proof attempt leaves the numeric certificate, with the error named."""
    try:
        return _certify(problem, witness, reason, max_nodes)
    except Exception as exc:  # a certifier bug must not stop validation; it is reported, not hidden
        body = numeric.build(None, witness, reason)
        body["not_certified"] = f"the certifier failed: {type(exc).__name__}: {exc}"
        return _document(problem, "numeric", None, body, 1)


def _certify(problem: Problem, witness, reason: str, max_nodes: int) -> dict:
    parsed = spec_problem(embed_spec(problem))
    approx = {k: float(v) for k, v in (witness or {}).items()}
    exact = None
    notes = []
    if approx:
        exact = find_witness(parsed, approx)
    if exact is not None:
        from extrembench.verify.certificates import sos, symmetry, trig

        # proofs run on the polynomial problem of a cos/sin substitution where one applies
        steps, proof, extra = trig.route(parsed)
        proof_approx = {k: getattr(math, steps[k][0])(v) if k in steps else v for k, v in approx.items()}
        body, why = sos.attempt(proof, exact)
        if body is not None:
            return _document(problem, "sos", witness_text(exact), {**body, **extra}, sos.size(body))
        notes.append(f"sos: {why}")
        if steps and len(steps) > MAX_SUBSTITUTED:
            body, why = (
                None,
                (
                    f"{len(steps)} substituted variables (the box search after a cos/sin substitution is "
                    f"tried up to {MAX_SUBSTITUTED}: past that {max_nodes} boxes did not close)"
                ),
            )
        else:
            body, why = _try_bound(proof, exact, proof_approx, max_nodes)
        if body is not None:
            epsilon = body.pop("epsilon")
            return _document(
                problem, "bound", witness_text(exact), {**body, **extra}, sum(len(t) for t in body["trees"]), epsilon
            )
        notes.append(f"bound: {why}")
        # after bound, so a problem bound already proves keeps its certificate
        body, why = sos.attempt(parsed, exact, squared=True)
        if body is not None:
            return _document(problem, "sos", witness_text(exact), body, sos.size(body))
        notes.append(f"sos, squared: {why}")
        # last: sorted copies of a symmetric group (Max/Min become its ends, Abs differences fixed signs)
        chains = symmetry.groups(proof)
        for squared in (False, True) if chains else ():
            body, why = sos.attempt(
                symmetry.ordered(proof, chains), symmetry.sorted_witness(exact, chains), squared=squared
            )
            if body is not None:
                return _document(
                    problem, "sos", witness_text(exact), {**body, **extra, "ordered": chains}, sos.size(body)
                )
            notes.append(f"sos, ordered{', squared' if squared else ''}: {why}")
    else:
        notes.append("no exact witness found")
    body = numeric.build(exact, approx, reason)
    body["not_certified"] = "; ".join(notes)
    log.info("%s: numeric certificate only (%s)", problem.id, body["not_certified"])
    return _document(problem, "numeric", witness_text(exact) if exact else None, body, 1)


def certificate_json(certificate: dict | None) -> str | None:
    return canonical(certificate) if certificate is not None else None
