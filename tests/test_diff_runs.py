"""`extrembench diff-runs`: two results folders compared on what a behaviour-preserving change must
keep (leaderboard rows, each problem's verdict and certificate), provenance columns left out."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from support.rows import problem_row as problem_row_of

from extrembench import cli
from extrembench.core.artifacts import write_artifact


def problem_row(problem_id: str, certificate: str | None) -> dict:
    return problem_row_of(
        problem_id,
        benchmark="extrem",
        statement="s",
        answer="3",
        sense="min",
        status="confirmed",
        best_value=3.0,
        witness_json='{"a": "1"}',
        certificate=certificate,
        certificate_kind="bound" if certificate else None,
        certificate_verifier="8" if certificate else None,
        dag_node="validate",
    )


def results(folder: Path, *, certificate: str, accuracy: str, commit: str) -> Path:
    write_artifact(
        [problem_row("ineq-0001", certificate), problem_row("ineq-0002", None)],
        folder / "extrem" / "problems" / "shard-0.parquet",
        "problems",
    )
    with open(folder / "leaderboard.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, ["benchmark", "model", "accuracy_mean", "git_commit", "wall_hours"])
        writer.writeheader()
        writer.writerow(
            {"benchmark": "extrem", "model": "m", "accuracy_mean": accuracy, "git_commit": commit, "wall_hours": "0.1"}
        )
    return folder


def test_runs_that_differ_only_in_provenance_are_the_same(tmp_path, capsys):
    old = results(tmp_path / "old", certificate='{"kind": "bound"}', accuracy="0.5", commit="a" * 40)
    new = results(tmp_path / "new", certificate='{"kind": "bound"}', accuracy="0.5", commit="b" * 40)
    assert cli.main(["diff-runs", str(old), str(new)]) == 0
    assert "0 difference(s) in 1 leaderboard rows and 2 problem rows" in capsys.readouterr().err


def test_a_changed_certificate_or_accuracy_is_named(tmp_path, capsys):
    old = results(tmp_path / "old", certificate='{"kind": "bound"}', accuracy="0.5", commit="a" * 40)
    new = results(tmp_path / "new", certificate='{"kind": "bound", "x": 1}', accuracy="0.75", commit="a" * 40)
    assert cli.main(["diff-runs", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "problems ('extrem', 'ineq-0001') certificate" in out
    assert "leaderboard ('extrem', 'm') accuracy_mean: '0.5' -> '0.75'" in out


def test_a_problem_missing_from_one_run_is_named(tmp_path, capsys):
    old = results(tmp_path / "old", certificate='{"kind": "bound"}', accuracy="0.5", commit="a" * 40)
    new = tmp_path / "new"
    shutil.copytree(old, new)
    write_artifact(
        [problem_row("ineq-0001", '{"kind": "bound"}')], new / "extrem" / "problems" / "shard-0.parquet", "problems"
    )
    assert cli.main(["diff-runs", str(old), str(new)]) == 1
    assert "problems ('extrem', 'ineq-0002'): only in old" in capsys.readouterr().out
