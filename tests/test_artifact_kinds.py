"""Issue 42 (low): a valid Parquet artifact of another kind at a grade path passed the pre-check
that runs before any job (its own metadata and schema agree), so Snakemake took it as an up-to-date
grade table. Its folder says which kind belongs there; a mismatch is named like a truncated file."""

from __future__ import annotations

from pathlib import Path

from extrembench.core.artifacts import artifact_problem, damaged_artifacts, expected_kinds, write_artifact


def test_an_artifact_of_another_kind_at_a_grade_path_is_named(tmp_path):
    results = tmp_path / "results"
    grade = results / "b/grade/m/shard-0.parquet"
    write_artifact([], grade, "generations")  # valid generations table, copied where grades belong
    problems = write_artifact([], results / "b/problems/shard-0.parquet", "problems")
    generations = write_artifact([], results / "b/generate/m/shard-0.parquet", "generations")
    assert artifact_problem(problems) is None and artifact_problem(generations) is None
    assert damaged_artifacts(results) == [(grade, "an artifact of kind 'generations' where 'grades' belongs")]


def test_problems_table_at_a_generate_path_and_grades_at_a_problems_path_are_named(tmp_path):
    wrong_generate = write_artifact([], tmp_path / "b/generate/m/shard-3.parquet", "problems")
    wrong_problems = write_artifact([], tmp_path / "b/problems/shard-1.parquet", "grades")
    assert "kind 'problems' where 'generations' belongs" in artifact_problem(wrong_generate)
    assert "kind 'grades' where 'problems' belongs" in artifact_problem(wrong_problems)


def test_names_like_stages_keep_every_reading(tmp_path):
    """A benchmark named `grade` or a model named `problems` must not make a right file look wrong."""
    right = [
        write_artifact([], tmp_path / "grade/problems/shard-0.parquet", "problems"),
        write_artifact([], tmp_path / "b/grade/problems/shard-0.parquet", "grades"),
        write_artifact([], tmp_path / "results/paper/b/misses/m/shard-2.parquet", "misses"),
    ]
    assert [artifact_problem(path) for path in right] == [None, None, None]


def test_paths_outside_the_stage_layout_expect_nothing():
    assert expected_kinds(Path("results/b/grade/m/notes.parquet")) == set()
    assert expected_kinds(Path("results/leaderboard.parquet")) == {"leaderboard"}
    assert expected_kinds(Path("r/b/variants/shard-0.parquet")) == {"variants"}
