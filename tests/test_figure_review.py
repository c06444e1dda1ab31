"""The figures as a reviewer reads them without the code (issue 37, reviewed one by one after the
default run): every bar says its value (a 0 % bar was invisible and unlabelled), n and the interval
method are on each figure, the heatmap names its problems, the variant figure has one legend
entry per model with Δ defined, no panel runs past the k its trials allow, and the x axis of a
CPU-only run's 'cost' figure is called time."""

from __future__ import annotations

import pandas as pd
import pytest
from test_figures import drawn_figure, house2_leaderboard, visible_texts
from test_leaderboard import grade_row, grades_table

from extrembench.report.results import figures
from extrembench.report.results.leaderboard import build_leaderboard


def texts(figure) -> str:
    shown = [t for t, _ in visible_texts(figure)]
    shown += [t.get_text() for legend in figure.legends for t in legend.get_texts()]  # figure-level legends
    return " ".join(" ".join(t.split()) for t in shown)


@pytest.fixture
def two_benchmarks(tmp_path) -> pd.DataFrame:
    """60 problems on one benchmark (2 trials), 3 on another (1 trial); model 'zero' never right."""
    rows = [
        grade_row(benchmark="extrem", model=m, problem_id=f"ineq-{i:04d}", trial=t, correct=(m == "good" and i % 3 > 0))
        for m in ("good", "zero")
        for i in range(60)
        for t in range(2)
    ]
    rows += [
        grade_row(benchmark="extrem-variants", model=m, problem_id=f"ineq-{i:04d}-constants-1", correct=m == "good")
        for m in ("good", "zero")
        for i in range(3)
    ]
    return grades_table(rows, tmp_path)


def test_every_bar_says_its_value_and_the_figure_its_n_and_interval(monkeypatch, tmp_path, two_benchmarks):
    board = build_leaderboard(two_benchmarks)
    figure = drawn_figure(monkeypatch, figures.plot_main, board, tmp_path)
    shown = texts(figure)
    assert shown.count("0.0") >= 2  # the never-right model's bars on both benchmarks
    assert "66.7" in shown
    assert "n = 60 problems × 2 trials" in shown and "n = 3 problems × 1 trial" in shown
    assert "95 % two-level bootstrap CI" in shown


def test_a_panel_shows_only_the_k_its_trials_allow(monkeypatch, tmp_path, two_benchmarks):
    figure = drawn_figure(monkeypatch, figures.plot_pass_at_k, build_leaderboard(two_benchmarks), tmp_path)
    extrem, variants = figure.axes[:2]
    assert [t.get_text() for t in extrem.get_xticklabels()] == ["1", "2"]
    assert [t.get_text() for t in variants.get_xticklabels()] == ["1"]
    assert variants.get_xlim()[1] < 2  # no empty k = 2 column


def test_the_heatmap_names_every_problem(monkeypatch, tmp_path, two_benchmarks):
    figure = drawn_figure(monkeypatch, lambda board, out: figures.plot_heatmap(two_benchmarks, out), None, tmp_path)
    labels = [t.get_text() for t in figure.axes[0].get_xticklabels()]
    assert sorted(labels) == [f"ineq-{i:04d}" for i in range(60)]


def memorization(models: int = 5) -> pd.DataFrame:
    rows = []
    for index in range(models):
        for kind, shift in (("constants", -0.1), ("rename", 0.0), ("rephrase", 0.02)):
            o = 0.2 * index
            v = max(0.0, o + shift)
            rows.append(
                dict(
                    model=f"m{index}",
                    kind=kind,
                    accuracy_original=o,
                    original_low=max(0, o - 0.1),
                    original_high=min(1, o + 0.1),
                    accuracy_variant=v,
                    variant_low=max(0, v - 0.1),
                    variant_high=min(1, v + 0.1),
                    difference=v - o,
                    significant=False,
                )
            )
    return pd.DataFrame(rows)


def test_the_variant_figure_has_one_entry_per_model_and_defines_delta(monkeypatch, tmp_path):
    figure = drawn_figure(monkeypatch, figures.plot_original_vs_variant, memorization(5), tmp_path)
    entries = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert len(entries) == 5 + 3  # 5 models, the diagonal, filled and hollow
    assert "m1: Δ = -10.0 pts" in entries
    assert "Δ = variant − original accuracy" in texts(figure)


def test_a_cpu_only_run_plots_time_not_cost(monkeypatch, tmp_path):
    figure = drawn_figure(monkeypatch, figures.plot_accuracy_vs_cost, house2_leaderboard(), tmp_path)
    title = figure.axes[0].get_title()
    assert title.startswith("Accuracy vs compute time") and "cost" not in title.lower()
    assert "n = 48 problems" in texts(figure)


def test_the_pass_at_k_legend_covers_no_point(monkeypatch, tmp_path, two_benchmarks):
    """In the default run the last panel's legend sat on the symmetric guess's point: the legend
    now lives outside every panel, and still names every model once."""
    figure = drawn_figure(monkeypatch, figures.plot_pass_at_k, build_leaderboard(two_benchmarks), tmp_path)
    renderer = figure.canvas.get_renderer()
    legends = list(figure.legends) + [a.get_legend() for a in figure.axes if a.get_legend() is not None]
    assert len(legends) == 1
    box = legends[0].get_window_extent(renderer)
    for axes in figure.axes:
        assert not box.overlaps(axes.get_window_extent(renderer)), axes.get_title()
    assert sorted(t.get_text() for t in legends[0].get_texts()) == ["good", "zero"]
