"""Issue 12, findings 2 and 7, through a real Snakemake run against a stand-in endpoint on
127.0.0.1: a 401 that echoes the key fails the run with the scrubbed message and caches nothing;
a 500 for one request leaves that sample `failed`, out of accuracy and counted; after the endpoint
recovers, `--forcerun generate` sends exactly that request again."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from support.loopback import LoopbackServer, Reply, Request
from support.workflow import api_workdir, run_snakemake

from extrembench.llm.cache import GenerationCache

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SECRET = "sk-pipeline-SECRET-0123456789abcdef"


class Endpoint(LoopbackServer):
    """`mode` decides every answer: 'unauthorized' (401 echoing the Authorization header),
    'flaky' (500 for the first seed it ever saw, 200 otherwise), 'healthy' (200)."""

    def __init__(self) -> None:
        self.mode, self.seeds, self.flaky_seed = "unauthorized", [], None
        super().__init__(self.answer)
        self.start()

    def answer(self, request: Request) -> Reply:
        seed = request.json()["seed"]
        self.seeds.append(seed)
        if self.flaky_seed is None and self.mode == "flaky":
            self.flaky_seed = seed
        if self.mode == "unauthorized":
            return Reply(
                401,
                {
                    "error": {
                        "message": "Incorrect API key",
                        "echo": {"Authorization": request.headers.get("Authorization")},
                    }
                },
            )
        if self.mode == "flaky" and seed == self.flaky_seed:
            return Reply(500, {"error": {"message": "upstream crashed"}})
        return Reply(
            200,
            {
                "choices": [{"message": {"content": "So \\boxed{4}"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 30, "completion_tokens": 5},
            },
        )


def no_secret_anywhere(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_failing_endpoint_through_snakemake(tmp_path):
    endpoint = Endpoint()
    try:
        api_workdir(tmp_path, endpoint.base_url, "cache", max_failure_rate=0.5)
        cache = GenerationCache(tmp_path / "cache")
        env = {**os.environ, "EXTREMBENCH_PIPELINE_KEY": SECRET}

        # 1. Every request is refused: the run fails with the server's message, key scrubbed.
        result = run_snakemake(tmp_path, env=env)
        assert result.returncode != 0
        log = (tmp_path / "results/logs/generate/b/api/shard-0.log").read_text()
        for text in (result.stderr, log):
            assert "HTTP 401" in text and "Incorrect API key" in text and "[redacted]" in text
        assert SECRET not in result.stderr + result.stdout
        assert endpoint.seeds and list(cache.iter_entries()) == []
        assert not (tmp_path / "results/leaderboard.csv").exists()
        no_secret_anywhere(tmp_path)

        # 2. The key is fixed; one request fails with 500 (within max_failure_rate).
        endpoint.mode, endpoint.seeds = "flaky", []
        result = run_snakemake(tmp_path, env=env)
        assert result.returncode == 0, result.stderr[-5000:]
        assert len(endpoint.seeds) == 4 and len(set(endpoint.seeds)) == 4  # 2 asked problems x 2 trials
        generations = pq.read_table(tmp_path / "results/b/generate/api/shard-0.parquet").to_pylist()
        [failed] = [g for g in generations if g["finish_reason"] == "failed"]
        assert failed["seed"] == endpoint.flaky_seed and failed["error"].startswith("HTTP 500")
        grades = pq.read_table(tmp_path / "results/b/grade/api/shard-0.parquet").to_pylist()
        assert sorted(g["status"] for g in grades).count("failed") == 1
        board = pd.read_csv(tmp_path / "results/leaderboard.csv")
        assert (board.loc[0, "n_failed"], board.loc[0, "n_samples"]) == (1, 3)
        assert len(list(cache.iter_entries())) == 3

        # 3. The endpoint recovers: rerunning generate sends exactly the failed request.
        endpoint.mode, endpoint.seeds = "healthy", []
        result = run_snakemake(tmp_path, "--forcerun", "generate", env=env)
        assert result.returncode == 0, result.stderr[-5000:]
        assert endpoint.seeds == [endpoint.flaky_seed]
        board = pd.read_csv(tmp_path / "results/leaderboard.csv")
        assert (board.loc[0, "n_failed"], board.loc[0, "n_samples"]) == (0, 4)
        no_secret_anywhere(tmp_path)
    finally:
        endpoint.close()
