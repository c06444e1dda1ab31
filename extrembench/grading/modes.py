"""The three grading modes, so published numbers can be reproduced.

- default: ours (extract.py + equivalence.equivalent_default).
- math-verify: plain Math-Verify as the ExtremBench paper used it: verify(parse(gold),
  parse(response)), Math-Verify's own extraction over the whole response, default options.
- amo-official: AMO-Bench's rules: our extraction of the "### The final answer is:" answer,
  then verify(gold, pred) or verify(pred, gold) at 4-decimal rounding for number/set answers,
  substitution at sample points for variable answers, 5-vote judge for descriptions.
"""

from __future__ import annotations

from math_verify import parse

from extrembench.grading.equivalence import equivalent_default, parse_math, prepare, substitution_verdict, verify_quiet

MODES = ("default", "math-verify", "amo-official")
AMO_FLOAT_ROUNDING = 4


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"unknown grading mode {mode!r}; choose one of {', '.join(MODES)}")
    return mode


_MATH_MARKUP = ("$", "\\boxed", "\\(", "\\[")


def parse_plain(text: str) -> list:
    """Math-Verify's parse with its default targets. A bare answer string ('\\{1, 2, 3\\}', as
    gold answers are stored) is read as inline math: unwrapped, Math-Verify's extraction would
    take the last plain number ('3') from it."""
    if not any(markup in text for markup in _MATH_MARKUP):
        text = f"${text}$"
    return parse(text, parsing_timeout=None)


def equivalent_math_verify(gold: str, predicted: str) -> bool:
    gold_parsed, pred_parsed = parse_plain(gold), parse_plain(predicted)
    return bool(gold_parsed and pred_parsed) and verify_quiet(gold_parsed, pred_parsed)


def grade_plain_math_verify(gold: str, response: str) -> tuple[bool | None, str | None]:
    """verify(parse(gold), parse(response)) over the whole response: (correct, extracted), or
    (None, None) when Math-Verify extracts nothing from the response."""
    pred_parsed = parse(response, parsing_timeout=None)
    if not pred_parsed:
        return None, None
    extracted = pred_parsed[-1] if isinstance(pred_parsed[-1], str) else str(pred_parsed[0])
    gold_parsed = parse_plain(gold)
    return bool(gold_parsed) and verify_quiet(gold_parsed, pred_parsed), extracted


def equivalent_amo(gold: str, predicted: str, answer_type: str) -> bool:
    gold_parsed = parse_math(prepare(gold, answer_type))
    pred_parsed = parse_math(prepare(predicted, answer_type))
    if not gold_parsed or not pred_parsed:
        return False
    if answer_type == "variable":
        verdict = substitution_verdict(gold_parsed[0], pred_parsed[0])
        if verdict is not None:
            return verdict
    return verify_quiet(gold_parsed, pred_parsed, float_rounding=AMO_FLOAT_ROUNDING) or verify_quiet(
        pred_parsed, gold_parsed, float_rounding=AMO_FLOAT_ROUNDING
    )


def equivalent(gold: str, predicted: str, *, answer_type: str = "number", mode: str = "default") -> bool:
    """Whether `predicted` (an extracted answer) equals `gold` under `mode`. No timeout here:
    run it under grade_many / grade_response for untrusted input."""
    check_mode(mode)
    if mode == "math-verify":
        return equivalent_math_verify(gold, predicted)
    if mode == "amo-official":
        return equivalent_amo(gold, predicted, answer_type)
    return equivalent_default(gold, predicted, answer_type)
