"""The grader's LLM judge over the shared client and cache: `ask(messages, *, seed) -> str`.

Every vote is a recorded call (a regrade reads it back without the endpoint). A vote the server
rejected, an empty or cut-off reply, or an unreachable endpoint raises JudgeCallError, which the
grader's majority vote counts as a missing vote — ungraded, never wrong.
"""

from __future__ import annotations

from pathlib import Path

from extrembench.core.config import Config
from extrembench.llm.calls import LLMCaller, LLMCallError, caller_for


class JudgeCallError(RuntimeError):
    """One judge vote produced no usable reply."""


class LLMJudge:
    def __init__(self, caller: LLMCaller) -> None:
        self.caller = caller

    def ask(self, messages: list[dict], *, seed: int) -> str:
        try:
            result = self.caller.call(messages, seed=seed)
        except LLMCallError as exc:
            raise JudgeCallError(str(exc)) from exc
        reason = result.unusable_reason()
        if reason is not None:
            raise JudgeCallError(f"{self.caller.label}: {reason}")
        return result.content


def judge_for(config: Config, *, server_log: Path) -> LLMJudge | None:
    """The configured judge (grading.judge_model), or None when none is configured. Close it with
    `judge.caller.close()` (or use the caller as a context manager) to stop a server it started."""
    model = config.grading.judge_model
    if model is None:
        return None
    return LLMJudge(caller_for(config, model, server_log=server_log))
