"""Every check runs on one canonical problem (issue 35): the order of a file's variables and
constraints never reaches the search or the proofs, and its variables' names decide only between
variables an exact symmetry of the problem exchanges."""

from __future__ import annotations

import pytest
import sympy
from support.metamorphic import ORDER_ONLY, ORDER_SENSITIVE, renamed_variables
from support.problems import make_problem, shipped

from extrembench.problems.problem import (
    _canonical_items,
    canonical_problem,
    canonical_variable_order,
    load_problem,
    parse_problem,
)


@pytest.mark.parametrize("transform", sorted(ORDER_ONLY))
@pytest.mark.parametrize("problem_id", ORDER_SENSITIVE)
def test_an_order_change_gives_the_same_canonical_problem(problem_id, transform):
    problem = load_problem(shipped(problem_id))
    changed = ORDER_ONLY[transform](problem)
    canonical, from_changed = canonical_problem(problem), canonical_problem(changed)
    # dicts compare equal in any order: the order itself is compared
    assert list(from_changed.variables.items()) == list(canonical.variables.items())
    assert from_changed == canonical


def _is_symmetry(problem, sigma: dict[str, str]) -> bool:
    items = _canonical_items(parse_problem(problem))
    swap = {sympy.Symbol(a): sympy.Symbol(b) for a, b in sigma.items()}
    whole = sorted(tag + "|".join(sympy.srepr(e) for e in exprs) for tag, exprs in items)
    moved = sorted(tag + "|".join(sympy.srepr(e.xreplace(swap)) for e in exprs) for tag, exprs in items)
    return whole == moved


@pytest.mark.parametrize("problem_id", ORDER_SENSITIVE)
def test_renamed_variables_take_the_same_places_up_to_a_symmetry(problem_id):
    """A new alphabet sorts the other way round; the canonical order is the old one, or differs
    from it by an exact symmetry of the problem (the same problem, other names)."""
    problem = load_problem(shipped(problem_id))
    renamed = renamed_variables(problem)
    back = dict(zip(renamed.variables, problem.variables))
    order = list(canonical_problem(problem).variables)
    renamed_order = [back[name] for name in canonical_problem(renamed).variables]
    assert _is_symmetry(problem, dict(zip(order, renamed_order)))


def test_the_order_follows_the_roles_not_the_names():
    # z is the one variable in a box and a, b play different parts: no name decides, so the
    # same problem in names that sort otherwise (a -> q, b -> p, z -> y) keeps every place
    first = make_problem("min", {"a": "positive", "z": "[0, 1]", "b": "positive"}, "a^2 + b + z", "0", ["a + b >= z"])
    second = make_problem("min", {"q": "positive", "p": "positive", "y": "[0, 1]"}, "q^2 + p + y", "0", ["q + p >= y"])
    order = [str(s) for s in canonical_variable_order(parse_problem(first))]
    assert [{"a": "q", "b": "p", "z": "y"}[name] for name in order] == [
        str(s) for s in canonical_variable_order(parse_problem(second))
    ]
    assert order != sorted(order)


def test_a_cyclic_problem_is_ordered_along_its_cycle_whatever_the_names():
    """x -> y -> z -> x is a symmetry of x^2 y + y^2 z + z^2 x, x <-> y is not: an order by names
    would read the cycle backwards in one alphabet and forwards in another."""
    objective = "x^2*y + y^2*z + z^2*x"
    forwards = make_problem("min", {"x": "positive", "y": "positive", "z": "positive"}, objective, "0")
    backwards = make_problem(
        "min",
        {"c": "positive", "b": "positive", "a": "positive"},
        objective.replace("x", "c").replace("y", "b").replace("z", "a"),
        "0",
    )
    order = [str(s) for s in canonical_variable_order(parse_problem(forwards))]
    renamed = [{"c": "x", "b": "y", "a": "z"}[str(s)] for s in canonical_variable_order(parse_problem(backwards))]
    assert renamed in [order[k:] + order[:k] for k in range(3)]  # the same cycle, from another start


def test_only_orders_change():
    problem = load_problem(shipped("ineq-0161"))
    canonical = canonical_problem(problem)
    assert canonical.variables == problem.variables and set(canonical.constraints) == set(problem.constraints)
    assert (canonical.objective, canonical.answer, canonical.statement, canonical.source, canonical.path) == (
        problem.objective,
        problem.answer,
        problem.statement,
        problem.source,
        problem.path,
    )


def test_the_canonical_order_of_a_large_file_is_bounded_work():
    """12 alike variables in a cycle that no transposition preserves, and 20 constraints: the
    individualisations stop at CANONICAL_TRIES and names order the rest."""
    names = [f"x{i}" for i in range(12)]
    cycle = " + ".join(f"{a}^2*{b}" for a, b in zip(names, names[1:] + names[:1]))
    constraints = [f"{a}*{b}^2 <= 1" for a, b in zip(names, names[1:] + names[:1])]
    problem = make_problem("min", dict.fromkeys(names, "positive"), cycle, "0", constraints)
    order = canonical_variable_order(parse_problem(problem))
    assert sorted(map(str, order)) == sorted(names)


@pytest.mark.slow  # ~2 s: one check
def test_a_certificate_of_the_canonical_order_verifies_against_the_files_order():
    """ineq-0168 states r <= s, s <= t; the check proves its canonical order, s <= t, r <= s, and the
    Parquet row keeps the file's: a conjunction's order must not fail the certificate."""
    from extrembench.verify.checker.verify import verify
    from extrembench.verify.validate import check_problem

    problem = load_problem(shipped("ineq-0168"))
    result = check_problem(problem)
    assert result.status == "confirmed"
    assert result.certificate["spec"]["constraints"] != list(problem.constraints)  # the orders differ
    row = {
        "sense": problem.sense,
        "variables": dict(sorted(problem.variables.items())),
        "constraints": list(problem.constraints),
        "objective": problem.objective,
        "answer": problem.answer,
    }
    assert verify(result.certificate, row) == (True, verify(result.certificate)[1])
    assert verify(result.certificate, row)[0]
