"""Every shipped answer, as the pipeline hands it to the grader (LaTeX from the safe parser), is
graded correct when a response states its value to 8 or to 4 decimals, and wrong when off by
3·10⁻⁴: the grader and the gold notation agree on the whole dataset, not only on chosen cases."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy
import yaml

from extrembench.grading import grade_many
from extrembench.problems.expr import parse_expression
from extrembench.problems.statement import answer_latex

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = sorted((REPO / "data" / "problems").glob("*.yaml"))


@pytest.fixture(scope="module")
def verdicts():
    cases, expected = [], []
    for path in PROBLEMS:
        answer = yaml.safe_load(path.read_text())["answer"]
        value = float(sympy.N(parse_expression(answer, []), 30))
        gold = answer_latex(answer)
        for text, correct in ((f"{value:.8f}", True), (f"{value:.4f}", True), (f"{value + 3e-4:.4f}", False)):
            cases.append(
                {"id": f"{path.stem} {text}", "gold": gold, "response": f"So the answer is \\boxed{{{text}}}."}
            )
            expected.append(correct)
    return cases, expected, grade_many(cases, timeout=10.0)


def test_the_dataset_is_shipped(verdicts):
    assert len(PROBLEMS) >= 93


def test_every_answer_grades_as_its_decimal_value(verdicts):
    cases, expected, results = verdicts
    wrong = [(c["id"], c["gold"], r.correct) for c, e, r in zip(cases, expected, results) if r.correct is not e]
    assert not wrong, wrong
