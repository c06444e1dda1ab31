"""Worker process for pool.py: `python -m extrembench.grading.worker module:function`.

Reads one JSON line [index, argument] at a time from stdin, calls function(argument) and writes
one JSON line [index, result, error]. The protocol gets its own copy of stdout; fd 1 is pointed
at stderr so a stray print in a library cannot corrupt it.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import sys

# A runaway big-integer computation fails with MemoryError (reported, case ungraded) instead of
# pushing the machine into swap before the parent's timeout kills it.
MEMORY_LIMIT_BYTES = 4 * 1024**3


def main(target: str) -> int:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    module_name, function_name = target.split(":")
    function = getattr(importlib.import_module(module_name), function_name)
    # Tell the parent the imports are done: its per-task deadline must not include our start-up
    # (seconds for sympy + Math-Verify on a loaded machine).
    protocol_out.write(json.dumps(["ready", None, None]) + "\n")
    protocol_out.flush()
    for line in sys.stdin:
        index, argument = json.loads(line)
        try:
            encoded = json.dumps([index, function(argument), None])
        except Exception as exc:  # reported to the parent, which marks the task ungraded
            encoded = json.dumps([index, None, f"{type(exc).__name__}: {exc}"[:300]])
        protocol_out.write(encoded + "\n")
        protocol_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
