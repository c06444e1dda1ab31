"""Variant generation: the pure pieces by tables of cases, then whole variants of real problems
through the real validator."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import Problem, load_problem
from extrembench.sources import variants
from extrembench.verify.numeric.search import Effort, search_extremum
from extrembench.verify.validate import check_problem

REPO = Path(__file__).resolve().parents[1]


def _problem(objective, constraints=(), variables=None, answer="0", sense="min"):
    return Problem(
        id="t",
        sense=sense,
        variables=variables or {"a": "positive", "b": "positive", "c": "positive"},
        constraints=tuple(constraints),
        objective=objective,
        answer=answer,
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a + b + c", Fraction(1)),
        ("a*b*c", Fraction(3)),
        ("a^2 + b^2 - a*b", Fraction(2)),
        ("a/(b + c) + b/(c + a)", Fraction(0)),
        ("sqrt(a*b)", Fraction(1)),
        ("a^2 + b", None),
        ("a + b + 1", None),
        ("(a*b)^(1/3)", Fraction(2, 3)),
    ],
)
def test_homogeneous_degree(text, expected):
    names = ["a", "b", "c"]
    symbols = [sympy.Symbol(n) for n in names]
    assert variants.homogeneous_degree(parse_expression(text, names), symbols, random.Random(0)) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a^2 + 3*b", ["3"]),
        ("x**12 + 12*x", ["12"]),
        ("1/(1 + a)^2", ["1", "1"]),
        ("sqrt(3*a + 1)", ["3", "1"]),
        ("a + 0.5", []),
    ],
)
def test_number_tokens_skip_exponents_and_decimals(text, expected):
    assert [t for _, t in variants._number_tokens(text)] == expected


def test_rewrite_names_swaps_simultaneously():
    assert variants._rewrite_names("a*b^2 + b/(a + ab)", {"a": "b", "b": "a"}) == "b*a^2 + a/(b + ab)"


def test_homogeneity_rescales_constraint_and_answer():
    parent = _problem("a*b*c", ["a + b + c = 1"], answer="1/27", sense="max")
    candidates = variants.homogeneity_candidates(parent, random.Random(1))
    assert candidates
    for _technique, _transformation, variant in candidates:
        constant = parse_expression(variant.constraints[0].split("=")[1], [])
        assert parse_expression(variant.answer, []) == sympy.Rational(1, 27) * constant**3
    # a second fixed scale (abc = 1 as well) rules the technique out
    assert (
        variants.homogeneity_candidates(replace(parent, constraints=("a + b + c = 1", "a*b*c = 1")), random.Random(1))
        == []
    )


@pytest.mark.parametrize(
    "objective, constraints, variables, expected",
    [
        # snapped rational point: a = b = 3/2 on a + b = 3
        ("(1 + 1/a)*(1 + 1/b)", ["a + b = 3"], {"a": "positive", "b": "positive"}, sympy.Rational(25, 9)),
        # a stationary point in radicals: x + 2/x at x = sqrt(2)
        ("x + 2/x", [], {"x": "positive"}, 2 * sympy.sqrt(2)),
        # quadratic in x^2: (x^2 + 2)^2 = 8 gives the nested radical x^2 = 2*sqrt(2) - 2
        ("(x^2 + 2)^3 - 24*x^2", [], {"x": "positive"}, 48 - 32 * sympy.sqrt(2)),
        # a class fixed at a domain end and one equality solved for its root: b = 0, a^2 = 2
        ("a + 3*b", ["a^2 + b^2 = 2"], {"a": "nonnegative", "b": "nonnegative"}, sympy.sqrt(2)),
    ],
)
def test_exact_optimum_cases(objective, constraints, variables, expected):
    problem = _problem(objective, constraints, variables)
    found = search_extremum(problem, seed=0, effort=Effort(starts=8))
    value, how = variants.exact_optimum(problem, found.witness, found.best_value)
    assert value is not None, how
    assert sympy.simplify(value - expected) == 0


def test_exact_optimum_refuses_a_root_without_radicals():
    # x^5 - x - 1 = 0 has a real root not expressible in radicals; minimise x^6/6 - x^2/2 - x
    problem = _problem("x^6/6 - x^2/2 - x", [], {"x": "positive"})
    found = search_extremum(problem, seed=0, effort=Effort(starts=8))
    value, how = variants.exact_optimum(problem, found.witness, found.best_value)
    assert value is None and "radicals" in how


@pytest.mark.parametrize("phrasing", variants.PHRASINGS)
def test_every_phrasing_names_the_formulas(phrasing):
    problem = _problem("a/(b + c)", ["a + b + c = 3"], answer="1/2")
    text = variants.render_phrasing(problem, phrasing)
    assert "a + b + c = 3" in text and "\\frac{a}{b + c}" in text
    assert ("minimum" in text) or ("smallest" in text) or ("least" in text)


def test_in_share_is_stable_and_roughly_proportional():
    ids = [f"ineq-{i:04d}" for i in range(1, 401)]
    chosen = [i for i in ids if variants.in_share(i, 0.25, 0)]
    assert 70 <= len(chosen) <= 130
    assert chosen == [i for i in ids if variants.in_share(i, 0.25, 0)]
    assert all(variants.in_share(i, 1.0, 0) for i in ids)


def _validator(problem):
    return check_problem(problem, seed=0, effort=Effort())


def _search(problem):
    return search_extremum(problem, seed=0, effort=Effort())


@pytest.mark.parametrize(
    "path",
    [
        "tests/fixtures/slurm/ineq-0001.yaml",
        "data/problems/ineq-0033.yaml",
        pytest.param("data/problems/ineq-0077.yaml", marks=pytest.mark.slow),  # ~8 s
    ],
)
def test_variants_of_shipped_problems(path):
    parent = load_problem(REPO / path)
    result = _validator(parent)
    settings = variants.Settings(per_problem=2, seed=0, kinds=variants.KINDS)
    candidates = variants.variants_of(parent, settings, check=_validator, search=_search, parent_witness=result.witness)
    confirmed = [c for c in candidates if c.status == "confirmed"]
    by_kind = {k: [c for c in confirmed if c.kind == k] for k in variants.KINDS}
    assert all(len(v) == 2 for v in by_kind.values()), [(c.variant_id, c.drop_reason) for c in candidates]
    parent_answer = parse_expression(parent.answer, [])
    for c in by_kind["constants"]:
        assert c.validation_status == "confirmed"
        assert parse_expression(c.problem.answer, []) != parent_answer
        assert "→" in c.transformation_text()
    for c in by_kind["rename"] + by_kind["rephrase"]:
        assert parse_expression(c.problem.answer, []) == parent_answer
    assert len({variants.content_hash(c.problem) for c in confirmed}) == len(confirmed)
    # deterministic: the same seed gives the same variants
    again = variants.variants_of(parent, settings, check=_validator, search=_search, parent_witness=result.witness)
    assert [(c.variant_id, c.problem and variants.content_hash(c.problem)) for c in again] == [
        (c.variant_id, c.problem and variants.content_hash(c.problem)) for c in candidates
    ]


@pytest.mark.parametrize(
    "objective, constraints, expected",
    [
        # two free classes, no constraint: a^2 = b + 2 and a = 2b, so a = (1 + sqrt(33))/4
        ("a^3/3 - 2*a + b^2 - a*b", [], None),
        # an inequality tight at the optimum is solved as an equality: a*b = 2, a = 3b
        ("a + 3*b", ["a*b >= 2"], 2 * sympy.sqrt(6)),
        # scale-free: the optimum is the ray a = sqrt(3)*b; with one class set to 1, 1/b + 3b
        ("(a^2 + 3*b^2)/(a*b)", [], 2 * sympy.sqrt(3)),
    ],
)
def test_exact_optimum_two_classes_and_tight_inequalities(objective, constraints, expected):
    problem = _problem(objective, constraints, {"a": "positive", "b": "positive"})
    found = search_extremum(problem, seed=0, effort=Effort(starts=8))
    value, how = variants.exact_optimum(problem, found.witness, found.best_value)
    assert value is not None, how
    if expected is None:
        a = (1 + sympy.sqrt(33)) / 4
        expected = a**3 / 3 - 2 * a + (a / 2) ** 2 - a * a / 2
    assert sympy.simplify(value - expected) == 0


def _answering(problem):
    from extrembench.generation.cheap import answering_guess

    return answering_guess(problem, "1")


def test_guessed_variants_are_dropped_unvalidated_and_their_scaled_twins_tried():
    # a + b + c = 3 is the only literal: every change of it keeps the optimum where a cheap guess
    # finds it; the twins (one variable written k*v) keep the exact answer off the guesses
    parent = load_problem(REPO / "data/problems/ineq-0015.yaml")
    validated = []

    def check(problem):
        validated.append(problem)
        return _validator(problem)

    result = _validator(parent)
    settings = variants.Settings(per_problem=2, seed=0, kinds=("constants",))
    candidates = variants.variants_of(
        parent, settings, check=check, search=_search, parent_witness=result.witness, guessed=_answering
    )
    guessed = [c for c in candidates if c.guessed_by]
    assert guessed and all(c.validation_status is None and c.guessed_by in c.drop_reason for c in guessed)
    assert len(validated) == sum(c.validation_status is not None for c in candidates)
    confirmed = [c for c in candidates if c.status == "confirmed"]
    assert len(confirmed) == 2, [(c.variant_id, c.drop_reason) for c in candidates]
    for c in confirmed:
        assert c.technique.startswith("scaled variable") and _answering(c.problem) is None
        # the twin follows the guessed variant it scales, with the same answer
        before = candidates[candidates.index(c) - 1]
        assert before.guessed_by and parse_expression(before.problem.answer, []) == parse_expression(
            c.problem.answer, []
        )
        assert any(f"({k}*" in c.problem.objective for k in (2, 3)), c.problem.objective
        # the transformation is told from the parent, whose constraint it names
        assert parent.constraints[0] in c.transformation_text()


def test_coefficient_candidates_give_one_term_a_coefficient():
    problem = _problem("a^2 + b^2 - a*b - a - b + 1/c + 2^c", ["a + b*c >= 1"])
    candidates = variants.coefficient_candidates(problem, random.Random(0))
    # term starts: a^2, b^2, a*b, a, b in the objective (not 1/c, 2^c, nor b in a*b); a and b in the constraint
    assert len(candidates) == 7
    for transformation, variant in candidates:
        (change,) = transformation
        old, new = change["old"], change["new"]
        assert len(new) == len(old) + 2 and any(new.replace(f"{k}*", "", 1) == old for k in (2, 3))
        assert not any(f"{op}{k}*" in new for op in ("^", "/", "*") for k in (2, 3))
        field = variant.objective if change["field"] == "objective" else variant.constraints[0]
        assert field == new


@pytest.mark.parametrize(
    "domain, k, expected",
    [
        ("positive", 2, "positive"),
        ("real", 3, "real"),
        ("[0, 1]", 2, "[0, 1/2]"),
        ("(0, pi)", 3, "(0, pi/3)"),
        ("[1, inf)", 2, None),
    ],
)
def test_scaled_domain_is_the_domain_of_v_over_k(domain, k, expected):
    assert variants._scaled_domain(domain, k) == expected
