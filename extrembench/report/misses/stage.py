"""The misses rule's job: one grades shard (with its problems) → one misses shard.

The engine is extrembench/report/misses/classify.py; this module only reads the artifacts, keeps one
ProblemFacts per problem (so landmarks are computed once per problem, however many samples miss
it) and writes. Answers left in the reasoning come graded from the grade rows (grading.scope).
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.seeds import name_digest
from extrembench.report.misses.classes import MISSES_VERSION
from extrembench.report.misses.classify import (
    ProblemFacts,
    Verdict,
    classify_claim,
    problem_facts,
    read_claim,
    witness_json,
)

log = logging.getLogger(__name__)


def problem_seed(problem_id: str) -> int:
    """The landmark search's seed: from the problem id alone, the same in every process."""
    return int.from_bytes(name_digest("misses", problem_id)[:4], "big")


def classify_row(grade: dict, facts: ProblemFacts) -> Verdict:
    """One grade row's verdict. An answer boxed only in the reasoning is the grader's reading
    (`reasoning_answer`, `correct_anywhere`), whichever scope the row's verdict follows."""
    status = grade["status"]
    if grade.get("reasoning_answer") is not None:
        right = {True: "right", False: "wrong", None: "ungraded"}[grade.get("correct_anywhere")]
        return Verdict("answer_in_reasoning_only", reason=f"boxed only inside the reasoning ({right})")
    if status == "correct":
        return Verdict("correct")
    if status == "no_answer":
        return Verdict("no_answer", reason=grade["reason"] or "")
    if grade["extracted"] is None:  # ungraded before anything was extracted (a grader timeout)
        return Verdict("unparsable", reason=f"the grader extracted nothing ({grade['reason']})")
    return classify_claim(read_claim(grade["extracted"], facts.variables), facts)


def misses_shard(grades: Path, problems: Path, output: Path, *, dag_node: str) -> None:
    facts = {
        row["problem_id"]: problem_facts(row, problem_seed(row["problem_id"]))
        for row in read_artifact(problems, "problems").to_pylist()
    }
    rows = []
    for grade in read_artifact(grades, "grades").to_pylist():
        if grade["status"] == "failed":  # the model never answered: out of every figure (docs/metrics.md)
            continue
        verdict = classify_row(grade, facts[grade["problem_id"]])
        in_reasoning = verdict.miss_class == "answer_in_reasoning_only"
        rows.append(
            {
                "benchmark": grade["benchmark"],
                "model": grade["model"],
                "problem_id": grade["problem_id"],
                "trial": grade["trial"],
                "source_sha256": grade["source_sha256"],
                "cache_key": grade["cache_key"],
                "sense": grade["sense"],
                "gold": grade["gold"],
                "certificate_kind": grade["certificate_kind"],
                "grade_status": grade["status"],
                "extracted": grade["extracted"],
                "miss_class": verdict.miss_class,
                "kind": verdict.kind,
                "proof": verdict.proof,
                "witness_json": witness_json(verdict),
                "claim_value": verdict.claim_value,
                "opposite_extremum": verdict.opposite_extremum,
                "reasoning_answer": grade["reasoning_answer"] if in_reasoning else None,
                "reasoning_correct": grade["correct_anywhere"] if in_reasoning else None,
                "reason": verdict.reason,
                "work": verdict.work,
                "misses_version": MISSES_VERSION,
                "dag_node": dag_node,
            }
        )
    write_artifact(rows, output, "misses", inputs=[grades, problems])
    log.info("misses: %s", dict(sorted(Counter(r["miss_class"] for r in rows).items())))
