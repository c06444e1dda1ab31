"""The non-LLM baseline: the validator's numeric optimizer answers each structured problem.

It abstains on problems without a spec (companion benchmarks). Its answer is the best value found
at a point re-checked feasible the way the validator re-checks a witness (projected onto the
equalities and re-evaluated at 50 digits), written as a decimal in a box, so the grader's 4-decimal
rule decides whether it counts; it abstains when no point passes. A point only feasible to the
float search's tolerance is no answer: ineq-0161's scale-invariant constraint let the search run to
coordinates near 1e16, where a relative violation of 1e-8 gave the objective -9.1e31 (the minimum
is 0). Each point is also re-checked on the slice where its largest coordinate is 1: a problem whose
feasible set is a cone has the same points there at a moderate scale.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from extrembench.problems.problem import ExtremalSpec
from extrembench.verify.numeric.recheck import NUMERIC_TOL, mp_point, recheck_point
from extrembench.verify.numeric.search import (
    Effort,
    Model,
    TimeCap,
    at_limit,
    build_model,
    diverges,
    feasible_candidates,
    hp_value,
    multistart,
)

RECHECKED = 8  # best float optima re-checked at 50 digits: a work count


@dataclass(frozen=True)
class Found:
    value: float | None  # best value at a re-checked point; None: none passed (abstain)
    unbounded: bool


def _rechecked_values(model: Model, x: list) -> list[float]:
    """The objective at 50 digits at the float point and at it rescaled to a largest coordinate of
    1, each projected onto the equalities; only those re-checked feasible (in the domain's closure,
    every constraint within the re-check's relative tolerance)."""
    points = [[float(v) for v in x]]
    largest = max(abs(float(v)) for v in x)
    if largest > 0 and largest != 1:
        points.append([float(v) / largest for v in x])
    values = []
    for floats in points:
        if not all(np.isfinite(floats)):
            continue
        # as the validator re-checks a witness: snapped where it snaps (a coordinate a rounding
        # below a closed end, -1 - 1e-16 at ineq-0450's maximum, is put on it), and projected; every
        # mode's point that passes counts (a snap within 1e-4 can cost the value its 4th decimal)
        for mode in ("exact", "mixed", "numeric"):
            point = mp_point(model, [np.float64(v) for v in floats], mode)
            value = None if point is None else hp_value(model.parsed.objective, point)
            if value is not None and recheck_point(model, point, value, NUMERIC_TOL)[0] in ("ok", "boundary"):
                values.append(float(value))
    return values


def rechecked_extremum(problem: ExtremalSpec, *, seed: int, effort: Effort) -> Found:
    """The validator's seeded search, answered from re-checked points only: the best 50-digit value
    among the RECHECKED best float optima (and their rescalings); unbounded when the best one runs
    out along a path whose values keep decreasing (search.diverges), as the validator decides it.
    Raises TimeCap past effort.time_cap_s."""
    model, _ = build_model(problem)
    feasible = feasible_candidates(multistart(model, seed, effort, time.monotonic() + effort.time_cap_s))
    if not feasible:
        return Found(None, False)
    if at_limit(model, feasible[0]) and diverges(model, feasible[0])[0]:
        return Found(None, True)
    values = [v for c in feasible[:RECHECKED] for v in _rechecked_values(model, model.x(np.array(c.t)))]
    return Found(min(values, key=lambda v: model.sign * v) if values else None, False)


def abstaining_response() -> dict[str, Any]:
    """A solver's response before it answers: the shape of a chat response, abstaining."""
    return {
        "content": None,
        "reasoning_content": None,
        "finish_reason": "abstain",
        "prompt_tokens": None,
        "completion_tokens": None,
        "error": None,
    }


def fixed_decimals(value: float, digits: int) -> str:
    """Fixed decimals, as a person would write them: -5.55e-17 becomes 0.00000000."""
    shown = f"{value:.{digits}f}"
    return shown.lstrip("-") if float(shown) == 0 else shown


def answer(identity: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    response = abstaining_response()
    if identity["spec_json"]:
        spec = json.loads(identity["spec_json"])
        # The spec carries no answer (the solver must not see it); the search never reads the
        # claim, but the spec type needs a parseable one.
        problem = ExtremalSpec(
            sense=spec["sense"],
            variables=spec["variables"],
            constraints=tuple(spec["constraints"]),
            objective=spec["objective"],
            answer="0",
            statement="",
        )
        try:
            result = rechecked_extremum(problem, seed=identity["seed"], effort=Effort(starts=identity["starts"]))
        except TimeCap:  # the safety net: the solver abstains rather than answer from a cut search
            result = None
        if result is None:
            text = None
        elif result.unbounded:
            text = (
                "The objective is unbounded: \\boxed{\\infty}"
                if spec["sense"] == "max"
                else "The objective is unbounded: \\boxed{-\\infty}"
            )
        elif result.value is None:
            text = None
        else:
            value = fixed_decimals(result.value, identity["digits"])
            text = f"The {'minimum' if spec['sense'] == 'min' else 'maximum'} value is \\boxed{{{value}}}."
        response.update(content=text, finish_reason="stop" if text else "abstain")
    response["latency_s"] = round(time.monotonic() - started, 3)
    return response
