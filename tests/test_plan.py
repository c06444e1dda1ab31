"""`extrembench plan`: the estimate arithmetic by tables of cases; the paper grid's plan from the
sources alone; and, on the default config (its models: the reference solver and gemma3-270m behind
a real llama.cpp server) over the three pipeline fixture problems, the planned missing requests
equal what real Snakemake runs then send, before and after one problem is edited."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import require_shared_data
from support.workflow import run_snakemake

from extrembench.core.config import Cluster, Resources, layered_config, model_entry
from extrembench.report.operations.plan import job_gpu_seconds, plan_cost

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "pipeline"
GPU1 = {"gpu": 1, "tokens_per_s": 1000, "stream_tokens_per_s": 50, "startup_s": 100}


@pytest.mark.parametrize(
    "size, requests, tokens, max_tokens, seconds",
    [
        (GPU1, 100, 500.0, 1000, 100 + 50),  # decode 100×500/1000 = 50 s > tail 20 s
        (GPU1, 10, 500.0, 1000, 100 + 20),  # the tail: the longest answer, 1000 / 50
        ({**GPU1, "gpu": 8}, 100, 500.0, 1000, 8 * 150),
        ({**GPU1, "stream_tokens_per_s": None}, 10, 500.0, 1000, 100 + 5),
        (GPU1, 0, 500.0, 1000, 0),  # nothing missing: the shard runs on CPU
        ({"gpu": 0}, 100, 500.0, 1000, 0),  # a CPU class takes no GPU time
        ({"gpu": 1, "tokens_per_s": None}, 100, 500.0, 1000, None),  # no throughput: no estimate
    ],
)
def test_job_gpu_seconds(size, requests, tokens, max_tokens, seconds):
    assert job_gpu_seconds(Resources(**size), requests, tokens, max_tokens) == seconds


@pytest.mark.parametrize(
    "gpu_hours, tokens, prices, cluster, cost",
    [
        (10.0, 5e6, {}, {"gpu_hour_cost": 2.5}, 25.0),
        (10.0, 5e6, {}, {"gpu_hour_cost": None}, None),
        (None, 5e6, {}, {"gpu_hour_cost": 2.5}, None),
        (0.0, 5e6, {"price_per_million_output_tokens": 4.0}, {"gpu_hour_cost": 2.5}, 20.0),
    ],
)
def test_plan_cost(gpu_hours, tokens, prices, cluster, cost):
    model = model_entry({"backend": "openai", "openai": {"base_url": "http://unused"}, **prices})
    assert plan_cost(gpu_hours, tokens, model, Cluster(**cluster)) == cost


def test_layered_config_merges_mappings_and_replaces_lists(tmp_path):
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("benchmarks: {extrem: {trials: 5}}\nevaluate: {models: [reference-solver]}\n")
    config = layered_config(REPO / "config.yaml", [overlay])
    assert (config.benchmarks["extrem"].trials, config.benchmarks["extrem"].shards) == (5, 4)
    assert config.evaluate.models == ["reference-solver"]
    assert config.resources["cpu"].tokens_per_s is None and config.cluster.gpu_hour_cost is None


def plan(workdir: Path, *configfiles: Path) -> dict:
    command = [sys.executable, "-m", "extrembench.cli", "plan", "--json", "--directory", str(workdir)]
    for path in configfiles:
        command += ["--configfile", str(path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow  # ~2 s
def test_paper_grid_plan_counts_every_job_and_request_from_the_sources(tmp_path):
    for name in ("config.yaml", "data"):
        (tmp_path / name).symlink_to(REPO / name)
    require_shared_data(("aime2025",))  # the paper grid reads the AIME 2025 local copy
    n_extrem = len(list((REPO / "data" / "problems").glob("*.yaml")))
    started = time.perf_counter()
    result = plan(tmp_path, REPO / "experiments" / "paper.yaml")
    assert time.perf_counter() - started < 30  # the target (≤ 10 s) is measured in docs/scaling.md
    rows, totals = result["rows"], result["totals"]
    assert len(rows) == 13 * 2
    assert totals["jobs"] == 13 * (4 + 1) and totals["requests"] == 13 * (n_extrem + 30) * 3
    assert totals["missing"] == totals["requests"] and totals["exact"] is False  # nothing built yet
    assert all(r["tokens_source"] == "max_tokens" for r in rows)
    big = next(r for r in rows if r["model"] == "qwen3-235b-a22b-thinking-2507" and r["benchmark"] == "aime2025")
    # one job of 90 requests: start-up 1500 s + max(90 × 81920 / 5000, 81920 / 60) s, on 8 GPUs
    assert big["gpu_hours"] == pytest.approx(8 * (1500 + 90 * 81920 / 5000) / 3600)
    assert big["cost"] is None  # no gpu_hour_cost in experiments/paper.yaml


# ---------------------------------------------------------------- against real runs

OVERLAY = {  # on the repository's config.yaml: its models and benchmark, three fixture problems
    "benchmarks": {"extrem": {"problems": "problems", "shards": 2}},
    "models": {"reference-solver": {"reference": {"starts": 4}}, "gemma3-270m": {"sampling": {"max_tokens": 8}}},
    "evaluate": {"benchmarks": ["extrem"]},  # variants: an upper bound until vary ran (test below)
}


def requests_served(workdir: Path, since: float) -> dict[tuple[str, str], int]:
    """(benchmark, model) -> requests the generate jobs that ran since `since` sent or computed."""
    served: dict[tuple[str, str], int] = {}
    for path in (workdir / "results").glob("*/generate/*/shard-*.requests.json"):
        if path.stat().st_mtime >= since:
            stats = json.loads(path.read_text())
            key = (stats["benchmark"], stats["model"])
            served[key] = served.get(key, 0) + stats["sent"] + stats["computed"]
    return served


def planned_missing(result: dict) -> dict[tuple[str, str], int]:
    return {(r["benchmark"], r["model"]): r["missing"] for r in result["rows"] if r["missing"]}


@pytest.mark.slow
def test_planned_missing_requests_equal_what_the_default_config_then_sends(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "problems")
    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    (tmp_path / "overlay.yaml").write_text(yaml.safe_dump(OVERLAY))
    overlay = tmp_path / "overlay.yaml"
    trials = yaml.safe_load((REPO / "config.yaml").read_text())["benchmarks"]["extrem"]["trials"]

    before = plan(tmp_path, overlay)  # nothing built: every problem file, nothing cached
    assert before["totals"]["exact"] is False
    assert {r["model"]: r["missing"] for r in before["rows"]} == {
        "reference-solver": 3 * trials,
        "symmetric-guess": 3 * trials,
        "boundary-guess": 3 * trials,
        "constant-guess": 3 * trials,
        "gemma3-270m": 3 * trials,
    }
    # the non-LLM baselines generate no tokens (symmetric-guess was planned at max_tokens per request)
    assert {r["model"]: r["tokens_source"] for r in before["rows"]} == {
        "reference-solver": "none",
        "symmetric-guess": "none",
        "boundary-guess": "none",
        "constant-guess": "none",
        "gemma3-270m": "max_tokens",
    }

    run_snakemake(tmp_path, "--until", "validate", configfile=overlay, check=True)
    first_plan = plan(tmp_path, overlay)
    assert first_plan["totals"]["exact"] is True
    started = time.time()
    run_snakemake(tmp_path, configfile=overlay, check=True)
    assert requests_served(tmp_path, started) == planned_missing(first_plan)
    assert sum(planned_missing(first_plan).values()) > 0

    # edit one problem: only its requests are missing now, and exactly those are sent
    edited = tmp_path / "problems" / "tiny-sum-of-squares.yaml"
    text = edited.read_text().replace('objective: "a^2 + b^2"', 'objective: "a^2 + b^2 + 1"')
    edited.write_text(text.replace('answer: "2"', 'answer: "3"'))
    run_snakemake(tmp_path, "--until", "validate", configfile=overlay, check=True)
    second_plan = plan(tmp_path, overlay)
    assert planned_missing(second_plan) == {
        ("extrem", "reference-solver"): trials,
        ("extrem", "symmetric-guess"): trials,
        ("extrem", "boundary-guess"): trials,
        # the set's most frequent answer moves from 2 to 1/4 (answers 1/4, 3, 2: a tie, the smaller):
        # every constant-guess request is new, and the rule's parameter reruns every shard of it
        ("extrem", "constant-guess"): 3 * trials,
        ("extrem", "gemma3-270m"): trials,
    }
    started = time.time()
    run_snakemake(tmp_path, configfile=overlay, check=True)
    assert requests_served(tmp_path, started) == planned_missing(second_plan)

    after = plan(tmp_path, overlay)
    assert after["totals"]["missing"] == 0
    gemma = next(r for r in after["rows"] if r["model"] == "gemma3-270m")
    assert gemma["tokens_source"].startswith("recorded") and 0 < gemma["tokens_per_request"] <= 8

    # the cost ledger of the default run: its columns on the leaderboard and the figure
    import pandas as pd

    board = pd.read_csv(tmp_path / "results" / "leaderboard.csv")
    for column in (
        "gpu_hours",
        "wall_hours",
        "output_tokens",
        "tokens_per_s_per_gpu",
        "cost",
        "accuracy_per_gpu_hour",
        "cost_unknown_rows",
    ):
        assert column in board.columns
    assert (board["cost_unknown_rows"] == 0).all() and (board["wall_hours"] > 0).all()
    assert (board["gpu_hours"] == 0).all()  # the default config's size class is `cpu`
    assert (tmp_path / "results" / "figures" / "accuracy_vs_cost.png").stat().st_size > 0


@pytest.mark.slow  # ~2 s
def test_variants_are_planned_as_an_upper_bound_before_vary_runs(tmp_path):
    """Before vary: per_problem variants of each kind for every parent in the varied share."""
    shutil.copytree(FIXTURES, tmp_path / "problems")
    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    overlay = {
        "benchmarks": {
            "extrem": {"problems": "problems", "shards": 2, "variants": {"share": 1.0, "per_problem": 2, "trials": 1}}
        }
    }
    (tmp_path / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    result = plan(tmp_path, tmp_path / "overlay.yaml")
    kinds = len(yaml.safe_load((REPO / "config.yaml").read_text())["benchmarks"]["extrem"]["variants"]["kinds"])
    rows = [r for r in result["rows"] if r["benchmark"] == "extrem-variants"]
    assert rows and all(r["missing"] == 3 * 2 * kinds for r in rows)
    assert result["totals"]["exact"] is False
