"""The misses rule's job: one grades shard (with its generations and problems) → one misses shard.

The engine is extrembench/report/misses.py; this module only reads the artifacts, keeps one
ProblemFacts per problem (so landmarks are computed once per problem, however many samples miss
it), grades the answers found only inside the reasoning with the project's grader, and writes.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.seeds import name_digest
from extrembench.grading.extract import reasoning_answer
from extrembench.grading.grade import grade_many
from extrembench.report.miss_classes import MISSES_VERSION
from extrembench.report.misses import (
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


def classify_row(grade: dict, generation: dict | None, facts: ProblemFacts) -> tuple[Verdict, str | None]:
    """One grade row's verdict, and the answer found only in the reasoning (to be graded)."""
    status = grade["status"]
    if status == "correct":
        return Verdict("correct"), None
    if status == "no_answer":
        found = reasoning_answer(generation.get("content"), generation.get("reasoning_content")) if generation else None
        if found is not None:
            return Verdict("answer_in_reasoning_only", reason="boxed only inside the reasoning"), found
        return Verdict("no_answer", reason=grade["reason"] or ""), None
    if grade["extracted"] is None:  # ungraded before anything was extracted (a grader timeout)
        return Verdict("unparsable", reason=f"the grader extracted nothing ({grade['reason']})"), None
    return classify_claim(read_claim(grade["extracted"], facts.variables), facts), None


def misses_shard(
    grades: Path, generations: Path, problems: Path, output: Path, *, dag_node: str, mode: str, timeout_s: float
) -> None:
    """mode, timeout_s: the config's grading settings, used to grade answers left in the reasoning."""
    facts = {
        row["problem_id"]: problem_facts(row, problem_seed(row["problem_id"]))
        for row in read_artifact(problems, "problems").to_pylist()
    }
    by_sample = {(g["problem_id"], g["trial"]): g for g in read_artifact(generations, "generations").to_pylist()}
    rows, pending = [], []
    for grade in read_artifact(grades, "grades").to_pylist():
        if grade["status"] == "failed":  # the model never answered: out of every figure (docs/metrics.md)
            continue
        verdict, found = classify_row(
            grade, by_sample.get((grade["problem_id"], grade["trial"])), facts[grade["problem_id"]]
        )
        if found is not None:
            pending.append(
                (
                    len(rows),
                    {"gold": grade["gold"], "response": f"\\boxed{{{found}}}", "answer_type": grade["answer_type"]},
                )
            )
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
                "reasoning_answer": found,
                "reasoning_correct": None,
                "reason": verdict.reason,
                "work": verdict.work,
                "misses_version": MISSES_VERSION,
                "dag_node": dag_node,
            }
        )
    if pending:
        results = grade_many([case for _, case in pending], mode=mode, timeout=timeout_s)
        for (index, _), result in zip(pending, results):
            rows[index]["reasoning_correct"] = result.correct
            rows[index]["reason"] += (
                f" ({'right' if result.correct else 'wrong' if result.correct is False else 'ungraded'})"
            )
    write_artifact(rows, output, "misses", inputs=[grades, generations, problems])
    log.info("misses: %s", dict(sorted(Counter(r["miss_class"] for r in rows).items())))
