"""`equivalent` under the grader's hard timeout, for callers outside grading (maj@k grouping in
the aggregate step compares extracted answers, which are untrusted model output)."""

from __future__ import annotations

from typing import Any

from extrembench.grading.modes import equivalent
from extrembench.grading.pool import HardTimeoutPool


def equivalent_task(argument: dict[str, Any]) -> bool:
    """Worker-side entry point (JSON in, JSON out)."""
    return equivalent(
        argument["gold"], argument["predicted"], answer_type=argument["answer_type"], mode=argument["mode"]
    )


class GuardedEquivalence:
    """Callable like `equivalent`; a comparison that runs past `timeout` counts as not equivalent
    (the two answers then vote as separate groups) and is counted in `timeouts`."""

    def __init__(self, *, timeout: float = 5.0, mode: str = "default") -> None:
        self.timeout = timeout
        self.mode = mode
        self.timeouts = 0
        # started on the first comparison: most rows of a leaderboard (and most audits) need none,
        # and a worker process costs a second or more to start
        self._pool: HardTimeoutPool | None = None

    def __call__(self, gold: str, predicted: str, *, answer_type: str = "number") -> bool:
        argument = {"gold": gold, "predicted": predicted, "answer_type": answer_type, "mode": self.mode}
        if self._pool is None:
            self._pool = HardTimeoutPool("extrembench.grading.guarded:equivalent_task", workers=1)
        outcome = self._pool.map([argument], self.timeout)[0]
        if outcome.timed_out or outcome.error:
            self.timeouts += 1
            return False
        return bool(outcome.value)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> GuardedEquivalence:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()
