"""The grade rule's job: one generations shard against its problem table → one grades shard."""

from __future__ import annotations

import logging
from pathlib import Path

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.grading import GRADER_NAME, GRADER_VERSION, GradeResult
from extrembench.grading.extract import closes_thinking, reasoning_answer
from extrembench.grading.grade import grade_all_modes, grade_many, modes_disagree
from extrembench.llm.judge import JudgeFailed, LLMJudge, judge_record_json

log = logging.getLogger(__name__)


def grade_shard(
    generations: Path,
    problems: Path,
    output: Path,
    *,
    dag_node: str,
    mode: str,
    timeout_s: float,
    judge: LLMJudge | None = None,
    scope: str = "final",
    reasons: bool = False,
) -> None:
    """Grade the final content in every mode; the row's verdict is `mode`'s, and the other modes'
    verdicts are kept so disagreements are counted, not hidden. A sample whose final section states
    no answer but that boxed one inside its reasoning is graded on that box too (`mode`): kept as
    `correct_anywhere`, and the row's verdict when `scope` is 'anywhere' (docs/grading.md). The mode,
    timeout and scope are recorded in the file's metadata, so `extrembench audit` can grade it again,
    and so is the judge (model, sampling, votes), so audit re-derives its verdicts from the recorded
    votes. Too many failed judge votes fail the job (JudgeFailed, naming the first error). `reasons`
    is the model's registry field (cut_off_in_reasoning), recorded for audit too."""

    by_id = {p["problem_id"]: p for p in read_artifact(problems, "problems").to_pylist()}
    samples = read_artifact(generations, "generations").to_pylist()
    rows = grade_samples(
        samples, by_id, dag_node=dag_node, mode=mode, timeout_s=timeout_s, judge=judge, scope=scope, reasons=reasons
    )
    failure = judge.failure() if judge is not None else None
    if failure is not None:
        log.error("%s", failure)  # into the rule's log too, not only the traceback on stderr
        raise JudgeFailed(failure)
    if judge is not None and judge.failed:
        log.warning(
            "%d of %d judge votes failed (within models.%s.max_failure_rate); first error: %s",
            judge.failed,
            judge.asked,
            judge.caller.model,
            judge.first_error,
        )
    write_artifact(
        rows,
        output,
        "grades",
        inputs=[generations, problems],
        # the judge's record lets audit read every vote back from the cache (llm/judge.py)
        extra_metadata={
            "grading_mode": mode,
            "grading_timeout_s": repr(float(timeout_s)),
            "grading_scope": scope,
            "model_reasons": "true" if reasons else "false",
            "judge": judge_record_json(judge),
        },
    )
    log.info("graded %d samples: %d correct", len(rows), sum(bool(r["correct"]) for r in rows))


def cut_off_in_reasoning(sample: dict) -> bool:
    """A reasoning model's reply stopped by max_tokens that shows no sign its reasoning ended: no
    closing think tag in the content and nothing split off as reasoning. Whatever the server's
    parser did with it (a parser that expects an opening tag the chat template put in the prompt
    hands the whole unfinished thought over as content), it is a thought, not an answer."""
    content = sample["content"]
    return (
        sample["finish_reason"] == "length"
        and not sample["reasoning_content"]
        and content is not None
        and not closes_thinking(content)
    )


def _as_cut_off(sample: dict) -> dict:
    return {**sample, "content": None, "reasoning_content": sample["content"], "cut_off": True}


def grade_samples(
    samples: list[dict],
    by_id: dict[str, dict],
    *,
    dag_node: str,
    mode: str,
    timeout_s: float,
    judge=None,
    scope: str = "final",
    reasons: bool = False,
) -> list[dict]:
    """The grade rows of generation rows `samples` against problem rows `by_id` (by problem_id):
    what grade_shard writes, and what audit recomputes to compare with it."""
    if reasons:
        samples = [_as_cut_off(s) if cut_off_in_reasoning(s) else s for s in samples]
    # A sample without final content (cut off inside its reasoning, an engine error, an abstaining
    # solver) is no answer: nothing to extract, and never sent to the judge.
    answered = [i for i, sample in enumerate(samples) if sample["content"] is not None]
    cases = [
        {
            "id": f"{samples[i]['problem_id']}#{samples[i]['trial']}",
            "gold": by_id[samples[i]["problem_id"]]["answer"],
            "response": samples[i]["content"],
            "answer_type": by_id[samples[i]["problem_id"]]["answer_type"],
            "question": by_id[samples[i]["problem_id"]]["statement"],
        }
        for i in answered
    ]
    verdicts = dict(zip(answered, grade_all_modes(cases, timeout=timeout_s, judge=judge)))
    in_reasoning = {
        i: found
        for i, sample in enumerate(samples)
        if sample["finish_reason"] != "failed"
        and (i not in verdicts or verdicts[i][mode].status == "no_answer")
        and (found := reasoning_answer(sample["content"], sample["reasoning_content"])) is not None
    }
    reasoning_cases = [
        {
            "gold": by_id[samples[i]["problem_id"]]["answer"],
            "response": f"\\boxed{{{found}}}",
            "answer_type": by_id[samples[i]["problem_id"]]["answer_type"],
            "question": by_id[samples[i]["problem_id"]]["statement"],
        }
        for i, found in in_reasoning.items()
    ]
    reasoning_verdicts = dict(
        zip(
            in_reasoning,
            grade_many(reasoning_cases, mode=mode, timeout=timeout_s, judge=judge) if reasoning_cases else [],
        )
    )
    rows = []
    for index, sample in enumerate(samples):
        problem = by_id[sample["problem_id"]]
        if index in verdicts:
            by_mode = verdicts[index]
            result, disagree = by_mode[mode], modes_disagree(by_mode)
            math_verify, amo_official = by_mode["math-verify"].correct, by_mode["amo-official"].correct
        elif sample["finish_reason"] == "failed":
            # The request failed (endpoint error), the model never answered: left out of accuracy.
            result = GradeResult(correct=None, extracted=None, status="failed", reason=sample["error"])
            disagree, math_verify, amo_official = False, None, None
        else:
            result = GradeResult(
                correct=False,
                extracted=None,
                status="no_answer",
                reason=(
                    "cut off inside the reasoning (finish_reason=length, no closing think tag)"
                    if sample.get("cut_off")
                    else f"no content (finish_reason={sample['finish_reason']})"
                ),
            )
            disagree, math_verify, amo_official = False, False, False
        correct_final = correct_anywhere = result.correct
        if index in reasoning_verdicts:
            correct_anywhere = reasoning_verdicts[index].correct
            if scope == "anywhere":
                boxed = reasoning_verdicts[index]
                result = GradeResult(boxed.correct, boxed.extracted, boxed.status, f"reasoning-{boxed.reason}")
        rows.append(
            {
                "benchmark": sample["benchmark"],
                "model": sample["model"],
                "problem_id": sample["problem_id"],
                "trial": sample["trial"],
                "source_sha256": sample["source_sha256"],
                "cache_key": sample["cache_key"],
                "gold": problem["answer"],
                "answer_type": problem["answer_type"],
                "sense": problem["sense"],
                "technique": problem["technique"],
                "difficulty": problem["difficulty"],
                "certificate_kind": problem["certificate_kind"],
                "extracted": result.extracted,
                "correct": result.correct,
                "status": result.status,
                "reason": result.reason,
                "correct_math_verify": math_verify,
                "correct_amo_official": amo_official,
                "modes_disagree": disagree,
                "finish_reason": sample["finish_reason"],
                "prompt_tokens": sample["prompt_tokens"],
                "completion_tokens": sample["completion_tokens"],
                "grader": GRADER_NAME,
                "grader_version": GRADER_VERSION,
                "scope": scope,
                "correct_final": correct_final,
                "correct_anywhere": correct_anywhere,
                "reasoning_answer": in_reasoning.get(index),
                "dag_node": dag_node,
            }
        )
    return rows
