"""A generate job told to stop early ends cleanly and fails, so the work is resumed, not redone.

SLURM sends SIGTERM when it preempts or requeues a job (`scontrol requeue`, a preempting
partition) and, with `--signal=USR1@N` (rules/evaluate.smk), SIGUSR1 N seconds before the time
limit; SIGKILL follows after the site's KillWait (30 s by default). On the first of these signals
the job raises `Preempted` in its main thread, wherever it is (the event loop, the reference
solver). Unwinding runs the job's `with` blocks: every response received is already its own cache
file (cache.py writes each before the next request goes out); the inference server is stopped by its PID
(server.py); the cost ledger records the attempt (ledger.py). Then the process exits with
128 + the signal number: non-zero, so Snakemake resubmits the job (or SLURM requeues it), and the
next attempt sends only what is still missing from the cache.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Iterable

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGUSR1)


class Preempted(SystemExit):
    """Raised by the handler. A SystemExit, so no `except Exception` on the way swallows it, and an
    uncaught one ends the process with its exit code (128 + signal) and no traceback."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


def install(signals: Iterable[int] = STOP_SIGNALS) -> None:
    """From the generate job's main thread, before any work starts."""
    received: list[int] = []

    def handle(signum, frame) -> None:
        name = signal.Signals(signum).name
        if received:
            # Already unwinding: a second exception would interrupt the flush it is waiting for.
            log.warning("%s received again while stopping; still flushing the cache", name)
            return
        received.append(signum)
        log.warning(
            "%s received: flushing the cache, stopping the server, exiting so the job is "
            "resubmitted (finished requests stay cached)",
            name,
        )
        raise Preempted(signum)

    for signum in signals:
        signal.signal(signum, handle)
