"""Issue 30, finding 5, through real Snakemake runs: two runs started together in two working
directories that share one response cache, against a stand-in endpoint on 127.0.0.1 that samples
(every call gets a different answer). Each request reaches the endpoint once (the second run waits
for the first's claim on the key and reuses its answer), both runs hold the same answers, and
`extrembench audit` passes in both."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from support.loopback import LoopbackServer, Reply, Request
from support.workflow import api_workdir, snakemake_command

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


class SamplingEndpoint(LoopbackServer):
    """A different answer on every call, as a sampling model gives: two runs that both sent a
    request would write different answers, and the last cache write would win."""

    def __init__(self) -> None:
        self.seeds: list[int] = []
        self._lock = threading.Lock()
        super().__init__(self.answer)
        self.start()

    def answer(self, request: Request) -> Reply:
        with self._lock:
            self.seeds.append(request.json()["seed"])
            call = len(self.seeds)
        return Reply(
            200,
            {
                "choices": [{"message": {"content": f"So \\boxed{{{call}}}"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 30, "completion_tokens": 5},
            },
        )


def _workdir(root: Path, name: str, base_url: str, cache: Path) -> Path:
    workdir = root / name
    workdir.mkdir()
    return api_workdir(workdir, base_url, str(cache))


def test_two_runs_on_one_cache_send_each_request_once_and_both_audit_clean(tmp_path):
    endpoint = SamplingEndpoint()
    try:
        cache = tmp_path / "shared-cache"
        workdirs = [_workdir(tmp_path, name, endpoint.base_url, cache) for name in ("first", "second")]
        env = {**os.environ, "EXTREMBENCH_PIPELINE_KEY": "sk-test-key"}
        runs = [
            subprocess.Popen(
                snakemake_command(w), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=w
            )
            for w in workdirs
        ]
        for run in runs:
            _, stderr = run.communicate(timeout=900)
            assert run.returncode == 0, stderr[-5000:]

        # 2 asked problems x 2 trials, each sent once although both runs needed all four
        assert len(endpoint.seeds) == 4 and len(set(endpoint.seeds)) == 4, endpoint.seeds
        answers = [
            sorted(
                (r["problem_id"], r["trial"], r["content"])
                for r in pq.read_table(w / "results/b/generate/api/shard-0.parquet").to_pylist()
            )
            for w in workdirs
        ]
        assert answers[0] == answers[1] and len(answers[0]) == 4

        for workdir in workdirs:
            audit = subprocess.run(
                [sys.executable, "-m", "extrembench.cli", "audit", "--benchmark", "b", "--model", "api"],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert audit.returncode == 0, workdir.name + ":\n" + audit.stdout[-3000:] + audit.stderr[-3000:]
    finally:
        endpoint.close()
