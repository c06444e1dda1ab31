"""A fixed set of graded completions made from shipped problems, to check that every reward adapter
gives the grader's verdict and that no wrong answer is rewarded (tests/test_rl_reward.py), and to
time the reward (benchmarks/reward.py).

Per problem, deterministically (no model, no randomness): the gold boxed after the reasoning, the
gold to 10 decimals, the gold moved by +1e-4 and -1e-4 relative, the extremum of the opposite sense
(the validator's search, small fixed effort; left out when unbounded or past 1e9), the all-equal guess (the
symmetric baseline's value; left out when it abstains), and a reply cut off inside its reasoning
with the gold boxed there. Each carries the value it states, so what counts as right is decided by
the grader's documented rule (the exact value, or a decimal of 4+ places within 0.5e-4), never by
the grader under test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import sympy

from extrembench.generation.symmetric import symmetric_guess
from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import load_problem
from extrembench.problems.statement import answer_latex
from extrembench.rl.rows import spec_of
from extrembench.verify.numeric.search import Effort, TimeCap, search_extremum

KINDS = ("correct", "correct_decimal", "plus_1e-4", "minus_1e-4", "opposite_sense", "all_equal", "truncated")
OPPOSITE_EFFORT = Effort(starts=4, iterations=60, samples_per_variable=100, time_cap_s=60.0)
DECIMAL_TOLERANCE = sympy.Rational(1, 2 * 10**4)  # the grader's 4-decimal rule (docs/grading.md)


@dataclass(frozen=True)
class Completion:
    problem_id: str
    kind: str
    gold: str  # LaTeX, as the rows and the pipeline give it
    response: str
    value: str | None  # the value the response states (None: no final answer)
    facts: dict

    def should_reward(self) -> bool:
        """Right by the grader's documented rule, decided from the stated value alone."""
        if self.value is None:
            return False
        gold = parse_expression(self.facts["answer_text"], [])
        stated = parse_expression(self.value, [])
        difference = abs(sympy.N(stated - gold, 50))
        if "." in self.value:
            return bool(difference <= DECIMAL_TOLERANCE + sympy.Float("1e-40", 50))
        return bool(difference <= sympy.Float("1e-40", 50))


def _decimal(value: sympy.Expr, places: int = 10) -> str:
    return f"{sympy.Float(sympy.N(value, 40), 40):.{places}f}"


def _reply(answer: str, sense: str) -> str:
    word = "minimum" if sense == "min" else "maximum"
    return f"<think>\nTry the natural candidates and compare.\n</think>\nThe {word} value is $\\boxed{{{answer}}}$."


def completions_for(path: str | Path) -> list[Completion]:
    problem = load_problem(path)
    spec = spec_of(problem)
    gold_value = parse_expression(problem.answer, [])
    gold = answer_latex(problem.answer)
    guess = symmetric_guess(spec)
    facts = {
        "answer": gold,
        "answer_text": problem.answer,
        "answer_decimal": str(sympy.Float(sympy.N(gold_value, 60), 50)),
        "sense": problem.sense,
        "variables": list(problem.variables),
        "all_equal_decimal": str(sympy.Float(sympy.N(guess.value, 60), 50)) if guess is not None else None,
        "boundary_decimal": None,
        "constant_decimal": None,
    }
    stated: list[tuple[str, str]] = [
        ("correct", gold),
        ("correct_decimal", _decimal(gold_value)),
        ("plus_1e-4", _decimal(gold_value * (1 + sympy.Rational(1, 10**4)))),
        ("minus_1e-4", _decimal(gold_value * (1 - sympy.Rational(1, 10**4)))),
    ]
    opposite = "max" if problem.sense == "min" else "min"
    try:
        found = search_extremum(replace(problem, sense=opposite), seed=0, effort=OPPOSITE_EFFORT)
    except TimeCap:
        found = None
    # a search that ran off to 1e59 has found no finite extremum, whatever its flag says
    if found is not None and found.best_value is not None and not found.unbounded and abs(found.best_value) < 1e9:
        stated.append(("opposite_sense", _decimal(sympy.Float(found.best_value, 20))))
    if guess is not None:
        exact = not guess.value.atoms(sympy.Float)
        stated.append(("all_equal", sympy.sstr(guess.value) if exact else _decimal(guess.value)))
    out = []
    for kind, value in stated:
        shown = value if kind == "correct" else (answer_latex(value) if "." not in value else value)
        value_text = problem.answer if kind == "correct" else value
        out.append(Completion(problem.id, kind, gold, _reply(shown, problem.sense), value_text, facts))
    cut = f"<think>\nThe value at the candidate point is $\\boxed{{{gold}}}$, now to prove it is the extremum, first"
    out.append(Completion(problem.id, "truncated", gold, cut, None, facts))
    return out


def completion_set(paths: list[Path]) -> list[Completion]:
    """The completions of every problem file, in the files' order."""
    return [c for path in paths for c in completions_for(path)]


def as_grade_cases(completions: list[Completion]) -> str:
    """JSONL for `extrembench grade --input`."""
    return "".join(
        json.dumps({"id": i, "gold": c.gold, "response": c.response}) + "\n" for i, c in enumerate(completions)
    )
