"""Problems built in tests from their fields, as a problem file would state them."""

from __future__ import annotations

from extrembench.problems.problem import Problem, problem_from_dict


def make_problem(sense, variables, objective, answer, constraints=()) -> Problem:
    return problem_from_dict(
        {
            "id": "p",
            "sense": sense,
            "variables": variables,
            "constraints": list(constraints),
            "objective": objective,
            "answer": answer,
        }
    )


def real(names) -> dict[str, str]:
    return {n: "real" for n in names}


def pos(names) -> dict[str, str]:
    return {n: "positive" for n in names}
