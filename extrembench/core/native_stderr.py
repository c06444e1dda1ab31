"""Native libraries' stderr, held while they run: the SDP solver (Clarabel, Rust) prints a panic's
message and, where RUST_BACKTRACE is set, a 70-line backtrace for an eigen-solver failure that the
caller already turns into a failed attempt. Those lines are counted and logged as one quiet line;
anything else the block wrote goes back to stderr unchanged. Done at the file-descriptor level
because Rust writes to fd 2 directly, past sys.stderr."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile

log = logging.getLogger(__name__)

PANIC = "panicked at"
panics_caught = 0  # in this process; each is also one line of the job's log


@contextlib.contextmanager
def native_panics_quiet(what: str):
    """Run the block with fd 2 captured; a panic's lines are dropped and counted, the rest replayed."""
    global panics_caught
    sys.stderr.flush()
    with tempfile.TemporaryFile() as held:
        saved = os.dup(2)
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            text = held.read().decode(errors="replace")
    if PANIC in text:
        count = text.count(PANIC)
        panics_caught += count
        log.info("%s: %d solver panic(s) caught and counted as a failed attempt (harmless)", what, count)
        text = ""  # the message and its backtrace: nothing a reader can act on
    if text:
        sys.stderr.write(text)
