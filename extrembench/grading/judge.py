"""LLM-judge majority vote for descriptive answers.

The judge object is the caller's (the project's OpenAI-compatible client + response cache):
anything with `ask(messages, *, seed) -> str` that raises on failure. A failed or unparsable
vote is not a 'no' vote; without a majority of valid votes the sample is ungraded, never wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

DEFAULT_VOTES = 5
BASE_SEED = 1000

_SYSTEM = (
    "You grade answers to olympiad mathematics problems. Decide whether the student's final "
    "answer is mathematically equivalent to the reference answer. Ignore the student's "
    "reasoning, wording and formatting; judge only the final answer. End your reply with a "
    "line that is exactly 'VERDICT: CORRECT' or 'VERDICT: INCORRECT'."
)
_VERDICT = re.compile(r"VERDICT\s*:\s*\**\s*(CORRECT|INCORRECT)\b", re.IGNORECASE)


class Judge(Protocol):
    def ask(self, messages: list[dict], *, seed: int) -> str: ...


@dataclass(frozen=True)
class JudgeOutcome:
    correct: bool | None  # None: no majority of valid votes
    reason: str


def judge_messages(gold: str, answer: str, question: str | None) -> list[dict]:
    problem = f"Problem:\n{question}\n\n" if question else ""
    user = f"{problem}Reference answer:\n{gold}\n\nStudent's final answer:\n{answer}"
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def parse_vote(reply: str) -> bool | None:
    """The last VERDICT line of a reply: True/False, or None when there is none."""
    matches = _VERDICT.findall(reply or "")
    return matches[-1].upper() == "CORRECT" if matches else None


def majority_vote(votes: list[bool | None], total: int) -> JudgeOutcome:
    """Decide from votes (None = failed/unparsable). Needs more than half of `total` valid."""
    valid = [v for v in votes if v is not None]
    yes = sum(valid)
    no = len(valid) - yes
    if len(valid) <= total // 2:
        return JudgeOutcome(None, f"judge-too-few-valid-votes:{len(valid)}/{total}")
    if yes == no:
        return JudgeOutcome(None, f"judge-tie:{yes}-{no}")
    return JudgeOutcome(yes > no, f"judge:{yes}-{no}")


def judge_answer(
    judge: Judge, gold: str, answer: str, question: str | None, votes: int = DEFAULT_VOTES
) -> JudgeOutcome:
    """Ask the judge `votes` times with distinct seeds and take the majority."""
    messages = judge_messages(gold, answer, question)
    results: list[bool | None] = []
    for index in range(votes):
        try:
            reply = judge.ask(messages, seed=BASE_SEED + index)
        except Exception:  # any judge failure is a missing vote, never a 'no'
            results.append(None)
            continue
        results.append(parse_vote(reply))
    return majority_vote(results, votes)
