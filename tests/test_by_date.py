"""Accuracy by date (issue 40): the side a partially dated problem falls on, the model registry's
dates, the date-split table built by the aggregate job from real artifacts, and its figure."""

from __future__ import annotations

import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_figures import assert_valid_png_and_pdf
from test_leaderboard import grade_row

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.config import validate_config
from extrembench.core.dates import date_span
from extrembench.core.errors import InputError
from extrembench.report.results import figures, paired
from extrembench.report.results.aggregate import aggregate
from extrembench.report.results.by_date import ALL, DATE_SPLIT, build_date_split, date_side, split_date
from extrembench.sources.convert import conversion_row


@pytest.mark.parametrize(
    ("problem", "split", "side"),
    [
        # a full split date: a problem's whole span must lie on one side of it
        ("2025-08-13", "2025-08-14", "before"),
        ("2025-08-14", "2025-08-14", "after"),  # on the split date counts as after
        ("2025-07", "2025-08-14", "before"),
        ("2025-08", "2025-08-14", "undecided"),
        ("2025-09", "2025-08-14", "after"),
        ("2024", "2025-08-14", "before"),
        ("2025", "2025-08-14", "undecided"),
        ("2026", "2025-08-14", "after"),
        ("2025-08", "2025-08-01", "after"),  # every day of August is on or after Aug 1
        ("2025", "2025-01-01", "after"),
        # a partial split date: the cut-off may be any of its days
        ("2024-07-31", "2024-08", "before"),
        ("2024-08-01", "2024-08", "undecided"),
        ("2024-08-31", "2024-08", "after"),  # on or after every day the cut-off may be
        ("2024-09-01", "2024-08", "after"),
        ("2024-08", "2024-08", "undecided"),
        ("2024", "2024-08", "undecided"),
        ("2023-12-31", "2024", "before"),
        ("2024-12-31", "2024", "after"),
        ("2025-01", "2024", "after"),
        # month lengths, leap years included
        ("2024-02", "2024-02-29", "undecided"),
        ("2024-02", "2024-03-01", "before"),
        ("2023-02", "2023-03-01", "before"),
        (None, "2024", "undated"),
    ],
)
def test_a_problem_goes_to_a_side_only_when_its_whole_date_lies_there(problem, split, side):
    assert date_side(problem, split) == side


def test_a_partial_date_spans_every_day_it_may_mean():
    assert date_span("2024-02") == (datetime.date(2024, 2, 1), datetime.date(2024, 2, 29))
    assert date_span("2023-02") == (datetime.date(2023, 2, 1), datetime.date(2023, 2, 28))
    assert date_span("2025") == (datetime.date(2025, 1, 1), datetime.date(2025, 12, 31))
    assert date_span("2025-08-14") == (datetime.date(2025, 8, 14),) * 2


def config(**model) -> dict:
    return {
        "benchmarks": {"b": {"kind": "extremal", "problems": "problems", "shards": 1, "trials": 1}},
        "models": {"m": {"backend": "reference-solver", **model}, "floor": {"backend": "symmetric-guess"}},
        "evaluate": {"models": ["m", "floor"], "benchmarks": ["b"]},
        "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    }


def test_model_dates_are_read_as_problem_dates_are_and_the_cutoff_wins():
    # as YAML reads them: an unquoted full date is a date, an unquoted year an int
    raw = yaml.safe_load("release_date: 2025-08-14\nknowledge_cutoff: 2024-08")
    models = validate_config(config(**raw)).models
    assert (models["m"].release_date, models["m"].knowledge_cutoff) == ("2025-08-14", "2024-08")
    assert split_date(models["m"]) == ("2024-08", "knowledge_cutoff")
    assert split_date(validate_config(config(release_date=2025)).models["m"]) == ("2025", "release_date")
    assert split_date(models["floor"]) == (None, None)


@pytest.mark.parametrize("bad", ["2024-13", "Aug 2024", "2023-02-29", True])
def test_a_model_date_that_is_no_calendar_date_is_refused_naming_the_key(bad):
    with pytest.raises(InputError, match=r"models\.m\.knowledge_cutoff"):
        validate_config(config(knowledge_cutoff=bad))


def test_the_shipped_config_dates_gemma_and_no_baseline():
    cfg = validate_config(yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text()))
    dated = {name for name, model in cfg.models.items() if split_date(model)[0]}
    assert dated == {"gemma3-270m"} and split_date(cfg.models["gemma3-270m"]) == ("2024-08", "knowledge_cutoff")


def test_independent_difference_is_the_difference_of_the_means_with_an_interval_around_it():
    before = [np.array([1.0, 1.0]), np.array([1.0, 0.0]), np.array([1.0, 1.0])]
    after = [np.array([0.0, 0.0]), np.array([1.0, 0.0])]
    difference, low, high = paired.independent_difference(before, after, seed=3)
    assert difference == pytest.approx(0.25 - 5 / 6)
    assert low < difference < high
    assert (difference, low, high) == paired.independent_difference(before, after, seed=3)  # seeded
    assert all(np.isnan(paired.independent_difference(before, [], seed=3)))


PROBLEMS = {  # problem → (date, trial outcomes of model m)
    "old1": ("2023-05", [True, True]),
    "old2": ("2024-07-31", [True, False]),
    "new1": ("2024-09", [False, False]),
    "new2": ("2025", [True, False]),
    "same": ("2024", [True, True]),  # the 2024-08 cut-off falls inside 2024
    "none": (None, [False, True]),
}


def write_run(root: Path, problems=PROBLEMS) -> tuple[list[str], list[str]]:
    """Real grade and conversions artifacts of benchmark b (models m and floor) and of an undated
    benchmark c (model m)."""
    rows = []
    for problem, (_, outcomes) in problems.items():
        for model in ("m", "floor"):
            rows += [grade_row("b", model, problem, trial, correct) for trial, correct in enumerate(outcomes)]
    rows += [grade_row("c", "m", "q1", 0, True)]
    grades = write_artifact(rows, root / "b/grade/shard-0.parquet", "grades")
    conversions = []
    for problem, (date, _) in problems.items():
        conversions.append(conversion_row(Path(f"problems/{problem}.yaml"), benchmark="b", dag_node="convert"))
        conversions[-1]["date"] = date
    converted = write_artifact(conversions, root / "b/convert/shard-0.parquet", "conversions")
    return [str(grades)], [str(converted)]


def aggregate_outputs(root: Path) -> dict[str, Path]:
    names = ["parquet", "csv", "md", "difficulty", "techniques", "correlations", "published"]
    out = {name: root / f"{name}.out" for name in names} | {"parquet": root / "leaderboard.parquet"}
    return out | {"date_split": root / "date_split.csv", "date_split_parquet": root / "date_split.parquet"}


def test_the_aggregate_job_writes_the_date_split_table_from_real_artifacts(tmp_path):
    grades, conversions = write_run(tmp_path)
    out = aggregate_outputs(tmp_path)
    cfg = validate_config(config(release_date="2025-08-14", knowledge_cutoff="2024-08"))
    aggregate(grades, outputs=out, config=cfg, published_dir=None, conversion_files=conversions)
    table = read_artifact(out["date_split_parquet"])
    assert table.schema.remove_metadata().equals(DATE_SPLIT)
    rows = {(r["benchmark"], r["model"]): r for r in table.to_pylist()}
    assert set(rows) == {("b", "m"), ("b", "floor"), ("c", "m"), (ALL, "m")}
    m = rows[("b", "m")]
    assert (m["split_date"], m["split_basis"]) == ("2024-08", "knowledge_cutoff")
    assert (m["n_before"], m["n_after"], m["n_undecided"], m["n_undated"]) == (2, 2, 1, 1)
    assert m["accuracy_before"] == pytest.approx(0.75) and m["accuracy_after"] == pytest.approx(0.25)
    assert m["difference"] == pytest.approx(-0.5) and m["diff_low"] <= -0.5 <= m["diff_high"]
    assert m["before_low"] <= 0.75 <= m["before_high"] and m["note"] == ""
    assert rows[("b", "floor")]["note"] == "the model has no knowledge_cutoff or release_date"
    assert rows[("c", "m")]["note"] == "no problem of this benchmark has a date"
    assert rows[("c", "m")]["n_undated"] == 1
    pooled = rows[(ALL, "m")]  # b's problems and c's undated one
    assert (pooled["n_before"], pooled["n_after"], pooled["n_undecided"], pooled["n_undated"]) == (2, 2, 1, 2)
    assert pd.read_csv(out["date_split"]).shape == (4, len(DATE_SPLIT))


def test_old_problems_in_one_benchmark_and_new_in_another_meet_in_the_pooled_row(tmp_path):
    """The fresh slice is a benchmark of its own: per benchmark each side is empty, pooled both fill."""
    rows = [grade_row("old", "m", "p", 0, True), grade_row("new", "m", "p", 0, False)]
    grades = read_artifact(write_artifact(rows, tmp_path / "grades.parquet", "grades"), "grades").to_pandas()
    dates = pd.DataFrame({"benchmark": ["old", "new"], "problem_id": ["p", "p"], "date": ["2001", "2025-03"]})
    table = build_date_split(grades, dates, {"m": ("2024-08", "knowledge_cutoff")}, n_boot=200)
    by_benchmark = table.set_index("benchmark")
    assert (by_benchmark.loc["old", "n_after"], by_benchmark.loc["new", "n_before"]) == (0, 0)
    pooled = by_benchmark.loc[ALL]
    assert (pooled["n_before"], pooled["n_after"], pooled["accuracy_before"], pooled["accuracy_after"]) == (1, 1, 1, 0)
    assert pooled["difference"] == -1 and pooled["note"] == ""


def test_a_side_without_a_problem_is_named_in_the_note(tmp_path):
    only_old = {k: v for k, v in PROBLEMS.items() if k.startswith("old")}
    grades, conversions = write_run(tmp_path, only_old)
    frame = read_artifact(grades[0], "grades").to_pandas()
    dates = read_artifact(conversions[0], "conversions").to_pandas()
    table = build_date_split(frame, dates, {"m": ("2024-08", "knowledge_cutoff")})
    row = table[(table["benchmark"] == "b") & (table["model"] == "m")].iloc[0]
    assert (row["n_before"], row["n_after"]) == (2, 0) and np.isnan(row["difference"])
    assert row["note"] == "no graded problem dated on or after the split date"


def test_no_grade_row_gives_a_date_split_table_without_rows(tmp_path):
    grades = write_artifact([], tmp_path / "b/grade/shard-0.parquet", "grades")
    out = aggregate_outputs(tmp_path)
    aggregate([str(grades)], outputs=out, config=validate_config(config()), published_dir=None)
    assert read_artifact(out["date_split_parquet"]).num_rows == 0


def test_the_date_split_figure_is_drawn_from_the_table(tmp_path):
    grades, conversions = write_run(tmp_path)
    frame = read_artifact(grades[0], "grades").to_pandas()
    dates = read_artifact(conversions[0], "conversions").to_pandas()
    table = build_date_split(frame, dates, {"m": ("2024-08", "knowledge_cutoff")}, n_boot=200)
    png, pdf = figures.plot_date_split(table, tmp_path / "figures" / "accuracy_by_date.png")
    assert_valid_png_and_pdf(png) is None and pdf.exists()
    again = figures.plot_date_split(table, tmp_path / "again" / "accuracy_by_date.png")[0]
    assert again.read_bytes() == png.read_bytes()


def test_the_date_split_figure_says_why_it_has_no_point(tmp_path):
    grades, conversions = write_run(tmp_path)
    frame = read_artifact(grades[0], "grades").to_pandas()
    table = build_date_split(frame, read_artifact(conversions[0], "conversions").to_pandas(), {})
    assert "floor: the model has no knowledge_cutoff or release_date" in figures.notes_message(table)
    assert_valid_png_and_pdf(figures.plot_date_split(table, tmp_path / "none.png")[0])
