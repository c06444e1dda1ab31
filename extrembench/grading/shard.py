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
    _check_judge(judge)
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


def _check_judge(judge: LLMJudge | None) -> None:
    """Fail the job when too many judge votes failed; below the threshold, say how many did."""
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
    cases = [_case(samples[i], by_id, samples[i]["content"], with_id=True) for i in answered]
    verdicts = dict(zip(answered, grade_all_modes(cases, timeout=timeout_s, judge=judge)))
    in_reasoning, reasoning_verdicts = _reasoning_verdicts(
        samples, by_id, verdicts, mode=mode, timeout_s=timeout_s, judge=judge
    )
    rows = []
    for index, sample in enumerate(samples):
        result, disagree, math_verify, amo_official = _final_verdict(sample, verdicts.get(index), mode)
        correct_final = correct_anywhere = result.correct
        if index in reasoning_verdicts:
            correct_anywhere = reasoning_verdicts[index].correct
            if scope == "anywhere":
                boxed = reasoning_verdicts[index]
                result = GradeResult(boxed.correct, boxed.extracted, boxed.status, f"reasoning-{boxed.reason}")
        row = grade_row(sample, by_id[sample["problem_id"]], result, dag_node=dag_node, scope=scope)
        row.update(
            correct_math_verify=math_verify,
            correct_amo_official=amo_official,
            modes_disagree=disagree,
            correct_final=correct_final,
            correct_anywhere=correct_anywhere,
            reasoning_answer=in_reasoning.get(index),
        )
        rows.append(row)
    return rows


def _reasoning_verdicts(
    samples: list[dict], by_id: dict[str, dict], verdicts: dict[int, dict], *, mode: str, timeout_s: float, judge
) -> tuple[dict[int, str], dict[int, GradeResult]]:
    """(sample index -> the answer boxed in its reasoning, -> that answer's verdict in `mode`) of the
    samples that state no final answer (never a failed request)."""
    in_reasoning = {
        i: found
        for i, sample in enumerate(samples)
        if sample["finish_reason"] != "failed"
        and (i not in verdicts or verdicts[i][mode].status == "no_answer")
        and (found := reasoning_answer(sample["content"], sample["reasoning_content"])) is not None
    }
    reasoning_cases = [_case(samples[i], by_id, f"\\boxed{{{found}}}") for i, found in in_reasoning.items()]
    reasoning_verdicts = dict(
        zip(
            in_reasoning,
            grade_many(reasoning_cases, mode=mode, timeout=timeout_s, judge=judge) if reasoning_cases else [],
        )
    )
    return in_reasoning, reasoning_verdicts


def _case(sample: dict, by_id: dict[str, dict], response: str, *, with_id: bool = False) -> dict:
    """One grading case: the sample's problem's gold, answer type and statement, and `response`."""
    problem = by_id[sample["problem_id"]]
    case = {
        "gold": problem["answer"],
        "response": response,
        "answer_type": problem["answer_type"],
        "question": problem["statement"],
    }
    return {"id": f"{sample['problem_id']}#{sample['trial']}", **case} if with_id else case


def _final_verdict(sample: dict, by_mode: dict | None, mode: str) -> tuple[GradeResult, bool, bool | None, bool | None]:
    """(the row's verdict in `mode`, whether the modes disagree, Math-Verify's and AMO's verdicts)
    of a sample graded in every mode (`by_mode`), or of one with no final content (None)."""
    if by_mode is not None:
        return by_mode[mode], modes_disagree(by_mode), by_mode["math-verify"].correct, by_mode["amo-official"].correct
    if sample["finish_reason"] == "failed":
        # The request failed (endpoint error), the model never answered: left out of accuracy.
        return GradeResult(correct=None, extracted=None, status="failed", reason=sample["error"]), False, None, None
    reason = (
        "cut off inside the reasoning (finish_reason=length, no closing think tag)"
        if sample.get("cut_off")
        else f"no content (finish_reason={sample['finish_reason']})"
    )
    return GradeResult(correct=False, extracted=None, status="no_answer", reason=reason), False, False, False


def grade_row(sample: dict, problem: dict, result: GradeResult, *, dag_node: str, scope: str) -> dict:
    """A GRADES row (core/artifacts.py) of one generation row and its problem row, with the verdict
    `result`; the per-mode columns and the reasoning reading are filled by grade_samples."""
    return {
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
        "correct_math_verify": None,
        "correct_amo_official": None,
        "modes_disagree": False,
        "finish_reason": sample["finish_reason"],
        "prompt_tokens": sample["prompt_tokens"],
        "completion_tokens": sample["completion_tokens"],
        "grader": GRADER_NAME,
        "grader_version": GRADER_VERSION,
        "scope": scope,
        "correct_final": None,
        "correct_anywhere": None,
        "reasoning_answer": None,
        "dag_node": dag_node,
    }
