"""A native solver's panic (Clarabel's eigen-solver failure, printed by Rust to fd 2 with a
backtrace under RUST_BACKTRACE) is counted and logged as one line; other stderr output survives
(issue 37: three 70-line backtraces in a validate log, harmless, said nowhere)."""

from __future__ import annotations

import subprocess
import sys

CHILD = r"""
import logging, os, sys
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
from extrembench.core import native_stderr
with native_stderr.native_panics_quiet("clarabel"):
    os.write(2, b"thread '<unnamed>' panicked at src/psdtrianglecone.rs:12:5:\nEigval error\n" + b"   0: frame\n" * 70)
with native_stderr.native_panics_quiet("clarabel"):
    os.write(2, b"a warning the reader needs\n")
print("caught", native_stderr.panics_caught)
"""


def test_a_native_panic_is_one_log_line_and_other_stderr_output_survives():
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "panicked" not in result.stderr and "frame" not in result.stderr
    assert "a warning the reader needs" in result.stderr
    assert "clarabel: 1 solver panic(s) caught and counted as a failed attempt (harmless)" in result.stdout
    assert "caught 1" in result.stdout
