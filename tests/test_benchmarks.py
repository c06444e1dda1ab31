"""Every script under benchmarks/ still runs: its `--quick` mode, as a subprocess from the checkout,
exits 0 and ends on its verdict line (benchmarks/_verdict.py) after at least one figure.

The scripts are found by glob, so a new one is covered without editing this file (it needs a
`--quick` flag and the verdict line to pass). A script that reads the shared datasets names them in
a module-level `SHARED_DATASETS = (...)` tuple; without them its test skips, or fails under
EXTREMBENCH_REQUIRE_SHARED_DATA=1 (tests/conftest.py). Nothing is downloaded: the llama.cpp model
comes from its installed package, the datasets from the local copies.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import require_shared_data

from extrembench.sources.ingest import shared_data_root

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(path for path in (REPO / "benchmarks").glob("*.py") if not path.name.startswith("_"))
TIMEOUT_S = 300  # each quick run takes well under a minute on 2 idle cores; this is for a loaded CI box
VERDICT = re.compile(r"verdict: (PASS|FAIL) \S")
FIGURE = re.compile(r"\d")  # a figure line: any output line with a number in it, besides the verdict


def declared_datasets(script: Path) -> tuple[str, ...]:
    """The script's SHARED_DATASETS tuple, read without importing it."""
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SHARED_DATASETS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    return ()


def test_scripts_found():
    assert len(SCRIPTS) >= 8, SCRIPTS


def test_readers_of_shared_data_declare_it():
    # otherwise a missing copy would fail the quick run instead of skipping with a reason
    undeclared = [
        p.name for p in SCRIPTS if "shared_data_root" in p.read_text(encoding="utf-8") and not declared_datasets(p)
    ]
    assert undeclared == [], f"these read the shared datasets but declare no SHARED_DATASETS: {undeclared}"


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_quick_run(script: Path):
    datasets = declared_datasets(script)
    if datasets:
        require_shared_data(datasets)
    # the checkout's code first (not whatever an installed copy points at), the datasets where the check looked
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "EXTREMBENCH_SHARED_DATA": str(shared_data_root()),
    }
    started = time.monotonic()
    try:
        result = subprocess.run(
            [sys.executable, str(script.relative_to(REPO)), "--quick"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        tail = (exc.stdout or b"")[-3000:]
        pytest.fail(
            f"{script.name} --quick ran past {TIMEOUT_S} s; its output so far:\n"
            f"{tail.decode(errors='replace') if isinstance(tail, bytes) else tail}"
        )
    elapsed = time.monotonic() - started
    output = f"--- stdout\n{result.stdout[-6000:]}\n--- stderr\n{result.stderr[-4000:]}"
    print(f"{script.name} --quick: {elapsed:.1f} s")
    assert result.returncode == 0, f"{script.name} --quick exited {result.returncode} after {elapsed:.0f} s\n{output}"
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    verdicts = [line for line in lines if line.startswith("verdict:")]
    assert len(verdicts) == 1 and lines[-1] == verdicts[0], f"not one final verdict line\n{output}"
    assert VERDICT.match(verdicts[0]) and verdicts[0].startswith("verdict: PASS "), output
    assert any(FIGURE.search(line) for line in lines[:-1]), f"no figure line before the verdict\n{output}"
