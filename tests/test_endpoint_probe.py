"""Issue 37: a dead endpoint cost ~36 s of retries per generate job before it failed, and the
end-of-run summary then said "their answers are cached" when none had arrived. The generate job
now probes the endpoint (a TCP connection, nothing sent) and fails in seconds naming the address;
the summary says no answer arrived and gives that cause."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest
from support.generation import run_shard
from support.rows import problem_row

from extrembench.core.artifacts import write_artifact
from extrembench.core.config import validate_config
from extrembench.llm import client as client_module
from extrembench.llm.client import ChatClient, EndpointError
from extrembench.report.operations.run_summary import request_summary


@pytest.fixture(autouse=True)
def short_pauses(monkeypatch):
    # the pauses between tries are a setting: shorter here, so the test stays in the fast tier
    monkeypatch.setattr(client_module, "PROBE_PAUSES_S", (0.01, 0.01))


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_probe_names_an_endpoint_nothing_answers_at():
    port = closed_port()
    with pytest.raises(EndpointError, match=rf"nothing answers at http://127\.0\.0\.1:{port}/v1/chat/completions .*"):
        asyncio.run(ChatClient(f"http://127.0.0.1:{port}").probe())


def test_probe_passes_where_something_listens():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        asyncio.run(ChatClient(f"http://127.0.0.1:{server.getsockname()[1]}/v1").probe())


def test_a_generate_job_against_a_dead_endpoint_fails_fast_and_the_summary_says_why(tmp_path):
    port = closed_port()
    config = validate_config(
        {
            "benchmarks": {"t": {"kind": "ingested", "dataset": "x", "trials": 2}},
            "evaluate": {"models": ["m"], "benchmarks": ["t"]},
            "resources": {"cpu": {}},
            "cache_dir": str(tmp_path / "cache"),
            "models": {
                "m": {
                    "backend": "openai",
                    "hf_id": "vendor/model",
                    "max_retries": 5,  # what made every request of a dead endpoint cost its retries
                    "openai": {"base_url": f"http://127.0.0.1:{port}", "api_key_env": None},
                }
            },
        }
    )
    write_artifact([problem_row(f"p{i}") for i in range(3)], tmp_path / "problems.parquet", "problems")
    start = time.time() - 1
    began = time.monotonic()
    with pytest.raises(EndpointError, match=f"nothing answers at http://127.0.0.1:{port}"):
        run_shard(tmp_path, config, output=tmp_path / "shard-0.parquet")
    assert time.monotonic() - began < 5
    [entry] = [json.loads(p.read_text()) for p in (tmp_path / "cache" / "ledger").glob("*.json")]
    assert entry["interrupted"] and entry["produced"] == 0 and entry["failed"] == 0
    # the job's log as the workflow keeps it (start_job), holding the job's traceback
    log = tmp_path / "results/logs/generate/t/m/shard-0.log"
    log.parent.mkdir(parents=True)
    log.write_text(
        "Traceback (most recent call last):\n"
        f"extrembench.llm.client.EndpointError: nothing answers at http://127.0.0.1:{port}/v1/chat/completions\n"
    )
    lines = request_summary(tmp_path / "results", tmp_path / "cache", start, {"m"})
    assert "no answer arrived, so nothing was cached" in lines[0] and "cached:" not in lines[0]
    assert lines[1].startswith(f"  t/m/shard-0: nothing answers at http://127.0.0.1:{port}")
