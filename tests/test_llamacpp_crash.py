"""A llama.cpp server that dies on a CPU fault fails the generate job with a diagnosis: the likely
cause (a llama-cpp-python build for other CPU features), the check that confirms it, the fix.

The server is a real process that really dies by the signal: a stand-in `llama_cpp.server` module
put first on the child's PYTHONPATH, so the job starts it exactly as it starts the real one
(`python -m llama_cpp.server ...`). It crashes during start-up or on its first completion, the
two places a native AVX-512 build on a CPU that cannot run it was seen to die.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from support.generation import run_shard
from support.rows import problem_row as problem_row_of

from extrembench.core.artifacts import write_artifact
from extrembench.core.config import validate_config
from extrembench.llm.llamacpp import crash_hint

CRASHING_SERVER = """
import os, signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

when, signum = os.environ["CRASH_WHEN"], getattr(signal, os.environ["CRASH_SIGNAL"])
if when == "startup":
    os.kill(os.getpid(), signum)
port = int(sys.argv[sys.argv.index("--port") + 1])

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # the readiness probe: /v1/models
        body = b'{"object": "list", "data": [{"id": "model", "object": "model"}]}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):  # the first completion: the kernels run, and fault
        os.kill(os.getpid(), signum)

    def log_message(self, *args):
        pass

HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


def problem_row(problem_id: str) -> dict:
    return problem_row_of(problem_id, statement="What is 1+1?", answer="2")


@pytest.fixture
def crashing_llamacpp(tmp_path, monkeypatch):
    package = tmp_path / "fake-site" / "llama_cpp"
    (package / "server").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "server" / "__init__.py").write_text("")
    (package / "server" / "__main__.py").write_text(CRASHING_SERVER)
    monkeypatch.setenv("PYTHONPATH", str(package.parent))  # the child's import path, not this process's
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    return gguf


def run_generate(tmp_path: Path, gguf: Path):
    config = validate_config(
        {
            "benchmarks": {"t": {"kind": "ingested", "dataset": "x", "trials": 1}},
            "resources": {"cpu": {}},
            "evaluate": {"models": ["m"], "benchmarks": ["t"]},
            "cache_dir": str(tmp_path / "cache"),
            "models": {
                "m": {
                    "backend": "llamacpp",
                    "hf_id": "google/gemma-3-270m",
                    "revision": "test",
                    "context_length": 512,
                    "concurrency": 1,
                    "max_retries": 0,
                    "llamacpp": {"model_path": str(gguf), "startup_timeout_s": 60},
                    "sampling": {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0, "max_tokens": 8},
                }
            },
        }
    )
    write_artifact([problem_row("p1")], tmp_path / "problems.parquet", "problems")
    return run_shard(tmp_path, config)


@pytest.mark.parametrize(
    ("when", "signame"),
    [("startup", "SIGILL"), ("completion", "SIGSEGV"), ("startup", "SIGSEGV"), ("completion", "SIGILL")],
)
def test_a_server_dying_on_a_cpu_fault_fails_the_job_naming_cause_check_and_fix(
    crashing_llamacpp, tmp_path, monkeypatch, when, signame
):
    monkeypatch.setenv("CRASH_WHEN", when)
    monkeypatch.setenv("CRASH_SIGNAL", signame)
    with pytest.raises(Exception) as failure:
        run_generate(tmp_path, crashing_llamacpp)
    message = str(failure.value)
    assert f"killed by {signame}" in message
    assert "llama-cpp-python build for CPU features this machine does not run" in message  # the cause
    assert "objdump -d" in message and "grep -c zmm" in message  # the check
    assert "pip uninstall -y llama-cpp-python" in message and "sh envs/install.sh cpu" in message  # the fix
    assert not (tmp_path / "out.parquet").exists()


def test_only_cpu_faults_get_the_build_diagnosis():
    assert crash_hint(signal.SIGKILL) is None  # e.g. the OOM killer: another cause, another message
    assert crash_hint(signal.SIGTERM) is None
    assert "CPU features" in crash_hint(signal.SIGILL)
