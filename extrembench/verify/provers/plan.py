"""The prover half of reduction plans: choosing which equality eliminates which variable (from the
witness). reduce.apply_plan replays a plan for the checker; nothing here is needed to."""

from __future__ import annotations

import sympy

from extrembench.problems.problem import ParsedProblem
from extrembench.verify.checker.reduce import (
    PlanError,
    apply_plan,
    base_problem,
    homogeneity_degree,
)


def choose_plan(
    parsed: ParsedProblem, answer_signed: sympy.Expr, witness: dict, wide: bool = False
) -> list[dict] | None:
    """A plan for this problem, or None: normalise a constraint-free homogeneous problem, then
    eliminate the equalities one at a time: the first (in the order given) that solves for a
    variable, through the variable largest at the witness (so the optimum stays away from the
    slanted face the elimination creates); a later equality serves when a cubic listed first cannot.
    `wide`: normalise also with homogeneous inequality constraints, and a degree-0 objective on
    nonnegative variables (verifier 10); without it, only where verifier 9 did, so the plans of the
    problems it proved stay as they were."""
    symbols, domains, equalities, nonneg, objective = base_problem(parsed)
    plan: list[dict] = []
    narrow = not nonneg and (
        all(domains[s].lo_open for s in symbols) or homogeneity_degree(objective, symbols) not in (None, 0)
    )
    if (
        not equalities
        and len(symbols) > 1
        and (wide or narrow)
        and _plan_ok(parsed, answer_signed, [{"op": "normalize"}])
    ):
        plan.append({"op": "normalize"})
        equalities = [sympy.Add(*symbols) - 1]
    # a tie goes to the canonical position (problem.canonical_problem), never the name: renamed
    # variables must pick the same elimination (ineq-0463: three values of size 1)
    position = {s.name: i for i, s in enumerate(symbols)}
    names = sorted(position, key=lambda n: (-abs(float(witness.get(n, 0))), position[n]))
    for left in range(len(equalities), 0, -1):
        tried = (
            plan + [{"op": "eliminate", "var": n, "constraint": k}]
            for k in range(left)
            for n in names
            if all(n != step.get("var") for step in plan)
        )
        plan = next((p for p in tried if _plan_ok(parsed, answer_signed, p)), None)
        if plan is None:
            return None
    return plan


def _plan_ok(parsed, answer_signed, plan) -> bool:
    """The plan's steps all hold (equalities may remain for later steps)."""
    try:
        apply_plan(parsed, answer_signed, plan)
    except PlanError as exc:
        return "left after" in str(exc)
    return True
