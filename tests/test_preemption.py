"""A generate job stopped by SIGTERM/SIGUSR1 (preemption, requeue, time limit near): it stops its
server by PID, keeps every response it received, records the attempt in the cost ledger and exits
non-zero; the next attempt sends only what is still missing. Real processes, real signals, a real
HTTP endpoint on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest
from test_generation_client import BASE_CONFIG, ScriptedEndpoint, problem_row

from extrembench.core.artifacts import write_artifact
from extrembench.core.config import validate_config
from extrembench.llm.cache import GenerationCache

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = 3
TRIALS = BASE_CONFIG["benchmarks"]["t"]["trials"]


def start(script: str, tmp_path: Path) -> subprocess.Popen:
    path = tmp_path / "job.py"
    path.write_text(textwrap.dedent(script))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SLURM_JOB_ID", None)
    return subprocess.Popen(
        [sys.executable, str(path)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timeout waiting for {what}")
        time.sleep(0.05)


def process_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in state  # exited, only its exit status left


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGUSR1])
def test_signal_stops_the_server_by_pid_and_exits_non_zero(tmp_path, signum):
    job = start(
        """
        import sys, time
        from extrembench.cluster import preemption
        from extrembench.llm.server import ManagedServer, free_port

        preemption.install()
        port = free_port()
        command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
        with ManagedServer(command, port=port, ready_path="/", log_path="server.log", startup_timeout_s=60) as server:
            print(server.process.pid, flush=True)
            while True:
                time.sleep(0.1)
        """,
        tmp_path,
    )
    server_pid = int(job.stdout.readline())
    assert not process_gone(server_pid)
    job.send_signal(signum)
    assert job.wait(timeout=60) == 128 + signum, job.stderr.read()
    assert process_gone(server_pid)
    assert f"{signal.Signals(signum).name} received" in job.stderr.read()


@pytest.mark.slow  # ~5 s
def test_interrupted_job_keeps_what_it_received_and_the_next_attempt_sends_only_the_rest(tmp_path):
    problems = tmp_path / "problems.parquet"
    write_artifact([problem_row(f"p{i}", f"{i}+1?") for i in range(PROBLEMS)], problems, "problems")
    planned = PROBLEMS * TRIALS
    with ScriptedEndpoint([(200, 0.3)]) as endpoint:
        config = validate_config(
            {
                **BASE_CONFIG,
                "models": {"m": {"backend": "openai", "concurrency": 1, "openai": {"base_url": endpoint.base_url}}},
            }
        )
        config.cache_dir = str(tmp_path / "cache")
        (tmp_path / "config.json").write_text(config.model_dump_json())
        script = """
            from pathlib import Path
            from extrembench.cluster import preemption
            from extrembench.core.config import Config
            from extrembench.cluster import preemption
            from extrembench.generation.run import generate_shard

            preemption.install()
            generate_shard(problems_path=Path("problems.parquet"), output=Path("out/shard-0.parquet"),
                           stats_path=Path("out/stats.json"), benchmark="t", model="m",
                           config=Config.model_validate_json(Path("config.json").read_text()), dag_node="generate[t]",
                           server_log=Path("server.log"))
            """
        first = start(script, tmp_path)
        wait_for(lambda: len(endpoint.requests) >= 4, 60, "four requests")
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=60) == 128 + signal.SIGTERM, first.stderr.read()
        assert not (tmp_path / "out" / "shard-0.parquet").exists()
        sent_first = len(endpoint.requests)

        second = start(script, tmp_path)
        assert second.wait(timeout=120) == 0, second.stderr.read()
        sent_second = len(endpoint.requests) - sent_first

    ledger = [json.loads(p.read_text()) for p in (tmp_path / "cache" / "ledger").glob("*.json")]
    interrupted = next(e for e in ledger if e["interrupted"])
    finished = next(e for e in ledger if not e["interrupted"])
    # the first attempt's responses were kept: the second sent only the rest
    assert 3 <= interrupted["produced"] < planned
    assert interrupted["produced"] + finished["produced"] == planned == sent_second + interrupted["produced"]
    assert sent_first - interrupted["produced"] <= 1  # at most the one request in flight at the signal
    # counted from the cache: every planned key once, each attributed to the attempt that produced it
    cache = GenerationCache(tmp_path / "cache")
    entries = [json.loads(p.read_text()) for p in cache.root.rglob("*.json")]
    assert len(entries) == planned
    by_attempt = Counter(e["produced_by"]["job_uid"] for e in entries)
    assert by_attempt == {interrupted["job_uid"]: interrupted["produced"], finished["job_uid"]: finished["produced"]}
