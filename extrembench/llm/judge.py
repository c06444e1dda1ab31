"""The grader's LLM judge over the shared client and cache: `ask(messages, *, seed) -> str`.

Every vote is a recorded call (a regrade reads it back without the endpoint). A vote the server
rejected, an empty or cut-off reply, or an unreachable endpoint raises JudgeCallError, which the
grader's majority vote counts as a missing vote — ungraded, never wrong. The judge counts its
votes and their failures, so the grade job fails like a generate job does once too many of them
failed (`failure()`, the judge model's `max_failure_rate` and `fail_on_client_error`).

`record()` is what the grade file keeps about the judge (model, revision, sampling, engine
version, votes; never an endpoint or a key): enough for `RecordedJudge` to compute every vote's
cache key again and read the votes back, so `extrembench audit` re-derives each judge verdict
from the stored votes without any endpoint.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from extrembench.core.config import Config, Sampling
from extrembench.llm.cache import GenerationCache, cache_key
from extrembench.llm.calls import NAMESPACE, CallResult, LLMCaller, LLMCallError, caller_for
from extrembench.llm.requests import chat_identity

DEFAULT_VOTES = 5


class JudgeCallError(RuntimeError):
    """One judge vote produced no usable reply."""


class JudgeFailed(RuntimeError):
    """Too many of a grade job's judge votes failed."""


class LLMJudge:
    def __init__(self, caller: LLMCaller, *, votes: int = DEFAULT_VOTES) -> None:
        self.caller = caller
        self.votes = votes
        self.asked = 0  # distinct votes asked
        self.failed = 0  # of which produced no usable reply
        self.client_errors = 0  # of which the server rejected (4xx other than 408/429)
        self.first_error: str | None = None
        # The grader asks the same vote once per grading mode: each is asked (and counted) once.
        self._answers: dict[str, str | JudgeCallError] = {}

    def ask(self, messages: list[dict], *, seed: int) -> str:
        key = cache_key(self.caller.identity(messages, seed))
        if key not in self._answers:
            self._answers[key] = self._ask(messages, seed)
        answer = self._answers[key]
        if isinstance(answer, JudgeCallError):
            raise answer
        return answer

    def _ask(self, messages: list[dict], seed: int) -> str | JudgeCallError:
        if self.caller.model_cfg.fail_on_client_error and self.client_errors:
            # the job fails anyway (failure()): a rejected key is not sent again for every vote
            return JudgeCallError(f"{self.caller.label}: not sent: the server already rejected a vote")
        self.asked += 1
        try:
            result = self.caller.call(messages, seed=seed)
        except LLMCallError as exc:
            return self._failure(str(exc), client_error=False)
        reason = result.unusable_reason()
        if reason is not None:
            return self._failure(f"{self.caller.label}: {reason}", client_error=result.error is not None)
        return result.content

    def _failure(self, message: str, *, client_error: bool) -> JudgeCallError:
        self.failed += 1
        self.client_errors += client_error
        if self.first_error is None:
            self.first_error = message
        return JudgeCallError(message)

    def failure(self) -> str | None:
        """Why the grade job must fail (too many failed votes), or None."""
        name, settings = self.caller.model, self.caller.model_cfg
        if settings.fail_on_client_error and self.client_errors:
            why = (
                f"the server rejected {self.client_errors} of {self.asked} judge votes (a client error: resending "
                f"will not help; set models.{name}.fail_on_client_error to false to keep such samples ungraded)"
            )
        elif self.failed > settings.max_failure_rate * self.asked:
            why = (
                f"{self.failed} of {self.asked} judge votes failed, over models.{name}.max_failure_rate = "
                f"{settings.max_failure_rate:g}"
            )
        else:
            return None
        return (
            f"grading.judge_model {name}: {why}. First error: {self.first_error}\nEvery vote received is cached; "
            f"fix the judge's endpoint and rerun: only votes without an answer are sent."
        )

    def record(self) -> dict[str, Any]:
        """What the grade file keeps about this judge (RecordedJudge reads the votes back with it)."""
        settings = self.caller.model_cfg
        return {
            "model": self.caller.model,
            "votes": self.votes,
            "engine": settings.backend,
            "engine_version": self.caller.engine_version,
            "hf_id": settings.hf_id,
            "revision": settings.revision,
            "context_length": settings.context_length,
            "sampling": settings.sampling.model_dump(mode="json"),
        }


class RecordedJudge:
    """The judge of a recorded grade job, replayed from the cache only: each vote is read back
    under the key the job's call was filed under; a vote not recorded (or whose entry fails its
    checks) raises JudgeCallError, as a failed vote did. Never opens an endpoint."""

    def __init__(self, record: dict[str, Any], cache_dir: Path) -> None:
        self.model = record["model"]
        self.votes = int(record["votes"])
        self.engine_version = record["engine_version"]
        # chat_identity reads only these fields of a registry entry: the keys come out identical
        self.settings = SimpleNamespace(
            backend=record["engine"],
            hf_id=record["hf_id"],
            revision=record["revision"],
            context_length=int(record["context_length"]),
            sampling=Sampling.model_validate(record["sampling"]),
        )
        self.cache = GenerationCache(Path(cache_dir), NAMESPACE)
        self.keys: set[str] = set()  # distinct votes read back

    @property
    def read(self) -> int:
        return len(self.keys)

    def ask(self, messages: list[dict], *, seed: int) -> str:
        identity = chat_identity(self.model, self.settings, [dict(m) for m in messages], seed, self.engine_version)
        key = cache_key(identity)
        entry, problem = self.cache.load(key)
        if entry is None:
            raise JudgeCallError(f"llm:{self.model}: vote {key[:16]} not recorded ({problem})")
        self.keys.add(key)
        response = entry["response"]
        result = CallResult(key, response.get("content"), response.get("finish_reason") or "unknown", None)
        reason = result.unusable_reason()
        if reason is not None:
            raise JudgeCallError(f"llm:{self.model}: {reason}")
        return result.content


def judge_record_json(judge: LLMJudge | None) -> str:
    """The grade file's `judge` metadata value: the record, or 'null' when no judge was configured."""
    return json.dumps(judge.record() if judge is not None else None, sort_keys=True)


def recorded_judge(metadata_value: str | None, cache_dir: Path) -> RecordedJudge | None:
    """The RecordedJudge of a grade file's `judge` metadata (None: no judge was configured)."""
    record = json.loads(metadata_value) if metadata_value else None
    return RecordedJudge(record, cache_dir) if record else None


def judge_for(config: Config, *, server_log: Path) -> LLMJudge | None:
    """The configured judge (grading.judge_model, grading.judge_votes votes per answer), or None
    when none is configured. Close it with `judge.caller.close()` (or use the caller as a context
    manager) to stop a server it started."""
    model = config.grading.judge_model
    if model is None:
        return None
    return LLMJudge(caller_for(config, model, server_log=server_log), votes=config.grading.judge_votes)
