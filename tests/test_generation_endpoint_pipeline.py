"""Issue 12, findings 2 and 7, through a real Snakemake run against a stand-in endpoint on
127.0.0.1: a 401 that echoes the key fails the run with the scrubbed message and caches nothing;
a 500 for one request leaves that sample `failed`, out of accuracy and counted; after the endpoint
recovers, `--forcerun generate` sends exactly that request again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from extrembench.llm.cache import GenerationCache

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SECRET = "sk-pipeline-SECRET-0123456789abcdef"


class Endpoint:
    """`mode` decides every answer: 'unauthorized' (401 echoing the Authorization header),
    'flaky' (500 for the first seed it ever saw, 200 otherwise), 'healthy' (200)."""

    def __init__(self) -> None:
        self.mode, self.seeds, self.flaky_seed = "unauthorized", [], None
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                seed = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["seed"]
                endpoint.seeds.append(seed)
                if endpoint.flaky_seed is None and endpoint.mode == "flaky":
                    endpoint.flaky_seed = seed
                if endpoint.mode == "unauthorized":
                    status, body = (
                        401,
                        {
                            "error": {
                                "message": "Incorrect API key",
                                "echo": {"Authorization": self.headers.get("Authorization")},
                            }
                        },
                    )
                elif endpoint.mode == "flaky" and seed == endpoint.flaky_seed:
                    status, body = 500, {"error": {"message": "upstream crashed"}}
                else:
                    status, body = (
                        200,
                        {
                            "choices": [{"message": {"content": "So \\boxed{4}"}, "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 30, "completion_tokens": 5},
                        },
                    )
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--profile",
        str(REPO / "profiles" / "local"),
        *args,
    ]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=900, env={**os.environ, "EXTREMBENCH_PIPELINE_KEY": SECRET}
    )


def no_secret_anywhere(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_failing_endpoint_through_snakemake(tmp_path):
    endpoint = Endpoint()
    try:
        shutil.copy(REPO / "tests" / "fixtures" / "pipeline-formalized" / "statements.jsonl", tmp_path)
        config = {
            "benchmarks": {"b": {"kind": "formalized", "statements": "statements.jsonl", "shards": 1, "trials": 2}},
            "models": {
                "api": {
                    "backend": "openai",
                    "hf_id": "vendor/model",
                    "concurrency": 1,
                    "max_retries": 0,
                    "max_failure_rate": 0.5,
                    "openai": {
                        "base_url": f"http://127.0.0.1:{endpoint.server.server_address[1]}",
                        "api_key_env": "EXTREMBENCH_PIPELINE_KEY",
                    },
                }
            },
            "evaluate": {"models": ["api"], "benchmarks": ["b"]},
            "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
            "cache_dir": "cache",
        }
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        cache = GenerationCache(tmp_path / "cache")

        # 1. Every request is refused: the run fails with the server's message, key scrubbed.
        result = snakemake(tmp_path)
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
        result = snakemake(tmp_path)
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
        result = snakemake(tmp_path, "--forcerun", "generate")
        assert result.returncode == 0, result.stderr[-5000:]
        assert endpoint.seeds == [endpoint.flaky_seed]
        board = pd.read_csv(tmp_path / "results/leaderboard.csv")
        assert (board.loc[0, "n_failed"], board.loc[0, "n_samples"]) == (0, 4)
        no_secret_anywhere(tmp_path)
    finally:
        endpoint.close()
