"""The non-LLM baseline: the validator's numeric optimizer answers each structured problem.

It abstains on problems without a spec (companion benchmarks). Its answer is the best value it
found, written as a decimal in a box, so the grader's 4-decimal rule decides whether it counts.
"""

from __future__ import annotations

import json
import time
from typing import Any

from extrembench.problems.problem import ExtremalSpec
from extrembench.verify.search import Effort, TimeCap, search_extremum


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
            result = search_extremum(problem, seed=identity["seed"], effort=Effort(starts=identity["starts"]))
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
        elif result.best_value is None:
            text = None
        else:
            value = fixed_decimals(result.best_value, identity["digits"])
            text = f"The {'minimum' if spec['sense'] == 'min' else 'maximum'} value is \\boxed{{{value}}}."
        response.update(content=text, finish_reason="stop" if text else "abstain")
    response["latency_s"] = round(time.monotonic() - started, 3)
    return response
