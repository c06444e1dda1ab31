"""Progress lines (issue 37): each names its job (jobs run side by side and their lines interleave)
and, where the work is countable, says how long the rest will take at the pace so far."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from extrembench.core.progress import eta_text
from extrembench.core.workflow import start_job
from extrembench.generation.run import Progress


@pytest.mark.parametrize(
    ("done", "total", "elapsed", "text"),
    [
        (0, 10, 5.0, ""),  # no pace yet
        (10, 10, 5.0, ""),  # nothing left
        (1, 3, 10.0, "eta 20s"),
        (2, 14, 30.0, "eta 3m00s"),
        (1, 100, 200.0, "eta 5h30m"),
    ],
)
def test_eta_from_the_pace_so_far(done, total, elapsed, text):
    assert eta_text(done, total, elapsed) == text


def test_every_job_log_line_names_the_job(tmp_path, caplog):
    log = tmp_path / "job.log"
    smk = SimpleNamespace(
        log=[str(log)], rule="generate", wildcards={"benchmark": "extrem", "model": "m", "shard": "2"}
    )
    node = start_job(smk)
    try:
        logging.getLogger("extrembench.test").info("hello")
        for handler in logging.getLogger().handlers:
            handler.flush()
        assert f"[{node}] extrembench.test: hello" in log.read_text()
        assert node == "generate[benchmark=extrem,model=m,shard=2]"
    finally:
        logging.basicConfig(force=True)


def test_generate_progress_says_when_the_sent_requests_will_be_done(caplog, monkeypatch):
    progress = Progress(total=12, cached=2, started=100.0)
    monkeypatch.setattr("extrembench.generation.run.time.monotonic", lambda: 110.0)
    with caplog.at_level(logging.INFO, logger="extrembench.generation.run"):
        progress.record({"finish_reason": "stop", "completion_tokens": 10})
    # 1 of the 10 uncached requests in 10 s: 9 more take 90 s
    assert "progress 3/12 done (cached 2, sent 1, failed 0)" in caplog.text
    assert "eta 1m30s" in caplog.text
