"""The SGLang launcher up to the process boundary: the exact command line of every registry entry
of experiments/paper.yaml, the health wait, a server dying while it loads or while it serves, the
version pin, and shutdown of the whole process group. SGLang itself cannot run here: a small
http.server program stands in for the server process (not for the code under test)."""

from __future__ import annotations

import copy
import os
import signal
import sys
import time
from pathlib import Path

import pytest
import yaml
from support.generation import run_shard
from support.rows import problem_row as problem_row_of

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.config import validate_config
from extrembench.llm import sglang
from extrembench.llm.cache import GenerationCache
from extrembench.llm.server import ManagedServer, ServerError, free_port

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable

# Stands in for `python -m sglang.launch_server`: /health answers 503 for the first
# FAKE_UNHEALTHY probes, then 200; chat requests are answered until FAKE_CHAT_LIMIT, when the
# process dies the way a crashing GPU server does.
FAKE_SERVER = (
    f"import sys\nsys.path.insert(0, {str(REPO / 'tests')!r})\n"
    + r"""
import json, os, subprocess
from support.loopback import Reply, serve

args = sys.argv[1:]
port = int(args[args.index("--port") + 1])
unhealthy = int(os.environ.get("FAKE_UNHEALTHY", "0"))
chat_limit = int(os.environ.get("FAKE_CHAT_LIMIT", "-1"))
print("fake sglang argv: " + json.dumps(args), flush=True)
if os.environ.get("FAKE_CRASH"):
    print("Loading safetensors checkpoint shards: 0% Completed", flush=True)
    print("RuntimeError: CUDA out of memory. Tried to allocate 20.00 GiB (fake)", flush=True)
    sys.exit(3)
if os.environ.get("FAKE_WORKER"):
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    print("worker pid %d" % worker.pid, flush=True)
state = {"health": 0, "chat": 0}

def respond(request):
    if request.method == "GET":
        state["health"] += 1
        code = 503 if state["health"] <= unhealthy else 200
        print("health %d" % code, flush=True)
        return Reply(code, {})
    body = request.json()
    if state["chat"] == chat_limit:
        print("fatal: CUDA error: an illegal memory access was encountered (fake)", flush=True)
        os._exit(1)
    state["chat"] += 1
    return Reply(200, {"choices": [{"message": {"content": "\\boxed{%d}" % body["seed"],
                                                "reasoning_content": "thinking..."},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 12, "completion_tokens": 5}})

serve(respond, port)
"""
)


def merged(base: dict, overlay: dict) -> dict:
    """Snakemake's --configfile merge: mappings key by key, everything else replaced."""
    result = copy.deepcopy(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def load_experiment(*names: str) -> dict:
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    for name in names:
        config = merged(config, yaml.safe_load((REPO / "experiments" / name).read_text()))
    return validate_config(config)


PAPER = load_experiment("paper.yaml")

COMMON = "--host 127.0.0.1 --port 30000"
EXPECTED_COMMANDS = {
    "qwen3-1.7b": f"-m sglang.launch_server --model-path Qwen/Qwen3-1.7B {COMMON} --tp-size 1 --dp-size 1 "
    "--context-length 40960 --reasoning-parser qwen3 --enable-metrics",
    "qwen3-4b-thinking-2507": f"-m sglang.launch_server --model-path Qwen/Qwen3-4B-Thinking-2507 {COMMON} "
    "--tp-size 1 --dp-size 1 --context-length 86016 --reasoning-parser qwen3-thinking "
    "--enable-metrics",
    "qwen3-8b": f"-m sglang.launch_server --model-path Qwen/Qwen3-8B {COMMON} --tp-size 1 --dp-size 1 "
    "--context-length 40960 --reasoning-parser qwen3 --enable-metrics",
    "qwen3-14b": f"-m sglang.launch_server --model-path Qwen/Qwen3-14B {COMMON} --tp-size 1 --dp-size 1 "
    "--context-length 40960 --reasoning-parser qwen3 --enable-metrics",
    "qwen3-32b": f"-m sglang.launch_server --model-path Qwen/Qwen3-32B {COMMON} --tp-size 2 --dp-size 1 "
    "--context-length 40960 --reasoning-parser qwen3 --enable-metrics",
    "qwen3-30b-a3b-thinking-2507": f"-m sglang.launch_server --model-path Qwen/Qwen3-30B-A3B-Thinking-2507 "
    f"{COMMON} --tp-size 1 --dp-size 1 --context-length 86016 "
    "--reasoning-parser qwen3-thinking --enable-metrics",
    "qwen3-235b-a22b-thinking-2507": f"-m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B-Thinking-2507 "
    f"{COMMON} --tp-size 8 --dp-size 1 --context-length 86016 "
    "--mem-fraction-static 0.85 --reasoning-parser qwen3-thinking --enable-metrics",
    "gpt-oss-20b-high": f"-m sglang.launch_server --model-path openai/gpt-oss-20b {COMMON} --tp-size 1 "
    "--dp-size 1 --context-length 131072 --reasoning-parser gpt-oss --enable-metrics",
    "gpt-oss-120b-high": f"-m sglang.launch_server --model-path openai/gpt-oss-120b {COMMON} --tp-size 1 "
    "--dp-size 1 --context-length 131072 --reasoning-parser gpt-oss --enable-metrics",
    "r1-distill-qwen-1.5b": f"-m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B "
    f"{COMMON} --tp-size 1 --dp-size 1 --context-length 36864 "
    "--reasoning-parser deepseek-r1 --enable-metrics",
    "r1-distill-qwen-7b": f"-m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-Distill-Qwen-7B "
    f"{COMMON} --tp-size 1 --dp-size 1 --context-length 36864 "
    "--reasoning-parser deepseek-r1 --enable-metrics",
    "r1-distill-llama-8b": f"-m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-Distill-Llama-8B "
    f"{COMMON} --tp-size 1 --dp-size 1 --context-length 36864 "
    "--reasoning-parser deepseek-r1 --enable-metrics",
    "r1-distill-qwen-14b": f"-m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-Distill-Qwen-14B "
    f"{COMMON} --tp-size 1 --dp-size 1 --context-length 36864 "
    "--reasoning-parser deepseek-r1 --enable-metrics",
}


def test_paper_grid_is_the_thirteen_models_on_two_benchmarks():
    assert sorted(PAPER.evaluate.models) == sorted(EXPECTED_COMMANDS)
    assert PAPER.evaluate.benchmarks == ["extrem", "aime2025"]
    assert {b: PAPER.benchmarks[b].trials for b in ("extrem", "aime2025")} == {"extrem": 3, "aime2025": 3}


@pytest.mark.parametrize("model", sorted(EXPECTED_COMMANDS))
def test_exact_server_command_of_each_paper_model(model):
    command = sglang.server_command(PAPER.models[model], 30000)
    assert command == [sys.executable, *EXPECTED_COMMANDS[model].split()]


@pytest.mark.parametrize("experiment", [("paper.yaml",), ("paper.yaml", "amo-bench.yaml")])
def test_each_models_gpus_are_tp_times_dp(experiment):
    config = load_experiment(*experiment)
    for name in config.evaluate.models:
        model = config.models[name]
        gpus = config.resources[model.size_class].gpu
        assert gpus == model.sglang.tp * model.sglang.dp, name


def test_data_parallel_goes_through_the_router_with_revision_python_and_extra_args():
    config = load_experiment("paper.yaml", "amo-bench.yaml")
    model = config.models["qwen3-4b-thinking-2507"].model_copy(deep=True)
    model.revision = "0123abc"
    model.sglang.python = "/opt/sglang/bin/python"
    model.sglang.extra_args = ["--enable-deterministic-inference"]
    assert sglang.server_command(model, 4321) == [
        "/opt/sglang/bin/python",
        "-m",
        "sglang_router.launch_server",
        "--model-path",
        "Qwen/Qwen3-4B-Thinking-2507",
        "--revision",
        "0123abc",
        "--host",
        "127.0.0.1",
        "--port",
        "4321",
        "--tp-size",
        "1",
        "--dp-size",
        "2",
        "--context-length",
        "86016",
        "--reasoning-parser",
        "qwen3-thinking",
        "--enable-metrics",
        "--enable-deterministic-inference",
    ]


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("reasoning_parser", "qwen4", "reasoning_parser: 'qwen4' is not allowed"),
        ("tp", 0, "tp"),
        ("version", "latest", "version"),
        ("mem_fraction_static", 1.5, "mem_fraction_static"),
    ],
)
def test_bad_sglang_settings_are_rejected_naming_the_field(field, value, message):
    raw = {
        "benchmarks": {"t": {"kind": "ingested", "dataset": "x"}},
        "resources": {"cpu": {}},
        "evaluate": {"models": ["m"], "benchmarks": ["t"]},
        "models": {"m": {"backend": "sglang", "hf_id": "org/m", "sglang": {field: value}}},
    }
    with pytest.raises(ValueError, match=message):
        validate_config(raw)


# ---------------------------------------------------------------- the process boundary


@pytest.fixture
def fake_server(tmp_path):
    path = tmp_path / "fake_sglang.py"
    path.write_text(FAKE_SERVER)
    return path


def managed(fake_server: Path, tmp_path: Path, timeout_s: float = 30, **env) -> ManagedServer:
    port = free_port()
    return ManagedServer(
        [PY, str(fake_server), "--port", str(port)],
        port=port,
        ready_path="/health",
        log_path=tmp_path / "server.log",
        startup_timeout_s=timeout_s,
        env={**os.environ, **{k: str(v) for k, v in env.items()}},
    )


def live_members(pgid: int) -> list[int]:
    """PIDs of the process group that are not zombies."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def test_health_wait_passes_503s_until_200(fake_server, tmp_path):
    with managed(fake_server, tmp_path, FAKE_UNHEALTHY=3) as server:
        log = (tmp_path / "server.log").read_text()
        assert log.count("health 503") == 3 and "health 200" in log
        assert server.process.poll() is None


def test_health_wait_gives_up_at_the_deadline_with_the_log(fake_server, tmp_path):
    server = managed(fake_server, tmp_path, timeout_s=1.0, FAKE_UNHEALTHY=1000)
    with pytest.raises(ServerError, match=r"not ready after 1s(.|\n)*health 503"):
        server.__enter__()
    assert server.process.poll() is not None  # stopped, not left running


def test_server_dying_during_startup_fails_with_the_log_tail(fake_server, tmp_path):
    started = time.monotonic()
    with (
        pytest.raises(ServerError, match=r"exited \(code 3\)(.|\n)*CUDA out of memory"),
        managed(fake_server, tmp_path, FAKE_CRASH=1),
    ):
        pass
    assert time.monotonic() - started < 10  # not the startup deadline


def test_stop_by_pid_ends_the_whole_process_group(fake_server, tmp_path):
    with managed(fake_server, tmp_path, FAKE_WORKER=1) as server:
        pgid = os.getpgid(server.process.pid)
        assert pgid == server.process.pid != os.getpgid(0)
        deadline = time.monotonic() + 10
        while len(live_members(pgid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(live_members(pgid)) == 2  # the server and the worker it forked
    deadline = time.monotonic() + 10
    while live_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_members(pgid) == []


def test_server_ignoring_sigterm_is_killed(tmp_path):
    script = tmp_path / "stubborn.py"
    script.write_text(
        FAKE_SERVER.replace(
            "args = sys.argv[1:]", "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)\nargs = sys.argv[1:]"
        )
    )
    server = managed(script, tmp_path).__enter__()
    pid = server.process.pid
    started = time.monotonic()
    server.stop(grace_s=0.5)
    assert server.process.returncode == -signal.SIGKILL
    assert time.monotonic() - started < 5
    assert live_members(pid) == []


# ---------------------------------------------------------------- the sglang backend of generate


@pytest.fixture
def fake_sglang_install(tmp_path, monkeypatch):
    """`python -m sglang.launch_server` resolves to the stand-in, and sglang 0.5.23 is 'installed'."""
    site = tmp_path / "site"
    (site / "sglang").mkdir(parents=True)
    (site / "sglang" / "__init__.py").write_text("")
    (site / "sglang" / "launch_server.py").write_text(FAKE_SERVER)
    dist = site / "sglang-0.5.23.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.23\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    return site


def problem_row(problem_id: str) -> dict:
    return problem_row_of(problem_id, statement=f"Problem {problem_id}")


def sglang_config(tmp_path: Path, version: str = "0.5.23") -> dict:
    return validate_config(
        {
            "benchmarks": {"t": {"kind": "ingested", "dataset": "x", "trials": 2}},
            "resources": {"cpu": {}, "gpu1": {"gpu": 1}},
            "evaluate": {"models": ["m"], "benchmarks": ["t"]},
            "cache_dir": str(tmp_path / "cache"),
            "models": {
                "m": {
                    "backend": "sglang",
                    "hf_id": "org/fake-model",
                    "revision": "3c6e1c5b0f1d2a4e5f60718293a4b5c6d7e8f901",
                    "size_class": "gpu1",
                    "context_length": 4096,
                    "concurrency": 1,
                    "max_retries": 3,
                    "retry_initial_backoff_s": 0.05,
                    "sampling": {"max_tokens": 64},
                    "sglang": {"version": version, "reasoning_parser": "qwen3", "startup_timeout_s": 60},
                }
            },
        }
    )


def test_version_pin_is_checked_against_the_serving_python(fake_sglang_install, tmp_path):
    config = sglang_config(tmp_path, version="0.5.22")
    sglang.check_version(sglang_config(tmp_path).models["m"], "m")  # the installed one passes
    with pytest.raises(RuntimeError, match=r"models\.m\.sglang\.version pins sglang 0\.5\.22.*has 0\.5\.23"):
        sglang.check_version(config.models["m"], "m")


def test_server_dying_mid_run_fails_the_job_and_keeps_finished_samples(fake_sglang_install, tmp_path, monkeypatch):
    write_artifact([problem_row("p1"), problem_row("p2")], tmp_path / "problems.parquet", "problems")
    config = sglang_config(tmp_path)
    monkeypatch.setenv("FAKE_CHAT_LIMIT", "2")
    with pytest.raises(ServerError, match=r"server exited(.|\n)*illegal memory access"):
        run_shard(tmp_path, config)
    assert not (tmp_path / "out.parquet").exists()
    cached = list(GenerationCache(tmp_path / "cache").root.rglob("*.json"))
    assert len(cached) == 2
    log = (tmp_path / "server.log").read_text()
    assert '"--model-path", "org/fake-model"' in log and '"--reasoning-parser", "qwen3"' in log

    monkeypatch.delenv("FAKE_CHAT_LIMIT")
    stats = run_shard(tmp_path, config)
    assert (stats["cached"], stats["sent"], stats["failed"]) == (2, 2, 0)
    rows = read_artifact(tmp_path / "out.parquet", "generations").to_pylist()
    assert len(rows) == 4 and len({r["seed"] for r in rows}) == 4
    assert all(
        r["content"] == f"\\boxed{{{r['seed']}}}"
        and r["reasoning_content"] == "thinking..."
        and r["engine"] == "sglang"
        and r["engine_version"] == "0.5.23"
        for r in rows
    )
