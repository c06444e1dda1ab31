"""The reasoning corpus (tests/data/reasoning_corpus.yaml) graded the way the grade stage grades:
one entry → one generation row (content and reasoning as some server split them) → grade_samples."""

from __future__ import annotations

from pathlib import Path

import yaml

from extrembench.grading.shard import grade_samples
from support.rows import problem_row

CORPUS = yaml.safe_load((Path(__file__).resolve().parents[1] / "data" / "reasoning_corpus.yaml").read_text())
PROBLEM = problem_row("p", answer="3", statement="Find the least value.")


def sample(entry: dict, content: str | None, reasoning: str | None) -> dict:
    return {
        "benchmark": "t",
        "model": "m",
        "problem_id": "p",
        "trial": 0,
        "source_sha256": "0" * 64,
        "cache_key": entry["id"],
        "content": content,
        "reasoning_content": reasoning,
        "finish_reason": entry["finish"],
        "error": None,
        "prompt_tokens": 10,
        "completion_tokens": 10,
    }


def grade(entry: dict, content: str | None, reasoning: str | None, *, reasons: bool) -> dict:
    """The grade row of `entry` with the server's split (`content`, `reasoning`)."""
    (row,) = grade_samples(
        [sample(entry, content, reasoning)],
        {"p": PROBLEM},
        dag_node="t",
        mode="default",
        timeout_s=5.0,
        reasons=reasons,
    )
    return row


def verdict(row: dict) -> str:
    return "no_answer" if row["status"] == "no_answer" else ("correct" if row["correct"] else "wrong")
