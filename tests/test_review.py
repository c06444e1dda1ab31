"""The review table (extrembench/sources/review.py) on hand-made problem tables: every problem the
validator did not confirm, from every table, sorted by benchmark and id, with why; the fast-tier
check of the review job, which otherwise runs only inside the real Snakemake pipelines."""

from __future__ import annotations

import pandas as pd
from test_generation_failures import problem_row

from extrembench.core.artifacts import write_artifact
from extrembench.sources.review import review_table


def built(benchmark: str, problem_id: str, status: str, reason: str | None = None) -> dict:
    return {**problem_row(problem_id), "benchmark": benchmark, "status": status, "reason": reason}


def test_review_lists_every_problem_not_confirmed_with_why(tmp_path):
    first, second = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_artifact(
        [built("zeta", "p2", "refuted", "a point below the answer"), built("zeta", "p1", "confirmed")],
        first,
        "problems",
    )
    write_artifact(
        [built("alpha", "q9", "invalid", "objective: not a formula"), built("alpha", "q1", "not_attained", "sup")],
        second,
        "problems",
    )
    review_table([str(first), str(second)], tmp_path / "review.csv")
    table = pd.read_csv(tmp_path / "review.csv")
    assert list(table.columns) == [
        "benchmark",
        "problem_id",
        "status",
        "reason",
        "source_path",
        "best_value",
        "witness_json",
    ]
    assert list(zip(table["benchmark"], table["problem_id"], table["status"], table["reason"])) == [
        ("alpha", "q1", "not_attained", "sup"),
        ("alpha", "q9", "invalid", "objective: not a formula"),
        ("zeta", "p2", "refuted", "a point below the answer"),
    ]


def test_review_of_a_fully_confirmed_set_is_an_empty_table(tmp_path):
    write_artifact([built("b", "p1", "confirmed")], tmp_path / "a.parquet", "problems")
    review_table([str(tmp_path / "a.parquet")], tmp_path / "review.csv")
    table = pd.read_csv(tmp_path / "review.csv")
    assert table.empty and "problem_id" in table.columns


def test_review_csv_cells_never_start_a_formula(tmp_path):
    """Issue 42: a problem file named `=HYPERLINK(...).yaml` became a formula cell in review.csv
    (OWASP CSV injection); the cell now starts with an apostrophe, the Parquet keeps the name."""
    hostile = ['=HYPERLINK("http://x.invalid","open")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]
    rows = [
        {**built("b", name, "invalid", f"{name}: (file): refused"), "source_path": f"{name}.yaml", "best_value": -1.5}
        for name in hostile
    ]
    write_artifact(
        rows,
        tmp_path / "a.parquet",
        "problems",
    )
    review_table([str(tmp_path / "a.parquet")], tmp_path / "review.csv")
    table = pd.read_csv(tmp_path / "review.csv", keep_default_na=False)
    shown = ['\'=HYPERLINK("http://x.invalid","open")', "'+1+1", "'-2+3", "'@SUM(A1)", "'\tx", "'\\rx"]
    assert sorted(table["problem_id"]) == sorted(shown)
    assert sorted(table["source_path"]) == sorted(f"{name}.yaml" for name in shown)
    assert all(reason.startswith("'") for reason in table["reason"])
    assert list(table["best_value"]) == [-1.5] * len(hostile)  # numbers stay numbers
    from extrembench.core.artifacts import read_artifact

    assert sorted(read_artifact(tmp_path / "a.parquet", "problems").column("problem_id").to_pylist()) == sorted(hostile)
