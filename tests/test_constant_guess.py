"""The constant baseline (issue 36): 0 for an objective written as a difference of two sides, else
the set's most frequent answer computed from the problem files; planned like the other guesses,
on the default run's leaderboard."""

import json
from pathlib import Path

import pytest
import yaml

from extrembench.core.config import layered_config, model_entry
from extrembench.generation.constant import (
    answer,
    benchmark_constant,
    constant_guess,
    folder_constant,
    is_difference,
    most_frequent_answer,
    rule_parameter,
)
from extrembench.problems.expr import parse_expression

REPO = Path(__file__).resolve().parents[1]
POS3 = {"a": "positive", "b": "positive", "c": "positive"}


def spec(sense, variables, objective, constraints=()):
    return {"sense": sense, "variables": variables, "objective": objective, "constraints": list(constraints)}


@pytest.mark.parametrize(
    "objective, difference",
    [
        ("a^2 + b^2 + c^2 - a*b - b*c - c*a", True),
        ("(a^2 + 2)*(b^2 + 2)*(c^2 + 2) - 9*(a*b + b*c + c*a)", True),
        ("a/(b + c) + b/(c + a) + c/(a + b) - 3/2", True),  # f >= 3/2 written as a difference
        ("a + b + c", False),  # one side only
        ("a*b*c", False),
        ("-(a + b + c)", False),  # every term of one sign: a negated side, not a difference
        ("(a - b)*(b - c)", False),  # a product: its factors' signs are not two sides
    ],
)
def test_difference_of_two_sides(objective, difference):
    assert is_difference(parse_expression(objective, list(POS3))) is difference


@pytest.mark.parametrize(
    "answers, expected",
    [
        (["1", "2", "1", "0"], "1"),
        (["1 + sqrt(7)", "sqrt(7) + 1", "2", "2/1"], "2"),  # equal values count together; tie: the smaller
        # all once: no answer is the most frequent (the smallest would copy one answer of the key)
        (["3", "1/4", "2"], None),
        (["3", "1/4", "2", "3"], "3"),
        (["sqrt(2)", "2^(1/2)", "1"], "sqrt(2)"),
        ([], None),
    ],
)
def test_most_frequent_answer(answers, expected):
    assert most_frequent_answer(answers) == expected


def test_order_of_the_files_does_not_change_the_answer():
    answers = ["2", "1/4", "2", "1/4", "3"]
    assert most_frequent_answer(answers) == most_frequent_answer(reversed(answers)) == "1/4"


@pytest.mark.parametrize(
    "problem, constant, expected",
    [
        (spec("min", POS3, "a^2 + b^2 + c^2 - a*b - b*c - c*a"), "1", 0),  # a difference: 0 whatever the set says
        (spec("min", POS3, "a + b + c", ["a*b*c = 1"]), "1", 1),  # not a difference: the set's answer
        (spec("max", POS3, "a*b*c", ["a + b + c = 3"]), "1/4", 0.25),
    ],
)
def test_guess_value(problem, constant, expected):
    guess = constant_guess(problem, constant)
    assert guess is not None and float(guess.numeric) == expected


def test_no_set_answer_abstains_unless_a_difference():
    assert constant_guess(spec("min", POS3, "a + b + c"), None) is None
    assert constant_guess(spec("min", POS3, "a^2 + b^2 - 2*a*b"), None).value == 0


@pytest.mark.parametrize(
    "spec_json, constant, finish, content",
    [
        (json.dumps(spec("min", POS3, "a + b + c", ["a*b*c = 8"])), "1", "stop", r"\boxed{1}"),
        (json.dumps(spec("min", POS3, "a^2 + b^2 - a*b")), "1", "stop", r"\boxed{0}"),
        (json.dumps(spec("min", POS3, "a + b + c")), "1/4", "stop", r"\boxed{\frac{1}{4}}"),
        (json.dumps(spec("min", POS3, "a + b + c")), None, "abstain", None),
        (None, "1", "abstain", None),  # a companion benchmark's problem has no spec
    ],
)
def test_answer_response(spec_json, constant, finish, content):
    response = answer({"spec_json": spec_json, "digits": 8, "seed": 1, "constant": constant})
    assert response["finish_reason"] == finish
    assert (content is None and response["content"] is None) or content in response["content"]
    assert response["error"] is None


def test_unreadable_spec_is_an_error_row_not_a_crash():
    response = answer(
        {"spec_json": json.dumps(spec("min", {"a": "real"}, "a +* b")), "digits": 8, "seed": 1, "constant": "1"}
    )
    assert response["finish_reason"] == "error" and response["content"] is None
    assert "constant-guess" in response["error"]


def write_problem(folder: Path, pid: str, answer_text: str) -> None:
    folder.mkdir(exist_ok=True)
    data = {
        "id": pid,
        "sense": "min",
        "variables": {"x": "positive"},
        "constraints": [],
        "objective": f"x + ({answer_text})^2/(4*x)" if answer_text != "0" else "x^2",
        "answer": answer_text,
    }
    (folder / f"{pid}.yaml").write_text(yaml.safe_dump(data))


def test_the_constant_is_the_whole_folders_not_a_shards(tmp_path):
    """Computed from every file of the benchmark's folder (not typed, not the `limit` sample, not
    one shard): the variants benchmark shares its parent's, a benchmark without files has none."""
    folder = tmp_path / "problems"
    for pid, text in [("p1", "2"), ("p2", "2"), ("p3", "1"), ("p4", "0")]:
        write_problem(folder, pid, text)
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        yaml.safe_dump(
            {
                "benchmarks": {"extrem": {"problems": str(folder), "limit": 1}},
                "evaluate": {"benchmarks": ["extrem", "extrem-variants"]},
            }
        )
    )
    config = layered_config(REPO / "config.yaml", [overlay])
    assert benchmark_constant(config, "extrem") == "2"
    assert benchmark_constant(config, "extrem-variants") == "2"
    assert rule_parameter(config, "extrem", "constant-guess") == "2"
    assert rule_parameter(config, "extrem", "symmetric-guess") == ""  # no other model reruns
    assert folder_constant(str(tmp_path / "empty")) is None


def test_planned_like_the_other_guesses():
    """A non-LLM backend: its requests carry the spec and the set's constant (part of the cache
    key), its engine version hashes its own code, its sampling record names what determines it."""
    from extrembench.generation.requests import plan_samples, sampling_json, solver_version
    from extrembench.generation.solvers import SOLVERS

    row = {
        "problem_id": "p1",
        "status": "confirmed",
        "statement": "...",
        "spec_json": json.dumps(spec("min", POS3, "a + b + c", ["a*b*c = 1"])),
    }
    model_cfg = model_entry({"backend": "constant-guess", "reference": {"digits": 8}})
    planned = plan_samples(
        [row], benchmark="extrem", model="constant-guess", model_cfg=model_cfg, trials=2, constant="1"
    )
    other = plan_samples([row], benchmark="extrem", model="constant-guess", model_cfg=model_cfg, trials=2, constant="2")
    assert "constant-guess" in SOLVERS
    assert [p.identity["engine"] for p in planned] == ["constant-guess"] * 2
    assert planned[0].key != planned[1].key
    assert planned[0].key != other[0].key  # another set answer is another request
    assert "messages" not in planned[0].identity and planned[0].identity["spec_json"] == row["spec_json"]
    assert json.loads(sampling_json(planned[0])) == {"seed": planned[0].seed, "digits": 8, "constant": "1"}
    assert solver_version("constant-guess") not in (solver_version("symmetric-guess"), solver_version("boundary-guess"))


def test_default_run_has_a_constant_guess_row():
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    assert "constant-guess" in config["evaluate"]["models"]
    assert config["models"]["constant-guess"]["backend"] == "constant-guess"


def test_the_generate_rule_reruns_on_a_new_constant():
    """The set's answer is a parameter of the generate rule: a file edit that changes it reruns
    every shard of constant-guess, not only the shard holding the edited file."""
    rule = (REPO / "rules/evaluate.smk").read_text()
    assert "constant_guess_parameter(CONFIG, wc.benchmark, wc.model)" in rule
