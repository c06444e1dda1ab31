"""The constant baseline: one answer for every problem, chosen without looking at the problem.

Beside "all variables equal" (symmetric-guess) and "one variable at an edge" (boundary-guess), the
cheapest guess of all ignores the mathematics: a quarter of the headline answers are 0, 1 or 2, so
answering the set's most frequent answer to everything scores well above zero. Issue 36 asks what
that buys on the leaderboard. The model answers:

- 0 when the objective is written as a difference of two sides (`L - R`, the form an inequality
  L >= R takes as a minimisation). The spec carries no record of the form it was written in (the
  problem file's `source.inequality` is not part of the spec a model sees), so it is detected from
  the parsed objective: a sum with at least one term of each sign (`could_extract_minus_sign`),
  as `a^2 + b^2 + c^2 - a*b - b*c - c*a` or `(a^2 + 2)*(b^2 + 2)*(c^2 + 2) - 9*(a*b + b*c + c*a)`;
- otherwise the most frequent answer of the benchmark's problem files (every `*.yaml` of its
  `problems` folder, a variants benchmark's parent's folder; the whole folder, not the run's
  `limit` sample, so the sample size does not change the answer). Answers count as one when they
  are the same number (`1 + sqrt(7)` and `sqrt(7) + 1`); a tie goes to the smaller value. A
  benchmark without problem files (an ingested one), or whose answers are all distinct (the fresh
  slice: the smallest would be one answer of its key, copied), has no such answer: the model
  abstains there unless the difference rule applies.

The constant is computed from the files, never typed: it is part of each request's identity (so
of its cache key) and a parameter of the generate rule (rules/evaluate.smk), so a change of the
set's most frequent answer reruns every shard of this model, not only the shard whose file changed.
"""

from __future__ import annotations

import functools
import json
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import sympy

from extrembench.generation.reference import abstaining_response
from extrembench.generation.symmetric import Guess, answer_text
from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import load_problem

NAME = "constant-guess"
DIFFERENCE = "For an objective written as a difference of two sides"
MOST_FREQUENT = "Taking the set's most frequent answer"
HP_DIGITS = 30


def is_difference(objective: sympy.Expr) -> bool:
    """Whether the objective is a sum with a term of each sign: L - R with both sides present."""
    if not isinstance(objective, sympy.Add):
        return False
    signs = {term.could_extract_minus_sign() for term in objective.args}
    return signs == {True, False}


def most_frequent_answer(answers: Iterable[str]) -> str | None:
    """The answer given most often (as a number: equal values count together), the smaller value
    on a tie; None when no answer is given twice: then there is no most frequent answer, and the
    smallest would be one answer of the key copied (the fresh slice's answers are all distinct).
    Returned in sympy's string form, which parse_expression reads."""
    counts: Counter = Counter()
    for text in answers:
        counts[parse_expression(text, [])] += 1
    if not counts or max(counts.values()) < 2:
        return None
    value = min(counts, key=lambda v: (-counts[v], float(sympy.N(v, HP_DIGITS)), sympy.srepr(v)))
    return sympy.sstr(value)


@functools.cache  # one folder, one answer per process: the DAG asks once per generate job
def folder_constant(folder: str) -> str | None:
    """The most frequent answer of the problem files in `folder` (each read as `extrembench check`
    reads it: size cap, schema, id = file name)."""
    return most_frequent_answer(load_problem(path).answer for path in sorted(Path(folder).glob("*.yaml")))


def benchmark_constant(config: Any, benchmark: str) -> str | None:
    """The constant of one benchmark of a Config: its problem folder's, or its parent's for a
    variants benchmark; None for a benchmark without problem files."""
    bench = config.benchmarks[benchmark]
    if bench.kind == "variants":
        bench = config.benchmarks[bench.parent]
    folder = getattr(bench, "problems", None)
    return folder_constant(str(Path(folder))) if bench.kind == "extremal" and folder else None


def rule_parameter(config: Any, benchmark: str, model: str) -> str:
    """The generate rule's parameter: the constant for a constant-guess model, '' for every other
    (so no other model's jobs rerun when the set's answers change)."""
    if config.models[model].backend != NAME:
        return ""
    return benchmark_constant(config, benchmark) or "(none)"


def constant_guess(spec: dict[str, Any], constant: str | None) -> Guess | None:
    """0 for a difference of two sides, else the set's constant; None (abstain) without one."""
    objective = parse_expression(spec["objective"], list(spec["variables"]))
    if is_difference(objective):
        value = sympy.Integer(0)
    elif constant is None:
        return None
    else:
        value = parse_expression(constant, [])
    return Guess(t=value, value=value, numeric=sympy.Float(sympy.N(value, HP_DIGITS), HP_DIGITS))


def answer(identity: dict[str, Any]) -> dict[str, Any]:
    """A generation response for one sample (the same shape as a chat response)."""
    started = time.monotonic()
    response = abstaining_response()
    if identity["spec_json"]:
        spec = json.loads(identity["spec_json"])
        try:
            guess = constant_guess(spec, identity["constant"])
        except (ValueError, TypeError, ArithmeticError, sympy.PolynomialError) as exc:
            response.update(finish_reason="error", error=f"{NAME}: {type(exc).__name__}: {exc}")
            guess = None
        if guess is not None:
            setting = (
                DIFFERENCE
                if is_difference(parse_expression(spec["objective"], list(spec["variables"])))
                else MOST_FREQUENT
            )
            response.update(
                content=answer_text(guess, spec["sense"], identity["digits"], setting), finish_reason="stop"
            )
    response["latency_s"] = round(time.monotonic() - started, 3)
    return response
