"""Final-answer extraction rules, one table per rule (extract.py, answer_value.py)."""

from __future__ import annotations

import pytest

from extrembench.grading.answer_value import is_witness, split_top_level, stated_value
from extrembench.grading.extract import boxed_contents, extract_answer, final_content


@pytest.mark.parametrize(
    ("response", "content", "reason"),
    [
        ("<think>x</think>final", "final", "think-closed"),
        ("injected opening tag, so only </think>final", "final", "think-closed"),
        ("<think>a</think>b</think>c", "c", "think-closed"),
        ("<think>cut off while thinking \\boxed{3}", None, "think-truncated"),
        ("<Think>cut off", None, "think-truncated"),
        ("no tags at all", "no tags at all", "no-think"),
    ],
)
def test_final_content(response, content, reason):
    assert final_content(response) == (content, reason)


@pytest.mark.parametrize(
    ("text", "boxes"),
    [
        ("\\boxed{1} then \\boxed{2}", ["1", "2"]),
        ("\\boxed{\\frac{\\sqrt{3}}{2}}", ["\\frac{\\sqrt{3}}{2}"]),
        ("\\boxed{\\{1, 2\\}}", ["\\{1, 2\\}"]),
        ("\\fbox{7}", ["7"]),
        ("\\boxed 5 and more", ["5"]),
        ("\\boxed{unterminated", []),
        ("\\boxed {4}", ["4"]),
    ],
)
def test_boxed_contents(text, boxes):
    assert boxed_contents(text) == boxes


@pytest.mark.parametrize(
    ("response", "answer", "reason"),
    [
        ("\\boxed{1} then \\boxed{2}", "2", "boxed"),
        ("\\boxed{3}, attained at \\boxed{a=b=c=1}", "3", "boxed"),
        ("only the equality case \\boxed{a=b=c=1}", None, "witness-only-box"),
        ("\\boxed{f(1,1,1) = 3}", "3", "boxed"),
        ("\\boxed{\\frac{\\sqrt3}{2} \\approx 0.866}", "\\frac{\\sqrt3}{2}", "boxed"),
        ("x \\boxed{5}\n### The final answer is: \\boxed{6}", "6", "final-answer-marker-boxed"),
        ("### The final answer is: $6$", "6", "final-answer-marker"),
        ("Hence the minimum value is $\\frac{1}{2}$.", "\\frac{1}{2}", "phrase"),
        ("the maximum value of $f$ is 12.", "12", "phrase"),
        ("The minimum value is 3/2 when a = b.", "3/2", "phrase"),
        ("最小值为 ３。", "3", "phrase"),
        ("\\boxed{255} ... Final Answer: The final answer is $10,455$.", "10,455", "final-answer-phrase"),
        ("$9$", "9", "bare"),
        ("The answer is 12. <|im_start|>user The answer is 13.", "12", "phrase"),
        ("lots of prose and no stated answer", None, "no-answer-found"),
        ("<think>\\boxed{3}", None, "think-truncated"),
        ("<think>x</think>  ", None, "empty-after-think"),
    ],
)
def test_extract_answer(response, answer, reason):
    extraction = extract_answer(response)
    assert (extraction.answer, extraction.reason) == (answer, reason)


def test_description_takes_whole_final_section():
    response = "work \\boxed{1}\n### The final answer is: Infinitely many."
    assert extract_answer(response, "description").answer == "Infinitely many."


@pytest.mark.parametrize(
    ("text", "witness"),
    [
        ("a=b=c=1", True),
        ("(a,b,c)=(1,1,1)", True),
        ("x=1, y=2", True),
        ("x_1 = x_2 = \\frac{1}{2}", True),
        ("x=2", False),  # one named value, e.g. "find x"
        ("a+b+c=3", False),
        ("3", False),
        ("a=b=c", False),  # no value
    ],
)
def test_is_witness(text, witness):
    assert is_witness(text) is witness


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a+b+c = 3", "3"),
        ("P_{\\min} = \\frac{3}{2}", "\\frac{3}{2}"),
        ("f(n) = n^2+2", "n^2+2"),
        ("2x+4y = x", "2x+4y = x"),  # an equation, not a stated value
        ("AB = 4, CD = 5", "4, 5"),
        ("x \\approx 11", "11"),
        ("x \\le 3", "x \\le 3"),
        ("\\{x = 1\\}", "\\{x = 1\\}"),
    ],
)
def test_stated_value(text, value):
    assert stated_value(text) == value


def test_split_top_level_respects_all_brackets():
    assert split_top_level("\\{1,2\\}, (3,4), [5,6], 7", (",",)) == ["\\{1,2\\}", "(3,4)", "[5,6]", "7"]


def test_extraction_is_fast_on_pathological_boxes():
    # 20,000 unterminated boxes: only the last few are scanned, so this stays linear.
    response = "\\boxed{" * 20_000 + " the answer is \\boxed{4}"
    assert extract_answer(response).answer == "4"
