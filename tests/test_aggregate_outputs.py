"""The aggregate job's outputs as a reader finds them.

Issue 37: a run whose only benchmark had no confirmed problem failed in aggregate ("grade table is
empty"), and the failed run removed every earlier result. Issue 42 (low): kill -9 during aggregate
left a new leaderboard.parquet beside the previous run's figures (Snakemake removes a job's own
outputs before it starts, not the figures drawn from them)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from extrembench.core.artifacts import GRADES, write_artifact
from extrembench.core.config import validate_config
from extrembench.report.results.aggregate import aggregate

CONFIG = {
    "benchmarks": {"b": {"kind": "extremal", "problems": "problems", "shards": 1, "trials": 1}},
    "models": {"reference-solver": {"backend": "reference-solver"}},
    "evaluate": {"models": ["reference-solver"], "benchmarks": ["b"]},
    "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
}
NAMES = {
    "parquet": "leaderboard.parquet",
    "csv": "leaderboard.csv",
    "md": "leaderboard.md",
    "checksums": "leaderboard.sha256",
    "difficulty": "tables/difficulty.csv",
    "techniques": "tables/techniques.csv",
    "correlations": "tables/correlations.csv",
    "published": "tables/published_comparison.csv",
}


def grade_row(problem_id: str, correct: bool) -> dict:
    row = dict.fromkeys(GRADES.names)
    row.update(
        benchmark="b",
        model="reference-solver",
        problem_id=problem_id,
        trial=0,
        source_sha256="0" * 64,
        cache_key=problem_id,
        gold="2",
        answer_type="number",
        sense="min",
        technique=["am-gm"],
        certificate_kind="bound",
        extracted="2" if correct else "3",
        correct=correct,
        status="correct" if correct else "wrong",
        modes_disagree=False,
        finish_reason="stop",
        completion_tokens=10,
        prompt_tokens=20,
    )
    return row


def outputs(root: Path) -> dict[str, Path]:
    return {key: root / "results" / name for key, name in NAMES.items()}


def test_no_grade_row_gives_a_leaderboard_without_rows(tmp_path):
    grades = write_artifact([], tmp_path / "results/b/grade/reference-solver/shard-0.parquet", "grades")
    out = outputs(tmp_path)
    aggregate([str(grades)], outputs=out, config=validate_config(CONFIG), published_dir=None)
    assert all(path.exists() for path in out.values())
    assert pq.read_table(out["parquet"]).num_rows == 0 and pd.read_csv(out["csv"]).empty
    assert "| benchmark | model |" in out["md"].read_text()


def test_a_job_stopped_midway_leaves_no_new_leaderboard_beside_the_previous_figures(tmp_path):
    grades = write_artifact(
        [grade_row("p1", True), grade_row("p2", False)],
        tmp_path / "results/b/grade/reference-solver/shard-0.parquet",
        "grades",
    )
    figure = tmp_path / "results/figures/accuracy_by_model.png"
    figure.parent.mkdir(parents=True)
    figure.write_bytes(b"the previous run's figure")
    out = outputs(tmp_path)
    empty = tmp_path / "no-published"  # a published-accuracy folder without its CSV: fails after the leaderboard
    empty.mkdir()
    with pytest.raises(FileNotFoundError):
        aggregate(
            [str(grades)], outputs=out, config=validate_config(CONFIG), published_dir=str(empty), dependents=[figure]
        )
    assert not figure.exists(), "a figure of the previous leaderboard outlived its replacement"
    assert [path for path in out.values() if path.exists()] == []
    assert [p.name for p in (tmp_path / "results").rglob("*partial*")] == []

    aggregate([str(grades)], outputs=out, config=validate_config(CONFIG), published_dir=None, dependents=[figure])
    board = pd.read_parquet(out["parquet"])
    assert board[["benchmark", "model", "accuracy_mean"]].values.tolist() == [["b", "reference-solver", 0.5]]
    # the checksums name the files under their final names, and match them
    from extrembench.core.files import sha256_file

    assert out["checksums"].read_text() == "".join(
        f"{sha256_file(out[key])}  {out[key]}\n" for key in ("parquet", "csv", "md")
    )
