"""The boundary-point baseline: exact cases of "one variable at an edge, the others equal", its
abstentions, its response rows, and its registration as a non-LLM backend like symmetric-guess."""

import json

import pytest
import sympy

from extrembench.core.config import model_entry
from extrembench.generation.boundary import answer, answer_text, boundary_guess
from extrembench.problems.expr import parse_expression


def spec(sense, variables, objective, constraints=()):
    return {"sense": sense, "variables": variables, "objective": objective, "constraints": list(constraints)}


POS3 = {"a": "positive", "b": "positive", "c": "positive"}
NONNEG3 = {"a": "nonnegative", "b": "nonnegative", "c": "nonnegative"}


@pytest.mark.parametrize(
    "problem, expected",
    [
        # the symmetric guess says 1/3 here; the minimum 1/4 is at (0, 1/2, 1/2): a domain end, the others equal
        (spec("min", NONNEG3, "a^3 + b^3 + c^3 + 6*a*b*c", ["a + b + c = 1"]), "1/4"),
        # ab + bc + ca - abc on a + b + c = 3: 9/4 at (0, 3/2, 3/2), above the centre's 2
        (spec("max", NONNEG3, "a*b + b*c + c*a - a*b*c", ["a + b + c = 3"]), "9/4"),
        # a constraint's edge: c = a + b with a = b = t, (a + b + c)(1/a + 1/b + 1/c) = 4t * 5/(2t) = 10
        (spec("min", POS3, "(a + b + c)*(1/a + 1/b + 1/c)", ["c >= a + b"]), "10"),
        # both ends of a box: x = 2 and y = t in [0, 2], best at t = 2
        (spec("max", {"x": "[0, 2]", "y": "[0, 2]"}, "x*y"), "4"),
        # one variable: the closed end alone is the point
        (spec("max", {"x": "[1, 2]"}, "x^2"), "4"),
        # the best over the variables of a non-symmetric problem: c = 0 leaves 2t^2 on a + b = 2, a = b = 1
        (spec("max", NONNEG3, "a*b + b*c", ["a + b + c = 2"]), "1"),
    ],
)
def test_guess_value(problem, expected):
    guess = boundary_guess(problem)
    assert guess is not None
    assert abs(guess.numeric - sympy.N(parse_expression(expected, []), 30)) < 1e-20


@pytest.mark.parametrize(
    "problem, why",
    [
        (spec("min", POS3, "a + b + c", ["a*b*c = 1"]), "positive: 0 is an open end, and no inequality to make tight"),
        (spec("max", {"x": "real", "y": "real"}, "x + y"), "real: no end at all"),
        (spec("min", NONNEG3, "a + b + c", ["a*b*c = 1"]), "a = 0 makes abc = 1 fail for every t"),
        # Vietnam MO 2008 (ineq-0111): with the others equal, 1/(b - c)^2 is a pole for every t; it
        # once reached sympy's code printer as ComplexInfinity and crashed the guess
        (
            spec("min", NONNEG3, "(a*b + b*c + c*a)*(1/(a - b)^2 + 1/(b - c)^2 + 1/(c - a)^2)"),
            "every placement is a pole",
        ),
    ],
)
def test_guess_abstains(problem, why):
    assert boundary_guess(problem) is None, why


def test_edge_outside_the_variables_domain_is_not_a_point():
    # x <= -1 would put x at -1 with y = t, but x is nonnegative: no edge is feasible, and the
    # domain end x = 0 breaks x <= -1 too
    assert boundary_guess(spec("min", {"x": "nonnegative", "y": "positive"}, "x + y", ["x <= y - 1 - 2*y"])) is None


@pytest.mark.parametrize(
    "spec_json, finish, content",
    [
        (
            json.dumps(spec("min", NONNEG3, "a^3 + b^3 + c^3 + 6*a*b*c", ["a + b + c = 1"])),
            "stop",
            r"\boxed{\frac{1}{4}}",
        ),
        (json.dumps(spec("min", POS3, "a + b + c", ["a*b*c = 8"])), "abstain", None),
        (None, "abstain", None),  # a companion benchmark's problem has no spec
    ],
)
def test_answer_response(spec_json, finish, content):
    response = answer({"spec_json": spec_json, "digits": 8, "seed": 1})
    assert response["finish_reason"] == finish
    assert (content is None and response["content"] is None) or content in response["content"]
    assert response["error"] is None


def test_answer_text_names_the_sense_and_writes_decimals_for_irrationals():
    problem = spec("max", {"x": "[0, 1]", "y": "nonnegative"}, "x + sqrt(y)", ["x + y = 3"])
    text = answer_text(boundary_guess(problem), "max", 6)
    assert "maximum" in text and r"\boxed{" in text


def test_unreadable_spec_is_an_error_row_not_a_crash():
    response = answer({"spec_json": json.dumps(spec("min", {"a": "banana"}, "a")), "digits": 8, "seed": 1})
    assert response["finish_reason"] == "error" and response["content"] is None
    assert "banana" in response["error"]


def test_planned_like_symmetric_guess():
    """A non-LLM backend: its requests carry the spec, its engine version hashes its own code, and
    its sampling record names only what determines the answer."""
    from extrembench.generation.requests import plan_samples, sampling_json, solver_version
    from extrembench.generation.solvers import SOLVERS

    row = {
        "problem_id": "p1",
        "status": "confirmed",
        "statement": "...",
        "spec_json": json.dumps(spec("min", NONNEG3, "a + b + c", ["a*b*c = 1"])),
    }
    model_cfg = model_entry({"backend": "boundary-guess", "reference": {"digits": 8}})
    planned = plan_samples([row], benchmark="extrem", model="boundary-guess", model_cfg=model_cfg, trials=2)
    assert "boundary-guess" in SOLVERS
    assert [p.identity["engine"] for p in planned] == ["boundary-guess"] * 2
    assert planned[0].key != planned[1].key
    assert "messages" not in planned[0].identity and planned[0].identity["spec_json"] == row["spec_json"]
    assert set(json.loads(sampling_json(planned[0]))) == {"seed", "digits"}
    assert solver_version("boundary-guess") != solver_version("symmetric-guess")  # its own code hash


def test_default_run_evaluates_both_guess_baselines():
    from pathlib import Path

    import yaml

    config = yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text())
    assert {"symmetric-guess", "boundary-guess"} <= set(config["evaluate"]["models"])
    assert config["models"]["boundary-guess"]["backend"] == "boundary-guess"
