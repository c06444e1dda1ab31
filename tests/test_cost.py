"""The cost ledger: sacct parsing and the per-(benchmark, model) sums by tables of cases; a real
generate job (real HTTP endpoint on loopback) writing its ledger entry and each row's share, which
survives a rebuild from the cache; and the accuracy-vs-cost figure."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from support.generation import run_shard
from test_figures import assert_valid_png_and_pdf
from test_generation_client import BASE_CONFIG, ScriptedEndpoint, problem_row

from extrembench.cluster import ledger
from extrembench.cluster.cost import cost_table, with_cost_columns
from extrembench.core.artifacts import write_artifact
from extrembench.core.config import Cluster, model_entry, validate_config
from extrembench.report.results import figures


@pytest.mark.parametrize(
    "line, usage",
    [
        ("3600|billing=16,cpu=16,gres/gpu:b200=2,gres/gpu=2,mem=200000M,node=1", (3600, 2)),
        ("125|billing=1,cpu=1,mem=1000M,node=1", (125, 0)),  # a CPU job (e.g. a fully cached shard)
        ("7|cpu=8,gres/gpu=8,node=1", (7, 8)),
        ("Unknown|cpu=1", None),
        ("", None),
    ],
)
def test_parse_sacct_usage(line, usage):
    assert ledger.parse_sacct_usage(line) == usage


def generation_frame(rows):
    columns = ["benchmark", "model", "prompt_tokens", "completion_tokens", "gpu_seconds", "wall_seconds"]
    return pd.DataFrame([dict(zip(columns, r)) for r in rows], columns=columns)


ROWS = [("b", "m", 10, 100, 36.0, 18.0), ("b", "m", 10, 300, 36.0, 18.0), ("b", "m", 10, 50, None, None)]


@pytest.mark.parametrize(
    "prices, cluster, cost, basis",
    [
        ({}, {"gpu_hour_cost": 2.0}, 72.0 / 3600 * 2.0, "per GPU-hour"),
        ({}, {"gpu_hour_cost": None}, np.nan, "no price configured"),
        (
            {"price_per_million_output_tokens": 10.0, "price_per_million_input_tokens": 1.0},
            {"gpu_hour_cost": 2.0},
            (450 * 10.0 + 30 * 1.0) / 1e6,
            "per million tokens",
        ),
    ],
)
def test_cost_table_sums_known_shares_and_counts_unknown_rows(prices, cluster, cost, basis):
    model = model_entry({"backend": "openai", "openai": {"base_url": "http://unused"}, **prices})
    table = cost_table(generation_frame(ROWS), {"m": model}, Cluster(**cluster))
    row = table.iloc[0].to_dict()
    assert row["gpu_hours"] == pytest.approx(72.0 / 3600) and row["wall_hours"] == pytest.approx(36.0 / 3600)
    assert row["output_tokens"] == 450 and row["cost_unknown_rows"] == 1
    assert row["tokens_per_s_per_gpu"] == pytest.approx(400 / 72.0)  # only rows with known GPU time
    assert row["cost_basis"] == basis
    assert row["cost"] == pytest.approx(cost, nan_ok=True)


def test_accuracy_per_gpu_hour_is_nan_without_gpu_time():
    board = pd.DataFrame({"benchmark": ["b", "b"], "model": ["gpu", "cpu"], "accuracy_mean": [0.5, 0.25]})
    costs = cost_table(
        generation_frame([("b", "gpu", 1, 10, 1800.0, 900.0), ("b", "cpu", 1, 10, 0.0, 5.0)]), {}, Cluster()
    )
    merged = with_cost_columns(board, costs).set_index("model")
    assert merged.loc["gpu", "accuracy_per_gpu_hour"] == pytest.approx(1.0)
    assert np.isnan(merged.loc["cpu", "accuracy_per_gpu_hour"])


def test_generate_job_records_its_gpu_seconds_and_each_rows_share(tmp_path, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)  # wall time × GPUs, not sacct
    problems = tmp_path / "problems.parquet"
    write_artifact([problem_row("p1", "1+1?"), problem_row("p2", "2+2?")], problems, "problems")
    config = validate_config(
        {
            **BASE_CONFIG,
            "resources": {"cpu": {}, "two-gpus": {"gpu": 2}},
            "models": {
                "m": {
                    "backend": "openai",
                    "size_class": "two-gpus",
                    "concurrency": 1,
                    "openai": {"base_url": "http://unused"},
                }
            },
        }
    )
    config.cache_dir = str(tmp_path / "cache")
    output = tmp_path / "out" / "shard-0.parquet"

    def generate():
        return run_shard(tmp_path, config, output)

    with ScriptedEndpoint([(200, 0.05)]) as endpoint:
        config.models["m"].openai.base_url = endpoint.base_url
        generate()
    [entry_path] = (tmp_path / "cache" / "ledger").glob("*.json")
    entry = json.loads(entry_path.read_text())
    assert (entry["gpus"], entry["produced"], entry["source"], entry["interrupted"]) == (2, 6, "wall", False)
    assert entry["gpu_seconds"] == pytest.approx(2 * entry["wall_seconds"], abs=0.01)
    assert entry["wall_seconds"] >= 6 * 0.05
    rows = pq.read_table(output).to_pylist()
    assert sum(r["gpu_seconds"] for r in rows) == pytest.approx(entry["gpu_seconds"])
    assert sum(r["wall_seconds"] for r in rows) == pytest.approx(entry["wall_seconds"])

    # outputs deleted, rebuilt from the cache: the rows still carry the cost of the job that
    # produced them, and the rebuild (no request sent) adds no ledger entry
    output.unlink()
    generate()
    assert [r["gpu_seconds"] for r in pq.read_table(output).to_pylist()] == [r["gpu_seconds"] for r in rows]
    assert len(list((tmp_path / "cache" / "ledger").glob("*.json"))) == 1


@pytest.mark.parametrize(
    "columns, axis",
    [
        ({"cost": [1.0, 2.0], "gpu_hours": [1.0, 1.0], "wall_hours": [1.0, 1.0]}, "cost"),
        ({"cost": [1.0, np.nan], "gpu_hours": [1.0, 0.0], "wall_hours": [1.0, 1.0]}, "gpu_hours"),
        ({"cost": [np.nan, np.nan], "gpu_hours": [0.0, 0.0], "wall_hours": [0.1, 0.2]}, "wall_hours"),
    ],
)
def test_cost_axis_prefers_price_then_gpu_hours_then_wall_hours(columns, axis):
    assert figures.cost_axis(pd.DataFrame(columns))[0] == axis


def test_accuracy_vs_cost_figure(tmp_path):
    board = pd.DataFrame(
        {
            "benchmark": ["extrem", "extrem"],
            "model": ["reference-solver", "gemma3-270m"],
            "extremal": [True, True],
            "accuracy_mean": [0.9, 0.1],
            "ci_low": [0.8, 0.0],
            "ci_high": [1.0, 0.2],
            "cost": [np.nan, np.nan],
            "gpu_hours": [0.0, 0.0],
            "wall_hours": [0.001, 0.01],
            "n_problems": [48, 48],
            "n_trials": [1, 1],
        }
    )
    png = tmp_path / "accuracy_vs_cost.png"
    figures.plot_accuracy_vs_cost(board, png)
    assert_valid_png_and_pdf(png)
    first = png.read_bytes()
    figures.plot_accuracy_vs_cost(board, png)
    assert png.read_bytes() == first


def test_two_attempts_in_one_process_keep_separate_ledger_entries(tmp_path, monkeypatch):
    """A second generate call in the same process (a test, a notebook) is a new attempt: its entry
    does not overwrite the first one's, and the first attempt's rows keep their shares."""
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    problems = tmp_path / "problems.parquet"
    config = validate_config(
        {
            **BASE_CONFIG,
            "resources": {"cpu": {}, "one-gpu": {"gpu": 1}},
            "models": {
                "m": {
                    "backend": "openai",
                    "size_class": "one-gpu",
                    "concurrency": 1,
                    "openai": {"base_url": "http://unused"},
                }
            },
        }
    )
    config.cache_dir = str(tmp_path / "cache")
    output = tmp_path / "out" / "shard-0.parquet"
    shares_by_problem = {}
    with ScriptedEndpoint([(200, 0.02)]) as endpoint:
        config.models["m"].openai.base_url = endpoint.base_url
        for asked in (["p1"], ["p1", "p2"]):
            write_artifact([problem_row(p, f"{p}?") for p in asked], problems, "problems")
            run_shard(tmp_path, config, output)
            for row in pq.read_table(output).to_pylist():
                shares_by_problem.setdefault(row["problem_id"], set()).add(row["gpu_seconds"])
    entries = [json.loads(p.read_text()) for p in (tmp_path / "cache" / "ledger").glob("*.json")]
    assert sorted(e["produced"] for e in entries) == [3, 3] and len({e["job_uid"] for e in entries}) == 2
    assert len(shares_by_problem["p1"]) == 1  # unchanged by the second attempt
