"""The problem-set rules of docs/problem-format.md ("Difficulty rubric"): source types, the
rubric, the kinds counted by benchmarks/problem_set.py, and the shipped set against the rubric."""

from pathlib import Path

import pytest
import yaml

from extrembench.problems.problem import load_problem, problem_from_dict
from extrembench.report.problem_set import (
    constraint_kind,
    describe,
    difficulty_mismatches,
    domain_kind,
    equality_case,
    guess_matches,
    is_cyclic,
    rubric_difficulty,
    source_type,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "reference, expected",
    [
        ("IMO 2005 Problem 3", "international-olympiad"),
        ("IMO Shortlist 2009 A2", "international-olympiad"),
        ("APMO 2004 Problem 5", "international-olympiad"),
        ("Balkan MO 2006 Problem 1", "international-olympiad"),
        ("China MO 2004 Problem 5 (中国数学奥林匹克)", "national-olympiad"),
        ("USAMO 2003 Problem 5", "national-olympiad"),
        ("China TST 2007", "national-olympiad"),
        ("China Western MO 2004 Problem 8", "national-olympiad"),
        ("Vietnam National Olympiad 1996", "national-olympiad"),
        ("Iran TST 2009 Day 2 Problem 1", "national-olympiad"),
        ("2004年中国数学奥林匹克 第5题", "national-olympiad"),
        ("2007年国家集训队测试", "national-olympiad"),
        ("Secrets in Inequalities, Vol. 1, Chapter 3 (SOS)", "book"),
        ("Crux Mathematicorum problem 2345", "journal"),
        ("classical (AM-GM)", "classical"),
        ("known result (uvw)", "classical"),
        ("Schur's inequality, t = 1", "classical"),
        ("a textbook remark", "other"),
        ("", "none"),
        (None, "none"),
    ],
)
def test_source_type(reference, expected):
    assert source_type(reference) == expected


@pytest.mark.parametrize(
    "source, techniques, at_symmetric, cyclic, expected",
    [
        ("national-olympiad", ["am-gm"], True, True, "hard"),  # olympiad source
        ("international-olympiad", [], True, True, "hard"),
        ("classical", ["am-gm"], False, True, "hard"),  # cyclic, extremum off the centre
        ("classical", ["cauchy-schwarz"], False, False, "easy"),  # weighted (not cyclic): no trap
        ("classical", ["schur"], True, True, "hard"),  # hard technique
        ("classical", ["tangent-line"], True, True, "hard"),
        ("book", ["am-gm", "sos"], True, True, "hard"),
        ("classical", ["am-gm"], True, True, "easy"),  # one classical inequality
        ("classical", ["jensen"], True, True, "easy"),
        ("classical", ["am-gm", "cauchy-schwarz"], True, True, "medium"),  # two of them
        ("classical", ["cyclic"], True, True, "medium"),
        ("classical", [], True, True, "medium"),  # no technique named
        ("journal", ["trigonometric"], True, True, "medium"),
    ],
)
def test_rubric(source, techniques, at_symmetric, cyclic, expected):
    level, rule = rubric_difficulty(source, techniques, at_symmetric, cyclic)
    assert level == expected
    assert rule


def problem(variables, objective, constraints=(), sense="min", answer="0", **extra):
    return problem_from_dict(
        {
            "id": "p",
            "sense": sense,
            "variables": variables,
            "constraints": list(constraints),
            "objective": objective,
            "answer": answer,
            **extra,
        }
    )


POS3 = {"a": "positive", "b": "positive", "c": "positive"}


@pytest.mark.parametrize(
    "item, kind",
    [
        (problem(POS3, "a + b + c"), "none"),
        (problem(POS3, "a + b + c", ["a*b*c = 1"]), "equality"),
        (problem(POS3, "a + b + c", ["a*b*c >= 1/27"]), "inequality"),
        (problem(POS3, "a + b + c", ["a*b*c ≥ 1", "a + b <= 5"]), "inequality"),
        (problem(POS3, "a + b + c", ["a*b*c == 1", "a <= b"]), "mixed"),
    ],
)
def test_constraint_kind(item, kind):
    assert constraint_kind(item) == kind


@pytest.mark.parametrize(
    "variables, kind",
    [
        (POS3, "positive"),
        ({"x": "nonnegative"}, "nonnegative"),
        ({"x": "real", "y": "real"}, "real"),
        ({"x": "[0, 1]", "y": "(0, pi/2)"}, "interval"),
        ({"x": "[0, 1]", "y": "positive"}, "mixed"),
    ],
)
def test_domain_kind(variables, kind):
    assert domain_kind(problem(variables, " + ".join(variables))) == kind


@pytest.mark.parametrize(
    "item, cyclic",
    [
        (problem(POS3, "a/b + b/c + c/a", ["a + b + c = 3"]), True),  # cyclic, not symmetric
        (problem(POS3, "a*b*c", ["a + b + c = 1"]), True),  # symmetric
        (problem(POS3, "1/a + 4/b + 9/c", ["a + b + c = 1"]), False),  # weighted objective
        (problem(POS3, "a + b + c", ["a + 2*b + 3*c = 1"]), False),  # weighted constraint
        (problem({"a": "positive", "b": "[0, 1]"}, "a + b"), False),  # different domains
        (problem(POS3, "a + b + c", ["a >= b", "b >= c", "c >= a"]), True),  # the constraint set maps to itself
    ],
)
def test_is_cyclic(item, cyclic):
    assert is_cyclic(item) is cyclic


@pytest.mark.parametrize(
    "item, matches",
    [
        (problem(POS3, "a^2/b + b^2/c + c^2/a", ["a + b + c = 3"], answer="3"), True),
        (
            problem(
                {"a": "nonnegative", "b": "nonnegative", "c": "nonnegative"},
                "a^3 + b^3 + c^3 + 6*a*b*c",
                ["a + b + c = 1"],
                answer="1/4",
            ),
            False,
        ),  # minimum at (1/2, 1/2, 0)
        (problem(POS3, "a + b + c", answer="0"), False),  # the guess abstains
    ],
)
def test_guess_matches(item, matches):
    assert guess_matches(item) is matches


NONNEG = {"a": "nonnegative", "b": "nonnegative", "c": "nonnegative"}


@pytest.mark.parametrize(
    "variables, at_symmetric, witness, expected",
    [
        (POS3, True, {"a": 1.0, "b": 1.0, "c": 1.0}, "symmetric"),
        (POS3, True, None, "symmetric"),
        (NONNEG, True, {"a": 1.0, "b": 1.0, "c": 0.0}, "several"),  # Schur: centre and (1, 1, 0)
        (NONNEG, False, {"a": 0.5, "b": 0.5, "c": 0.0}, "boundary"),
        ({"x": "[1, 2]", "y": "[1, 2]"}, False, {"x": 1.0, "y": 2.0}, "boundary"),
        (POS3, False, {"a": 1e9, "b": 1.0, "c": 1.0}, "boundary"),  # approached at infinity
        (POS3, False, {"a": 1 / 6, "b": 1 / 3, "c": 1 / 2}, "other"),
        (POS3, False, None, "unknown"),
    ],
)
def test_equality_case(variables, at_symmetric, witness, expected):
    assert equality_case(problem(variables, " + ".join(variables)), at_symmetric, witness) == expected


def test_mismatch_lines_name_problem_rule_and_both_levels():
    item = problem(POS3, "a^2/b + b^2/c + c^2/a", ["a + b + c = 3"], answer="3", technique=["sos"], difficulty="easy")
    lines = difficulty_mismatches([describe(item, guess_matches(item))])
    assert lines == ["p: declared easy, rubric says hard (technique sos)"]


@pytest.mark.slow  # ~23 s
@pytest.mark.xfail(
    strict=True,
    reason="issue 27: the shipped labels follow the technique the solution needs (difficulty_reason in "
    "each file), while rubric_difficulty still makes every olympiad source hard; remove this mark when "
    "the rubric code follows the technique",
)
def test_shipped_difficulties_follow_the_rubric():
    """Every shipped problem declares the difficulty the rubric gives it; the message lists each
    disagreement."""
    rows = [describe(p, guess_matches(p)) for p in map(load_problem, sorted((REPO / "data/problems").glob("*.yaml")))]
    mismatches = difficulty_mismatches(rows)
    assert not mismatches, (
        f"{len(mismatches)} of {len(rows)} problems disagree with the rubric "
        f"(docs/problem-format.md, 'Difficulty rubric'):\n" + "\n".join(mismatches)
    )


def test_shipped_difficulties_carry_their_reason():
    """Issue 27: every shipped problem declares a difficulty judged by the technique its solution
    needs, with the one-line reason (technique and equality case) a reader can check. Read as plain
    YAML to stay fast; the schema (1-300 characters) is applied wherever the files are loaded."""
    files = sorted((REPO / "data/problems").glob("*.yaml"))
    data = {path.stem: yaml.safe_load(path.read_text(encoding="utf-8")) for path in files}
    unlabelled = [
        name
        for name, item in data.items()
        if item.get("difficulty") not in ("easy", "medium", "hard")
        or not isinstance(item.get("difficulty_reason"), str)
        or "\n" in item["difficulty_reason"]
    ]
    assert data and not unlabelled, f"no difficulty or no one-line difficulty_reason: {unlabelled}"
