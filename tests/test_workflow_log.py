"""A job that fails leaves its traceback in the rule's log file (issue 12, finding 8)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_uncaught_exception_lands_in_the_job_log(tmp_path):
    log = tmp_path / "job.log"
    script = textwrap.dedent(f"""
        from types import SimpleNamespace
        from extrembench.core.workflow import start_job

        smk = SimpleNamespace(log=[{str(log)!r}], rule="convert", wildcards={{"shard": "0"}})
        start_job(smk)

        def convert_everything():
            raise RuntimeError("disk quota exceeded while writing shard-0")

        convert_everything()
    """)
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 1
    text = log.read_text()
    assert "Traceback (most recent call last)" in text
    assert "in convert_everything" in text and "RuntimeError: disk quota exceeded" in text


def test_failed_run_removes_results_it_did_not_rewrite(tmp_path):
    """After a failed run the old leaderboard must not look current (issue 12, finding 1)."""
    import os
    import time

    from extrembench.core.workflow import remove_stale_results

    old, fresh, figure = tmp_path / "leaderboard.csv", tmp_path / "tables.csv", tmp_path / "fig.png"
    for path in (old, fresh, figure, figure.with_suffix(".pdf")):
        path.write_text("x")
        os.utime(path, (1_000_000, 1_000_000))
    started = time.time()
    os.utime(fresh, (started + 1, started + 1))  # rewritten by this run
    removed = remove_stale_results([str(old), str(fresh), str(figure), str(tmp_path / "never-built.md")], started)
    assert sorted(removed) == sorted([str(old), str(figure), str(figure.with_suffix(".pdf"))])
    assert fresh.exists() and not old.exists() and not figure.exists()
