"""Originals, variants and fresh problems side by side (issue 40): the table built by the aggregate
job from real grade and variant artifacts, its pairing of each original with its own variants, its
notes where a model or slice has no data, the config's `aggregate.fresh`, and the figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_by_date import aggregate_outputs
from test_figures import assert_valid_png_and_pdf, drawn_figure
from test_leaderboard import grade_row

from extrembench.core.artifacts import VARIANTS, read_artifact, write_artifact
from extrembench.core.config import validate_config
from extrembench.core.errors import InputError
from extrembench.report.results import figures
from extrembench.report.results.aggregate import aggregate
from extrembench.report.results.slices import SLICES, build_slices, read_variants, slice_benchmarks

GRADES = {  # (benchmark, model, problem) → trial outcomes
    ("b", "m", "p1"): [True, True],
    ("b", "m", "p2"): [True, True],
    ("b", "m", "p3"): [False, False],
    ("b", "m", "p4"): [True, False],  # no confirmed variant: in `all` only
    ("b-variants", "m", "p1~constants-1"): [False],
    ("b-variants", "m", "p1~constants-2"): [True],
    ("b-variants", "m", "p2~constants-1"): [True],
    ("b-variants", "m", "p3~constants-1"): [False],
    ("b-variants", "m", "p1~rename-1"): [True],  # a control kind: not a fresh version
    ("f", "m", "f1"): [False, False],
    ("f", "m", "f2"): [True, False],
    ("b", "floor", "p1"): [False, False],  # no variant and no fresh problem graded
}
VARIANT_ROWS = [  # (variant, parent, kind, status)
    ("p1~constants-1", "p1", "constants", "confirmed"),
    ("p1~constants-2", "p1", "constants", "confirmed"),
    ("p2~constants-1", "p2", "constants", "confirmed"),
    ("p3~constants-1", "p3", "constants", "confirmed"),
    ("p4~constants-9", "p4", "constants", "dropped"),
    ("p1~rename-1", "p1", "rename", "confirmed"),
]


def variant_row(problem: str, parent: str, kind: str, status: str) -> dict:
    row = dict.fromkeys(VARIANTS.names)
    return row | {
        "benchmark": "b",
        "variant_benchmark": "b-variants",
        "problem_id": problem,
        "parent_id": parent,
        "kind": kind,
        "status": status,
    }


def write_run(root: Path, grades=GRADES) -> tuple[list[str], list[str]]:
    """Real grade artifacts (one per benchmark) and the vary stage's artifact of benchmark b."""
    files = []
    for benchmark in sorted({b for b, _, _ in grades}):
        rows = [
            grade_row(b, model, problem, trial, correct)
            for (b, model, problem), outcomes in grades.items()
            if b == benchmark
            for trial, correct in enumerate(outcomes)
        ]
        files.append(str(write_artifact(rows, root / f"{benchmark}/grade/shard-0.parquet", "grades")))
    variants = write_artifact([variant_row(*v) for v in VARIANT_ROWS], root / "b/variants/shard-0.parquet", "variants")
    return files, [str(variants)]


def config(benchmarks=("b", "b-variants", "f"), models=("m", "floor", "ghost")) -> dict:
    return {
        "benchmarks": {
            "b": {"kind": "extremal", "problems": "problems", "shards": 1, "trials": 2},
            "f": {"kind": "extremal", "problems": "fresh", "shards": 1, "trials": 2},
        },
        "aggregate": {"fresh": ["f"]},
        "models": {name: {"backend": "symmetric-guess"} for name in models},
        "evaluate": {"models": list(models), "benchmarks": list(benchmarks)},
        "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    }


def outputs(root: Path) -> dict[str, Path]:
    return aggregate_outputs(root) | {"slices": root / "slices.csv", "slices_parquet": root / "slices.parquet"}


@pytest.fixture
def table(tmp_path) -> pd.DataFrame:
    """The table as the aggregate job writes it from the run above, read back."""
    grades, variants = write_run(tmp_path)
    out = outputs(tmp_path)
    aggregate(grades, outputs=out, config=validate_config(config()), published_dir=None, variant_files=variants)
    parquet = read_artifact(out["slices_parquet"])
    assert parquet.schema.remove_metadata().equals(SLICES)
    assert pd.read_csv(out["slices"]).shape == (3, len(SLICES))
    return parquet.to_pandas().set_index("model")


def test_each_original_is_paired_with_its_own_constants_variants(table):
    m = table.loc["m"]
    assert (m["benchmark"], m["variant_benchmark"], m["fresh_benchmark"]) == ("b", "b-variants", "f")
    assert (m["n_all"], m["accuracy_all"]) == (4, pytest.approx((1 + 1 + 0 + 0.5) / 4))
    # p4's variant was dropped and p1's rename is a control: p1, p2, p3 against their constants variants
    assert (m["n_originals"], m["accuracy_originals"]) == (3, pytest.approx(2 / 3))
    # p1 pools its two variants (0, 1) → 1/2; p2 → 1; p3 → 0
    assert (m["n_variants"], m["accuracy_variants"]) == (4, pytest.approx(0.5))
    assert m["variants_difference"] == pytest.approx(0.5 - 2 / 3)
    assert m["variants_diff_low"] <= m["variants_difference"] <= m["variants_diff_high"]
    assert (m["n_fresh"], m["accuracy_fresh"]) == (2, pytest.approx(0.25))
    assert m["fresh_difference"] == pytest.approx(0.25 - 0.625)  # against every original, not the paired ones
    assert m["fresh_diff_low"] <= m["fresh_difference"] <= m["fresh_diff_high"]
    for side in ("all", "originals", "variants", "fresh"):
        assert m[f"{side}_low"] <= m[f"accuracy_{side}"] <= m[f"{side}_high"]
    assert m["note"] == ""


def test_a_model_or_slice_without_data_gets_a_note(table):
    floor, ghost = table.loc["floor"], table.loc["ghost"]
    assert floor["n_all"] == 1 and floor["n_originals"] == floor["n_fresh"] == 0
    assert np.isnan(floor["accuracy_variants"]) and np.isnan(floor["fresh_difference"])
    assert floor["note"] == (
        "no graded problem of b has a confirmed constants variant graded on b-variants; no graded problem of f"
    )
    assert ghost["note"] == "no graded problem of b; no graded problem of f"


def test_a_run_without_variants_or_fresh_benchmark_says_so(tmp_path):
    grades, variants = write_run(tmp_path)
    frame = pd.concat([read_artifact(p, "grades").to_pandas() for p in grades], ignore_index=True)
    pairs, fresh = slice_benchmarks(validate_config(config(benchmarks=("b",))))
    assert (pairs, fresh) == ({}, [])
    table = build_slices(frame, read_variants(variants), pairs=pairs, fresh=fresh, models=["m"], n_boot=100)
    row = table.iloc[0]
    assert row["benchmark"] is None and row["fresh_benchmark"] is None and row["n_all"] == 0
    assert row["note"] == (
        "no variants benchmark in the run (list <benchmark>-variants under evaluate.benchmarks); "
        "no benchmark of aggregate.fresh in the run"
    )


def test_the_table_is_seeded(tmp_path):
    grades, variants = write_run(tmp_path)
    frame = pd.concat([read_artifact(p, "grades").to_pandas() for p in grades], ignore_index=True)
    pairs, fresh = slice_benchmarks(validate_config(config()))
    build = lambda: build_slices(frame, read_variants(variants), pairs=pairs, fresh=fresh, models=["m"], n_boot=100)  # noqa: E731
    pd.testing.assert_frame_equal(build(), build())


@pytest.mark.parametrize(
    ("fresh", "message"),
    [
        (["g"], "aggregate.fresh: 'g' is not a configured benchmark"),
        (["b-variants"], "aggregate.fresh: 'b-variants' is a variants benchmark"),
    ],
)
def test_aggregate_fresh_names_a_configured_benchmark_of_its_own_problems(fresh, message):
    raw = config() | {"aggregate": {"fresh": fresh}}
    with pytest.raises(InputError, match=message):
        validate_config(raw)


def test_a_fresh_benchmark_the_run_does_not_evaluate_is_left_out():
    assert slice_benchmarks(validate_config(config(benchmarks=("b", "b-variants")))) == ({"b": "b-variants"}, [])


def test_the_shipped_config_marks_extrem_fresh():
    cfg = validate_config(yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text()))
    assert slice_benchmarks(cfg) == ({"extrem": "extrem-variants"}, ["extrem-fresh"])


def test_the_figure_is_drawn_with_its_legend_outside_the_panel(monkeypatch, tmp_path, table):
    shown = table.reset_index()
    png, pdf = figures.plot_slices(shown, tmp_path / "figures" / "originals_variants_fresh.png")
    assert_valid_png_and_pdf(png) is None and pdf.exists()
    again = figures.plot_slices(shown, tmp_path / "again" / "originals_variants_fresh.png")[0]
    assert again.read_bytes() == png.read_bytes()
    figure = drawn_figure(monkeypatch, figures.plot_slices, shown, tmp_path)
    renderer = figure.canvas.get_renderer()
    legends = list(figure.legends) + [a.get_legend() for a in figure.axes if a.get_legend() is not None]
    assert len(legends) == 1
    for axes in figure.axes:
        assert not legends[0].get_window_extent(renderer).overlaps(axes.get_window_extent(renderer))
    entries = " ".join(t.get_text() for t in legends[0].get_texts())
    assert "originals" in entries and "variants" in entries and "fresh" in entries
    assert "ghost" in entries  # a model without a bar is named, not dropped


def test_the_figure_says_why_it_has_no_bar(tmp_path):
    table = pd.DataFrame([{c: None for c in SLICES.names} | {"model": "m", "note": "no graded problem of b"}])
    table[[c for c in SLICES.names if c.startswith("n_")]] = 0
    assert "m: no graded problem of b" in figures.notes_message(table)
    assert_valid_png_and_pdf(figures.plot_slices(table, tmp_path / "none.png")[0])
