"""Loading problem files: schema, domains, expressions, clear errors, round trip."""

import os
from pathlib import Path

import pytest
import sympy

from extrembench.problems.problem import (
    Problem,
    ProblemError,
    load_problem,
    parse_domain,
    parse_problem,
    problem_from_dict,
    problem_to_dict,
)

FIXTURES = Path(__file__).parent / "fixtures" / "problems"
BASE = {"id": "t-1", "sense": "min", "variables": {"a": "positive"}, "objective": "a + 1/a", "answer": "2"}


def test_loads_fixture_with_all_fields():
    problem = load_problem(FIXTURES / "titu-cyclic.yaml")
    assert problem.id == "titu-cyclic"
    assert problem.variables == {"a": "positive", "b": "positive", "c": "positive"}
    assert problem.constraints == ("a + b + c = 3",)
    assert problem.source["inequality"] == {"lhs": "a^2/b + b^2/c + c^2/a", "relation": ">=", "rhs": "3"}
    assert problem.technique == ("cauchy-schwarz", "cyclic")
    assert problem.difficulty == "easy"
    assert problem.path == str(FIXTURES / "titu-cyclic.yaml")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.yaml") if p.name != "pwned.yaml"))
def test_round_trip(name):
    problem = load_problem(FIXTURES / name)
    again = problem_from_dict(problem_to_dict(problem), path=problem.path)
    assert again == problem


@pytest.mark.parametrize(
    "change, field, reason",
    [
        ({"objective": "__import__('os').system('touch pwned')"}, "objective", "unexpected character '_'"),
        ({"objective": "a + b"}, "objective", "unknown name 'b'"),
        ({"answer": "a"}, "answer", "must be a number"),
        ({"answer": "log(0 * 1 + 1) / 0"}, "answer", "division by zero"),
        ({"sense": "minimum"}, "sense", "not one of min, max"),
        ({"variables": {"a": [0, 1]}}, "variables.a", "must be quoted"),
        ({"variables": {"a": "positiv"}}, "variables.a", "not one of positive"),
        ({"variables": {"a": "[2, 1]"}}, "variables.a", "is empty"),
        ({"variables": {"pi": "real"}}, "variables.pi", "reserved"),
        ({"variables": {}}, "variables", "should be non-empty"),
        ({"constraints": ["a + 1"]}, "constraints[0]", "expected a relation"),
        ({"extra": 1}, "(top level)", "unknown key(s) 'extra'"),
        (
            {"source": {"inequality": {"lhs": "a", "relation": "=", "rhs": "1"}}},
            "source.inequality.relation",
            "not one of",
        ),
        (
            {"source": {"inequality": {"lhs": "a + q", "relation": ">=", "rhs": "1"}}},
            "source.inequality.lhs",
            "unknown name 'q'",
        ),
        ({"technique": ["magic"]}, "technique[0]", "not one of"),
    ],
)
def test_errors_name_field_and_reason(change, field, reason):
    with pytest.raises(ProblemError) as info:
        problem_from_dict({**BASE, **change}, path="p.yaml")
    assert (info.value.file, info.value.field) == ("p.yaml", field)
    assert reason in info.value.reason
    assert str(info.value).startswith(f"p.yaml: {field}: ")


def test_missing_required_key():
    data = dict(BASE)
    del data["answer"]
    with pytest.raises(ProblemError, match="'answer' is a required property"):
        problem_from_dict(data)


def test_ignored_keys_are_dropped_others_rejected():
    data = {**BASE, "expected_status": "refuted"}
    assert problem_from_dict(data, ignore_keys=["expected_status"]).id == "t-1"
    with pytest.raises(ProblemError, match="expected_status"):
        problem_from_dict(data)


def test_numeric_answer_kept_as_text():
    assert problem_from_dict({**BASE, "answer": 2}).answer == "2"
    assert problem_from_dict({**BASE, "answer": 0.5, "objective": "a"}).answer == "0.5"


@pytest.mark.parametrize(
    "text, error",
    [
        ("id: [unclosed\n", "(yaml)"),
        ("id: a\nid: b\n", "(yaml)"),
        ("- just\n- a list\n", "(top level)"),
    ],
)
def test_bad_yaml(tmp_path, text, error):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ProblemError) as info:
        load_problem(path)
    assert info.value.field == error and info.value.file == str(path)


def test_code_in_objective_is_never_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ProblemError):
        load_problem(FIXTURES / "pwned.yaml")
    assert not os.path.exists(tmp_path / "pwned")


@pytest.mark.parametrize(
    "text, lo, hi, lo_open, hi_open",
    [
        ("positive", 0, None, True, True),
        ("nonnegative", 0, None, False, True),
        ("real", None, None, True, True),
        ("[0, 1]", 0, 1, False, False),
        ("(0, pi/2]", 0, sympy.pi / 2, True, False),
        ("[1, inf)", 1, None, False, True),
        ("(-inf, sqrt(2))", None, sympy.sqrt(2), True, True),
        ("[3, 3]", 3, 3, False, False),
    ],
)
def test_domains(text, lo, hi, lo_open, hi_open):
    domain = parse_domain(text)
    assert (domain.lo, domain.hi, domain.lo_open, domain.hi_open) == (lo, hi, lo_open, hi_open)


@pytest.mark.parametrize("text", ["(1, 1)", "[2, 1]", "[0]", "[inf, 1]", "[0, x]", "between 0 and 1"])
def test_bad_domains(text):
    with pytest.raises(ValueError):
        parse_domain(text)


def test_parse_problem_gives_sympy_forms():
    parsed = parse_problem(load_problem(FIXTURES / "single-point.yaml"))
    a, b = sympy.symbols("a b")
    assert parsed.symbols == (a, b)
    assert parsed.constraints == ((a + b, "=", 2), (a * b, "=", 1))
    assert parsed.objective == a**3 + b and parsed.answer == 2


def test_problem_is_frozen():
    problem = problem_from_dict(BASE)
    assert isinstance(problem, Problem)
    with pytest.raises(AttributeError):
        problem.answer = "3"
