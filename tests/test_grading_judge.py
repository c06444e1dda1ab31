"""Judge voting for descriptive answers (judge.py) and its wiring in grade_response.

The judge objects below stand in for the LLM server only: they answer with fixed replies or
fail, so the voting logic under test runs unchanged.
"""

from __future__ import annotations

import pytest

from extrembench.grading import grade_response
from extrembench.grading.judge import judge_answer, majority_vote, parse_vote


class ScriptedJudge:
    """Replies from a script, one per call; an Exception instance in the script is raised."""

    def __init__(self, script):
        self.script = list(script)
        self.seeds = []

    def ask(self, messages, *, seed):
        self.seeds.append(seed)
        reply = self.script[len(self.seeds) - 1]
        if isinstance(reply, Exception):
            raise reply
        return reply


YES, NO, JUNK, FAIL = "VERDICT: CORRECT", "reasoning...\nVERDICT: INCORRECT", "I am not sure.", TimeoutError("server")


@pytest.mark.parametrize(
    ("reply", "vote"),
    [
        ("VERDICT: CORRECT", True),
        ("... VERDICT: INCORRECT", False),
        ("verdict: **correct**", True),
        ("VERDICT: INCORRECT then VERDICT: CORRECT", True),
        ("no verdict", None),
        ("", None),
    ],
)
def test_parse_vote(reply, vote):
    assert parse_vote(reply) is vote


@pytest.mark.parametrize(
    ("script", "correct", "reason"),
    [
        ([YES] * 5, True, "judge:5-0"),
        ([YES, YES, YES, NO, NO], True, "judge:3-2"),
        ([NO, NO, NO, YES, YES], False, "judge:2-3"),
        ([FAIL, FAIL, YES, YES, NO], True, "judge:2-1"),  # failures are not 'no' votes
        ([FAIL, FAIL, FAIL, NO, NO], None, "judge-too-few-valid-votes:2/5"),  # never 'wrong'
        ([FAIL, JUNK, FAIL, JUNK, YES], None, "judge-too-few-valid-votes:1/5"),
        ([FAIL, YES, YES, NO, NO], None, "judge-tie:2-2"),
    ],
)
def test_judge_majority(script, correct, reason):
    judge = ScriptedJudge(script)
    outcome = judge_answer(judge, "infinitely many", "there are infinitely many", "How many?")
    assert (outcome.correct, outcome.reason) == (correct, reason)
    assert len(set(judge.seeds)) == 5  # distinct seeds per vote


def test_majority_vote_needs_more_than_half_of_all_votes():
    assert majority_vote([True, True, None, None, None], 5).correct is None
    assert majority_vote([True, True, False, None, None], 5).correct is True


def test_judge_sees_question_gold_and_answer():
    judge = ScriptedJudge([YES] * 5)
    seen = []
    judge.ask = lambda messages, *, seed: seen.append(messages) or YES
    judge_answer(judge, "GOLD-TEXT", "ANSWER-TEXT", "QUESTION-TEXT")
    user = seen[0][-1]["content"]
    assert "GOLD-TEXT" in user and "ANSWER-TEXT" in user and "QUESTION-TEXT" in user


@pytest.mark.parametrize(
    ("judge", "status", "correct"),
    [
        (None, "ungraded", None),
        (ScriptedJudge([YES] * 5), "correct", True),
        (ScriptedJudge([NO] * 5), "wrong", False),
        (ScriptedJudge([FAIL] * 5), "ungraded", None),
    ],
)
def test_grade_response_description(judge, status, correct):
    result = grade_response(
        "Infinitely many.", "</think>### The final answer is: infinitely many", answer_type="description", judge=judge
    )
    assert (result.status, result.correct, result.extracted) == (status, correct, "infinitely many")
    if judge is None:
        assert result.reason == "no-judge"


def test_description_cut_off_in_thinking_is_no_answer_without_asking():
    judge = ScriptedJudge([])
    result = grade_response("x", "<think>never finished", answer_type="description", judge=judge)
    assert result.status == "no_answer" and judge.seeds == []
