"""The upstream venv (envs/upstream.sh: pinned SGLang and TRL) that tests run upstream code in.
Missing, a test skips, or fails when EXTREMBENCH_REQUIRE_UPSTREAM is set (CI builds the venv, so
there a missing one is a failure, not a silent skip)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("EXTREMBENCH_UPSTREAM_VENV", REPO / ".venv-upstream"))


def upstream_python() -> Path:
    """The venv's interpreter, or skip (fail under EXTREMBENCH_REQUIRE_UPSTREAM) saying how to build it."""
    python = VENV / "bin" / "python"
    if not python.exists():
        why = f"no upstream venv at {VENV} (install it: sh envs/upstream.sh)"
        if os.environ.get("EXTREMBENCH_REQUIRE_UPSTREAM"):
            pytest.fail(why)
        pytest.skip(why)
    return python
