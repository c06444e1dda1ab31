"""Per-problem failures in a build job: a problem file that cannot be read, converted or checked
never stops its shard; it becomes a row naming the file, field and reason (validate marks it
`invalid`), while failures of the machine (endpoint, server, disk, memory) stop the job."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from extrembench.core.files import sha256_file
from extrembench.core.untrusted_yaml import UntrustedYAMLError, load_untrusted_yaml
from extrembench.llm.calls import LLMCallError
from extrembench.llm.client import EndpointError
from extrembench.llm.server import ServerError
from extrembench.problems.problem import ProblemError

log = logging.getLogger(__name__)


def stage_stopping_errors() -> tuple[type[BaseException], ...]:
    """Failures that stop a stage job: the endpoint, the server, the disk, the memory. Anything
    else raised while handling one problem is that problem's fault and becomes its error row."""

    return (LLMCallError, EndpointError, ServerError, OSError, MemoryError)


def problem_failure(exc: Exception, stage: str) -> tuple[str, str]:
    """(field, reason) of a per-problem failure: ProblemError says both; anything else is named
    by its type under the stage (its traceback goes to the job's log)."""

    if isinstance(exc, ProblemError):
        return exc.field, exc.reason
    log.error("%s: unexpected failure on one problem (recorded as its error)", stage, exc_info=exc)
    return f"({stage})", f"{type(exc).__name__}: {exc}"[:500]


def file_sha256_or_none(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:  # an unreadable file: the loader names the problem below
        return None


def read_problem_yaml(path: Path) -> Any:
    """The raw data of one problem file through the untrusted-YAML loader (ProblemError on failure)."""

    try:
        return load_untrusted_yaml(path)
    except UntrustedYAMLError as exc:
        raise ProblemError(str(path), exc.field, exc.reason) from None
