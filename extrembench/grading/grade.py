"""Grade one response: extraction + equivalence (in a worker with a hard timeout) or the judge.

Descriptive answers go to the caller's judge in the calling process (the judge holds an HTTP
client and cache, which must not cross a process boundary); everything sympy touches runs in
worker processes under a hard timeout.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from extrembench.grading.equivalence import parse_math, prepare
from extrembench.grading.extract import extract_answer
from extrembench.grading.judge import judge_answer
from extrembench.grading.magnitude import far_apart, log10_size
from extrembench.grading.modes import MODES, check_mode, equivalent, grade_plain_math_verify
from extrembench.grading.pool import HardTimeoutPool

ANSWER_TYPES = ("number", "set", "variable", "description")


@dataclass(frozen=True)
class GradeResult:
    correct: bool | None  # None = ungraded (judge failure, timeout)
    extracted: str | None  # the extracted final answer text; None = no answer found
    status: str  # 'correct' | 'wrong' | 'no_answer' | 'ungraded'
    reason: str  # the rule that decided, e.g. 'boxed', 'think-truncated', 'timeout'

    def as_dict(self) -> dict:
        return {"correct": self.correct, "extracted": self.extracted, "status": self.status, "reason": self.reason}


def _verdict(correct: bool, extracted: str, reason: str) -> GradeResult:
    correct = bool(correct)  # sympy may hand back its own Boolean
    return GradeResult(correct, extracted, "correct" if correct else "wrong", reason)


def no_answer(reason: str) -> GradeResult:
    return GradeResult(False, None, "no_answer", reason)


def ungraded(reason: str, extracted: str | None = None) -> GradeResult:
    return GradeResult(None, extracted, "ungraded", reason)


def check_answer_type(answer_type: str) -> str:
    if answer_type not in ANSWER_TYPES:
        raise ValueError(f"unknown answer_type {answer_type!r}; choose one of {', '.join(ANSWER_TYPES)}")
    return answer_type


def grade_math_in_process(gold: str, response: str, answer_type: str, mode: str) -> GradeResult:
    """Grade a number/set/variable answer with no timeout (run it under the pool)."""
    if mode == "math-verify":
        # Plain Math-Verify: its own extraction over the whole response.
        correct, extracted = grade_plain_math_verify(gold, response)
        if correct is None:
            return no_answer("math-verify-no-parse")
        return _verdict(correct, extracted, "math-verify")
    extraction = extract_answer(response, answer_type)
    if extraction.answer is None:
        return no_answer(extraction.reason)
    correct = equivalent(gold, extraction.answer, answer_type=answer_type, mode=mode)
    return _verdict(correct, extraction.answer, extraction.reason)


def magnitude_verdict(gold: str, response: str, answer_type: str, mode: str) -> GradeResult:
    """After a timeout: `wrong` when the extracted answer is provably more than 10 times larger or
    smaller than the gold (9^{9^{9^9}} vs 3), bounded by logarithms without building the number;
    otherwise still ungraded."""

    extraction = extract_answer(response, answer_type)
    if extraction.answer is None:
        return ungraded("timeout")
    size = log10_size(prepare(extraction.answer, answer_type))
    if size is None:
        return ungraded("timeout", extraction.answer)
    parsed = parse_math(prepare(gold, answer_type))  # our validated gold: small, parses fast
    value = complex(parsed[0].evalf(30)) if parsed and hasattr(parsed[0], "evalf") else None
    if value is None or value.imag != 0 or not far_apart(size, value.real):
        return ungraded("timeout", extraction.answer)
    if size.lo > 0:
        bound = "log10|answer| > 1e308" if size.lo == float("inf") else f"log10|answer| >= {size.lo:.6g}"
    else:
        bound = f"log10|answer| <= {size.hi:.6g}"
    return GradeResult(False, extraction.answer, "wrong", f"magnitude-far ({bound}, gold {value.real:.6g})")


def grade_task(task: list[str]) -> dict:
    """Worker entry point (pool.py): [gold, response, answer_type, mode] -> GradeResult dict; a
    fifth item "magnitude" asks for the magnitude check that follows a timeout."""
    if len(task) == 5 and task[4] == "magnitude":
        return magnitude_verdict(*task[:4]).as_dict()
    return grade_math_in_process(*task).as_dict()


_WORKER_TARGET = "extrembench.grading.grade:grade_task"


def grade_description(gold: str, response: str, question: str | None, judge) -> GradeResult:
    extraction = extract_answer(response, "description")
    if extraction.answer is None:
        return no_answer(extraction.reason)
    if judge is None:
        return ungraded("no-judge", extraction.answer)
    outcome = judge_answer(judge, gold, extraction.answer, question)
    if outcome.correct is None:
        return ungraded(outcome.reason, extraction.answer)
    return _verdict(outcome.correct, extraction.answer, outcome.reason)


def _from_outcome(outcome) -> GradeResult:
    if outcome.timed_out:
        return ungraded("timeout")
    if outcome.error is not None:
        return ungraded(f"grader-error:{outcome.error[:120]}")
    return GradeResult(**outcome.value)


_shared_pools: dict[int, HardTimeoutPool] = {}
_shared_pools_lock = threading.Lock()


def _shared_pool(workers: int) -> HardTimeoutPool:
    """One long-lived pool per size, so repeated calls do not pay for process start-up."""
    with _shared_pools_lock:
        if workers not in _shared_pools:
            _shared_pools[workers] = HardTimeoutPool(_WORKER_TARGET, workers)
        return _shared_pools[workers]


@atexit.register
def close_shared_pools() -> None:
    """Stop the long-lived worker processes (they are restarted on the next call)."""
    with _shared_pools_lock:
        for pool in _shared_pools.values():
            pool.close()
        _shared_pools.clear()


def grade_response(
    gold: str,
    response: str,
    *,
    answer_type: str = "number",
    mode: str = "default",
    question: str | None = None,
    judge=None,
    timeout: float = 5.0,
) -> GradeResult:
    """Grade one response. `timeout` is a hard limit enforced by a worker process."""
    return grade_many(
        [{"gold": gold, "response": response, "answer_type": answer_type, "question": question}],
        mode=mode,
        workers=1,
        timeout=timeout,
        judge=judge,
    )[0]


def grade_many(
    cases: Iterable[dict], *, mode: str = "default", workers: int | None = None, timeout: float = 5.0, judge=None
) -> list[GradeResult]:
    """Grade cases (dicts with gold, response, optional answer_type, id, question) on worker
    processes (all cores by default), each math case under a hard `timeout` in seconds."""
    check_mode(mode)
    cases = list(cases)
    results: list[GradeResult | None] = [None] * len(cases)
    math_tasks: list[tuple[int, tuple[str, str, str, str]]] = []
    for position, case in enumerate(cases):
        missing = [field for field in ("gold", "response") if case.get(field) is None]
        if missing:
            raise ValueError(
                f"case {case.get('id', position)!r}: missing field(s) {', '.join(missing)}; "
                "every case needs 'gold' and 'response'"
            )
        answer_type = check_answer_type(case.get("answer_type") or "number")
        gold, response = str(case["gold"]), str(case["response"])
        if answer_type == "description":
            results[position] = grade_description(gold, response, case.get("question"), judge)
        else:
            math_tasks.append((position, (gold, response, answer_type, mode)))
    if math_tasks:
        pool = _shared_pool(workers or _default_workers())
        outcomes = pool.map([list(task) for _, task in math_tasks], timeout)
        for (position, _), outcome in zip(math_tasks, outcomes):
            results[position] = _from_outcome(outcome)
        # A timeout is often an absurdly large answer: bound its size by logarithms (same hard timeout).
        retry = [(position, task) for position, task in math_tasks if _timed_out(results[position])]
        if retry:
            checked = pool.map([[*task, "magnitude"] for _, task in retry], timeout)
            for (position, _), outcome in zip(retry, checked):
                results[position] = _from_outcome(outcome)
    return results  # type: ignore[return-value]


def _timed_out(result: GradeResult | None) -> bool:
    return result is not None and result.status == "ungraded" and result.reason == "timeout"


def _default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def grade_all_modes(
    cases: Iterable[dict], *, workers: int | None = None, timeout: float = 5.0, judge=None
) -> list[dict[str, GradeResult]]:
    """Grade every case under each mode in MODES; one {mode: GradeResult} per case."""
    cases = list(cases)
    per_mode = {mode: grade_many(cases, mode=mode, workers=workers, timeout=timeout, judge=judge) for mode in MODES}
    return [{mode: per_mode[mode][i] for mode in MODES} for i in range(len(cases))]


def modes_disagree(by_mode: dict[str, GradeResult]) -> bool:
    """True when the modes that graded a case (correct is not None) reached different verdicts."""
    return len({r.correct for r in by_mode.values() if r.correct is not None}) > 1
