"""`extrembench eval`: one model behind an OpenAI-compatible URL (or a registry name) on one
benchmark, through the ordinary workflow, so that audit and show work on its result (issue 37)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from extrembench.cli import main
from extrembench.core.config import layered_config, model_entry, name_error
from extrembench.llm import llamacpp
from extrembench.llm.backends import open_endpoint
from extrembench.llm.server import ManagedServer, free_port
from extrembench.report.operations.eval import registry_key

REPO = Path(__file__).resolve().parents[1]
SERVED = "google/gemma-3-270m"


def _workdir(tmp_path: Path) -> Path:
    """A working directory with the shipped config.yaml, its problems folder and cache made absolute."""
    text = (REPO / "config.yaml").read_text()
    text = text.replace("problems: data/problems", f"problems: {REPO / 'data' / 'problems'}")
    text = text.replace("cache_dir: cache", f"cache_dir: {tmp_path}/cache")
    assert str(REPO) in text and str(tmp_path) in text
    (tmp_path / "config.yaml").write_text(text)
    return tmp_path


def test_registry_key_is_an_identifier_and_tells_similar_names_apart():
    assert registry_key("gemma3-270m") == "gemma3-270m"  # already an identifier and free: kept
    key = registry_key(SERVED, salt="http://h/v1")
    assert name_error(key) is None and key.startswith("google-gemma-3-270m-")
    assert registry_key("google-gemma-3-270m") != key  # a name that reads alike keeps its own key
    assert registry_key(SERVED, salt="http://other/v1") != key
    for hostile in ("../../etc", "$(id)", "a/../b", ".hidden", "x" * 300):
        assert name_error(registry_key(hostile)) is None
    assert registry_key("gemma3-270m", taken={"gemma3-270m"}) != "gemma3-270m"


def _eval(tmp_path, capsys, monkeypatch, *args) -> tuple[int, str]:
    monkeypatch.chdir(_workdir(tmp_path))
    rc = main(["eval", "--benchmark", "extrem", *args])
    return rc, capsys.readouterr().err


def test_an_unknown_benchmark_or_registry_model_is_named_before_any_job(tmp_path, capsys, monkeypatch):
    rc, err = _eval(tmp_path, capsys, monkeypatch, "--model", "nope")
    assert rc == 2 and "'nope' is not in the model registry" in err and "--base-url" in err
    rc = main(["eval", "--benchmark", "aime2025", "--model", "gemma3-270m"])
    err = capsys.readouterr().err
    assert rc == 2 and "'aime2025' is not a configured benchmark" in err and "--configfile" in err
    assert not (tmp_path / "results").exists()


def test_a_key_given_as_api_key_env_is_refused_and_never_echoed(tmp_path, capsys, monkeypatch):
    secret = "sk-proj-abcdef0123456789"
    rc, err = _eval(
        tmp_path, capsys, monkeypatch, "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--api-key-env", secret
    )
    assert rc == 2 and "NAME of an environment variable" in err and secret not in err
    monkeypatch.delenv("EXTREMBENCH_TEST_UNSET_KEY", raising=False)
    rc = main(
        [
            "eval",
            "--benchmark",
            "extrem",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--api-key-env",
            "EXTREMBENCH_TEST_UNSET_KEY",
        ]
    )
    assert rc == 2 and "EXTREMBENCH_TEST_UNSET_KEY is not set" in capsys.readouterr().err


@pytest.mark.slow  # a Snakemake dry run: ~5 s
def test_the_written_experiment_loads_and_holds_no_key(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EXTREMBENCH_TEST_KEY", "sk-secret-value-0000")
    rc, err = _eval(
        tmp_path,
        capsys,
        monkeypatch,
        *("--base-url", "http://127.0.0.1:9/v1", "--model", SERVED, "--api-key-env", "EXTREMBENCH_TEST_KEY"),
        *("--limit", "3", "--max-tokens", "16", "--dry-run"),
    )
    assert rc == 0, err
    key = registry_key(SERVED, salt="http://127.0.0.1:9/v1")
    assert f"registry key {key!r} for model {SERVED!r}" in err
    experiment = tmp_path / "results" / "eval" / key / "extrem" / "experiment.yaml"
    text = experiment.read_text()
    assert "sk-secret-value-0000" not in text and "EXTREMBENCH_TEST_KEY" in text
    config = layered_config(tmp_path / "config.yaml", [experiment])
    model = config.models[key]
    assert (model.backend, model.hf_id, model.sampling.max_tokens) == ("openai", SERVED, 16)
    assert config.evaluate.models == [key] and config.evaluate.benchmarks == ["extrem"]
    assert (config.benchmarks["extrem"].limit, config.benchmarks["extrem"].shards) == (3, 3)
    assert config.results_dir == f"results/eval/{key}/extrem"


def _cli(workdir: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "extrembench.cli", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.slow  # a real llama.cpp server and the whole workflow on 5 problems: ~2 min on 2 cores
def test_eval_against_a_local_llamacpp_server_then_audit_and_show(tmp_path):
    workdir = _workdir(tmp_path)
    model = model_entry({"backend": "llamacpp", "context_length": 2048})
    gguf = llamacpp.model_file(model, REPO / "cache")
    port = free_port()
    command = llamacpp.server_command(model, gguf, port)
    command[command.index("--model_alias") + 1] = SERVED  # the server answers to the name a user would pass
    with ManagedServer(
        command, port=port, ready_path="/v1/models", log_path=tmp_path / "server.log", startup_timeout_s=300
    ) as server:
        base_url = f"{server.base_url}/v1"
        done = _cli(
            workdir,
            *("eval", "--base-url", base_url, "--model", SERVED, "--benchmark", "extrem", "--limit", "5"),
            *("--trials", "1", "--max-tokens", "24", "--context-length", "2048", "--concurrency", "1"),
        )
        pid = server.process.pid
    assert not Path(f"/proc/{pid}").exists() or server.process.poll() is not None
    assert done.returncode == 0, done.stderr[-4000:]
    key = registry_key(SERVED, salt=base_url)
    row = re.search(rf"^\| extrem \| {re.escape(key)} \| 5 \| 1 \| .*\|$", done.stdout, re.M)
    assert row, done.stdout
    experiment = f"results/eval/{key}/extrem/experiment.yaml"
    assert f"audit:   extrembench audit --configfile {experiment} --benchmark extrem --model {key}" in done.stdout

    audit = _cli(workdir, "audit", "--configfile", experiment, "--benchmark", "extrem", "--model", key)
    assert audit.returncode == 0, audit.stdout[-3000:] + audit.stderr[-3000:]
    assert "(answer nan)" not in audit.stdout
    # 24 tokens rarely reach a boxed answer: a no-answer miss is listed with what the response said
    if re.search(r": no_answer", audit.stdout):
        assert "(no answer; response ends '" in audit.stdout or "(no answer; reasoning ends '" in audit.stdout

    problem = re.search(
        r"^(\S+) trial 0: ",
        _cli(workdir, "show", "--configfile", experiment, "--benchmark", "extrem", "--model", key).stdout,
        re.M,
    )
    assert problem
    show = _cli(
        workdir,
        "show",
        "--configfile",
        experiment,
        "--benchmark",
        "extrem",
        "--model",
        key,
        "--problem",
        problem.group(1),
    )
    assert show.returncode == 0, show.stderr
    out = show.stdout
    assert f"=== extrem / {key} / {problem.group(1)} / trial 0 ===" in out
    for part in (
        "--- prompt\n[user] ",
        "--- response (final content)\n",
        "extracted: ",
        "gold: ",
        "verdict: ",
        "miss class: ",
    ):
        assert part in out
    assert "\x1b" not in out


def test_the_openai_example_loads_and_docs_models_shows_it_as_it_is(tmp_path):
    example = REPO / "experiments" / "openai-example.yaml"
    config = layered_config(REPO / "config.yaml", [example])
    assert config.evaluate.models == ["my-served-model"] and config.results_dir == "results/openai-example"
    text = (REPO / "docs" / "models.md").read_text()
    block = re.search(r"`experiments/openai-example.yaml`:\n\n```yaml\n(.*?)```", text, re.S)
    assert block, "docs/models.md: the example's YAML block is missing"
    assert yaml.safe_load(block.group(1)) == yaml.safe_load(example.read_text())


def test_the_request_model_field_is_hf_id_else_the_registry_name(tmp_path):
    """What docs/models.md states, read from the code that opens the endpoint."""
    config = layered_config(REPO / "config.yaml", [REPO / "experiments" / "openai-example.yaml"])
    entry = config.models["my-served-model"]
    for model_cfg, served in ((entry, "Qwen/Qwen3-8B"), (entry.model_copy(update={"hf_id": None}), "my-served-model")):
        with open_endpoint("my-served-model", model_cfg, cache_dir=tmp_path, server_log=tmp_path / "log") as endpoint:
            assert endpoint.served_model == served
