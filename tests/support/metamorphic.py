"""Changes that must not change a verdict (issue 35): the order of the variables or constraints,
the variables' names, and the spec as the pipeline reads it back from a Parquet row."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace

from extrembench.problems.problem import Problem, problem_from_dict

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def reversed_variables(problem: Problem) -> Problem:
    return replace(problem, variables=dict(reversed(list(problem.variables.items()))))


def shuffled_variables(problem: Problem) -> Problem:
    items = list(problem.variables.items())
    random.Random(problem.id).shuffle(items)  # a fixed shuffle per problem
    return replace(problem, variables=dict(items))


def reversed_constraints(problem: Problem) -> Problem:
    return replace(problem, constraints=tuple(reversed(problem.constraints)))


def renamed_variables(problem: Problem) -> Problem:
    """Every variable renamed into an alphabet that sorts the other way round (a < b becomes
    wac > wab). The statement and source go: their LaTeX and inequality would need renaming too,
    and they only decide `invalid`, which no shipped file is."""
    names = sorted(problem.variables)
    new = {
        name: "w" + "".join(chr(ord("a") + int(d)) for d in f"{len(names) - 1 - i:02d}") for i, name in enumerate(names)
    }

    def rename(text: str) -> str:
        return _TOKEN.sub(lambda m: new.get(m.group(), m.group()), text)

    return replace(
        problem,
        variables={new[name]: domain for name, domain in problem.variables.items()},
        constraints=tuple(rename(c) for c in problem.constraints),
        objective=rename(problem.objective),
        statement=None,
        source=None,
    )


def parquet_row(problem: Problem) -> Problem:
    """The spec as the validate job's row holds it (json with sorted keys, so sorted variables), with
    its answer, checked as the pipeline checks a spec no problem file holds."""
    spec = {
        "id": problem.id,
        "sense": problem.sense,
        "variables": dict(problem.variables),
        "constraints": list(problem.constraints),
        "objective": problem.objective,
    }
    row = json.loads(json.dumps(spec, sort_keys=True))
    return problem_from_dict({**row, "answer": problem.answer}, path=problem.path)


ORDER_ONLY = {
    "reversed-variables": reversed_variables,
    "shuffled-variables": shuffled_variables,
    "reversed-constraints": reversed_constraints,
}
TRANSFORMS = {**ORDER_ONLY, "renamed-variables": renamed_variables, "parquet-row": parquet_row}

# the shipped files whose verdict or certificate kind changed with the variables and constraints
# reversed before the checks ran on the canonical problem (issue 35)
ORDER_SENSITIVE = (
    "ineq-0024",
    "ineq-0029",
    "ineq-0157",
    "ineq-0158",
    "ineq-0159",
    "ineq-0161",
    "ineq-0227",
    "ineq-0455",
    "ineq-0460",
    "ineq-0461",
    "ineq-0533",
    "ineq-0535",
)


def verdict(path: str, transform: str | None = None) -> tuple[str, str, str | None, str | None]:
    """(id, status, certificate kind, certificate bytes) of a shipped file checked as the validator
    does, after `transform` (a TRANSFORMS name) when given; a top-level function, so a spawned
    worker process can run it."""
    from extrembench.problems.problem import load_problem
    from extrembench.verify.provers.certify import certificate_json
    from extrembench.verify.validate import check_problem

    problem = load_problem(path)
    if transform is not None:
        problem = TRANSFORMS[transform](problem)
    result = check_problem(problem)
    kind = result.certificate["kind"] if result.certificate else None
    return result.id, result.status, kind, certificate_json(result.certificate)


def verdicts(paths, transform: str | None = None, workers: int = 2) -> dict[str, tuple]:
    """verdict() of every path, on `workers` spawned processes (spawn, not fork: a test process may
    hold threads, and a forked child can wait forever on a lock one of them held)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        found = pool.map(verdict, list(paths), [transform] * len(paths))
        return {problem_id: rest for problem_id, *rest in found}
