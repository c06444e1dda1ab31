"""The cheap guesses as one question: does a guess that reads no mathematics answer a problem?

A problem whose answer "all variables equal" (symmetric-guess), "one variable at an edge, the
others equal" (boundary-guess) or "0 for a difference, else the set's most frequent answer"
(constant-guess) gives measures nothing a model reasons out: the problem-set report counts such
problems, and the variant generator drops such variants before paying for their validation
(issue 40: a variant is counted only when no cheap guess answers it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import sympy

from extrembench.generation.boundary import boundary_guess
from extrembench.generation.constant import constant_guess
from extrembench.generation.symmetric import symmetric_guess
from extrembench.problems.problem import Problem, parse_problem


def guess_matches(problem: Problem, guess_of: Callable = symmetric_guess) -> bool:
    """Whether a cheap guess (default the symmetric one; boundary_guess for one variable at an
    edge) equals the problem's answer (to 1e-12 relative). An abstention counts as no."""

    guess = guess_of(
        {
            "sense": problem.sense,
            "variables": problem.variables,
            "constraints": list(problem.constraints),
            "objective": problem.objective,
        }
    )
    if guess is None:
        return False
    answer = sympy.N(parse_problem(problem).answer, 30)
    return bool(abs(guess.numeric - answer) <= sympy.Float("1e-12") * (1 + abs(answer)))


def answering_guess(problem: Problem, constant: str | None) -> str | None:
    """The name of the first cheap guess that answers the problem, or None when none does;
    `constant` is the constant guess's answer for the problem's set (None: it has none)."""
    guesses = {
        "symmetric-guess": symmetric_guess,
        "boundary-guess": boundary_guess,
        "constant-guess": functools.partial(constant_guess, constant=constant),
    }
    return next((name for name, guess in guesses.items() if guess_matches(problem, guess)), None)
