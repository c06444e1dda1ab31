"""Statement + answer releases (ExtremBench's format) through Snakemake: formalized, validated by
computation, asked; a wrong published answer is flagged for review, not silently kept or dropped."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
CONFIG = {
    "benchmarks": {"imported": {"kind": "formalized", "statements": "statements.jsonl", "shards": 1, "trials": 1}},
    "models": {"reference-solver": {"backend": "reference-solver", "reference": {"starts": 4}}},
    "evaluate": {"models": ["reference-solver"], "benchmarks": ["imported"]},
    "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    "cache_dir": "cache",
}


def test_formalized_benchmark_is_validated_asked_and_reviewed(tmp_path):
    shutil.copy(REPO / "tests" / "fixtures" / "pipeline-formalized" / "statements.jsonl", tmp_path)
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(tmp_path),
            "--profile",
            str(REPO / "profiles" / "local"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-5000:]
    problems = {
        r["problem_id"]: r for r in pq.read_table(tmp_path / "results/imported/problems/shard-0.parquet").to_pylist()
    }
    assert problems["fm-circle"]["status"] == "confirmed"
    assert problems["fm-reciprocal"]["status"] == "confirmed"
    assert problems["fm-wrong-answer"]["status"] == "refuted"
    conversions = pq.read_table(tmp_path / "results/imported/convert/shard-0.parquet").to_pylist()
    assert {r["converted_by"] for r in conversions} == {"rules"}
    review = pd.read_csv(tmp_path / "results/tables/review.csv")
    assert list(review["problem_id"]) == ["fm-wrong-answer"]
    assert "problem fm-wrong-answer is refuted (not asked)" in result.stderr
    board = pd.read_csv(tmp_path / "results/leaderboard.csv")
    assert board.loc[0, "n_problems"] == 2 and board.loc[0, "accuracy_mean"] == 1.0
