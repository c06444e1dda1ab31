"""Problems built in tests from their fields, as a problem file would state them."""

from __future__ import annotations

from pathlib import Path

from extrembench.problems.problem import Problem, problem_from_dict

DATA = Path(__file__).resolve().parents[2] / "data"
# every folder of shipped problem files: the headline and the sets kept beside it
SHIPPED_FOLDERS = ("problems", "guessable", "unnumbered", "instances")


def shipped(problem_id: str) -> Path:
    """The file of a shipped problem, in whichever data folder holds it (a problem moved between
    the headline and a side set keeps its id, so tests name it by id, not by folder)."""
    found = [path for folder in SHIPPED_FOLDERS if (path := DATA / folder / f"{problem_id}.yaml").exists()]
    assert len(found) == 1, f"{problem_id}: expected in exactly one of data/{SHIPPED_FOLDERS}, found {found}"
    return found[0]


def make_problem(sense, variables, objective, answer, constraints=(), **fields) -> Problem:
    """fields: any other field of a problem file (technique, difficulty, ...)."""
    return problem_from_dict(
        {
            "id": "p",
            "sense": sense,
            "variables": variables,
            "constraints": list(constraints),
            "objective": objective,
            "answer": answer,
            **fields,
        }
    )


def real(names) -> dict[str, str]:
    return {n: "real" for n in names}


def pos(names) -> dict[str, str]:
    return {n: "positive" for n in names}
