"""The one verdict line every benchmark script ends with, and its exit status.

    verdict: PASS <short summary>
    verdict: FAIL <reason>; <reason>

`--quick` runs (tests/test_benchmarks.py runs each script so) judge only what a small sample can
show and name the targets they leave to the full run. A script exits 1 when its verdict is FAIL,
and also when it raises: `run` then prints the traceback and a FAIL line, so even a crash ends on
the line a reader (or the test) looks for.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Iterable


def verdict(failures: Iterable[str], summary: str, *, not_judged: Iterable[str] = ()) -> int:
    """Print the verdict line; 0 when nothing failed, else 1."""
    failures, not_judged = list(failures), list(not_judged)
    if failures:
        line = "verdict: FAIL " + "; ".join(failures)
    else:
        line = f"verdict: PASS {summary}"
        if not_judged:
            line += f" (not judged in quick mode: {', '.join(not_judged)})"
    print(line, flush=True)
    return 1 if failures else 0


def run(main: Callable[[], int | None]) -> int:
    """main()'s exit status, with a FAIL verdict line when it raises or exits with an error."""
    try:
        return main() or 0
    except SystemExit as exc:
        if exc.code in (0, None):
            raise
        if isinstance(exc.code, int):
            reason, status = f"exit status {exc.code}", exc.code
        else:  # sys.exit(message): the message goes to stderr, its last line into the verdict
            print(exc.code, file=sys.stderr, flush=True)
            lines = str(exc.code).strip().splitlines()
            reason, status = (lines[-1] if lines else "exited"), 1
        print(f"verdict: FAIL {reason}", flush=True)
        return status
    except Exception as exc:  # any crash is a FAIL, after its traceback
        traceback.print_exc()
        sys.stderr.flush()
        first = str(exc).strip().splitlines()
        print(f"verdict: FAIL raised {type(exc).__name__}{': ' + first[0] if first else ''}", flush=True)
        return 1
