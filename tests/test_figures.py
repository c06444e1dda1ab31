"""The five figures from constructed grade files: each writes a valid PNG and PDF, works with one
model and one benchmark, is byte-for-byte reproducible, and the main figure puts published bars
beside reproduced ones."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from PIL import Image
from test_leaderboard import grade_row, grades_table, mixed_rows

from extrembench.core.config import validate_config
from extrembench.report import figures
from extrembench.report.leaderboard import build_leaderboard
from extrembench.report.published import aliases_from_config, align_published, compare_published, load_published

REPO = Path(__file__).resolve().parents[1]


def assert_valid_png_and_pdf(png: Path) -> None:
    with Image.open(png) as image:
        image.verify()
        assert image.format == "PNG"
    pdf = png.with_suffix(".pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert b"CreationDate" not in pdf


@pytest.fixture
def grades(tmp_path) -> pd.DataFrame:
    return grades_table(mixed_rows(), tmp_path)


@pytest.fixture
def one_model_one_benchmark(tmp_path) -> pd.DataFrame:
    rows = [grade_row(problem_id=f"p{i}", trial=t, correct=(i + t) % 2 == 0) for i in range(3) for t in range(2)]
    return grades_table(rows, tmp_path, "tiny.parquet")


FIGURES = [
    ("main", lambda lb, g, out: figures.plot_main(lb, out)),
    ("scatter", lambda lb, g, out: figures.plot_scatter(lb, out)),
    ("tokens", lambda lb, g, out: figures.plot_accuracy_vs_tokens(lb, out)),
    ("pass_at_k", lambda lb, g, out: figures.plot_pass_at_k(lb, out)),
    ("heatmap", lambda lb, g, out: figures.plot_heatmap(g, out)),
]


@pytest.mark.parametrize(("name", "draw"), FIGURES)
def test_figure_writes_png_and_pdf(name, draw, grades, tmp_path):
    png, pdf = draw(build_leaderboard(grades), grades, tmp_path / "figures" / f"{name}.png")
    assert png == tmp_path / "figures" / f"{name}.png" and pdf == png.with_suffix(".pdf")
    assert_valid_png_and_pdf(png)


@pytest.mark.parametrize(("name", "draw"), FIGURES)
def test_figure_works_with_one_model_and_one_benchmark(name, draw, one_model_one_benchmark, tmp_path):
    png, _ = draw(build_leaderboard(one_model_one_benchmark), one_model_one_benchmark, tmp_path / f"{name}.png")
    assert_valid_png_and_pdf(png)


@pytest.mark.parametrize(("name", "draw"), FIGURES)
def test_figure_bytes_are_reproducible(name, draw, grades, tmp_path):
    leaderboard = build_leaderboard(grades)
    first, _ = draw(leaderboard, grades, tmp_path / "a" / f"{name}.png")
    second, _ = draw(leaderboard, grades, tmp_path / "b" / f"{name}.png")
    assert first.read_bytes() == second.read_bytes()
    assert first.with_suffix(".pdf").read_bytes() == second.with_suffix(".pdf").read_bytes()


CORRELATION = {"spearman": 0.6, "spearman_low": 0.1, "spearman_high": 0.9}


@pytest.mark.parametrize(
    ("row", "label"),
    [
        ({**CORRELATION, "n_models": 13}, "ρ = 0.60 [0.10, 0.90] (13 models)"),
        ({**CORRELATION, "n_models": 5, "spearman_low": float("nan")}, "ρ = 0.60 (5 models)"),
        # the default run's 3 models once read "ρ = 1.00 [1.00, 1.00]"
        ({"spearman": 1.0, "spearman_low": 1.0, "spearman_high": 1.0, "n_models": 3}, "ρ: not computed: 3 models < 5"),
        (
            {**CORRELATION, "spearman": float("nan"), "n_models": 6},
            "ρ: not computed: one benchmark ranks all 6 models alike",
        ),
    ],
)
def test_correlation_label(row, label):
    assert figures.correlation_label("ρ", row, "spearman") == label


def test_figure_output_must_be_png(grades, tmp_path):
    with pytest.raises(ValueError, match=r"must end in \.png"):
        figures.plot_main(build_leaderboard(grades), tmp_path / "main.pdf")


def test_main_figure_bars_sorted_by_extremal_accuracy_with_published_beside(grades, tmp_path):
    leaderboard = build_leaderboard(grades)
    published = pd.DataFrame(
        {
            "benchmark": ["extrem", "aime2025", "extrem", "math500"],
            "model": ["alpha", "alpha", "paper-only", "alpha"],
            "accuracy": [0.80, 0.70, 0.95, 0.90],
        }
    )
    bars = figures.main_figure_bars(leaderboard, published)
    # extrem accuracy: alpha 11/18 (reproduced), beta 2/3 (reproduced), paper-only 0.95 (published)
    assert list(dict.fromkeys(bars["model"])) == ["paper-only", "beta", "alpha"]
    alpha = bars[bars["model"] == "alpha"]
    assert list(zip(alpha["benchmark"], alpha["kind"])) == [
        ("extrem", "reproduced"),
        ("extrem", "published"),
        ("aime2025", "reproduced"),
        ("aime2025", "published"),
    ]
    assert alpha.set_index(["benchmark", "kind"]).loc[("extrem", "published"), "value"] == 0.80
    assert "math500" not in set(bars["benchmark"])  # not in this run: not drawn
    png, _ = figures.plot_main(leaderboard, tmp_path / "main.png", published=published)
    assert_valid_png_and_pdf(png)
    without, _ = figures.plot_main(leaderboard, tmp_path / "plain" / "main.png")
    assert png.read_bytes() != without.read_bytes()


def test_main_figure_with_the_papers_published_numbers(tmp_path):
    """Grade files named like a real run (config names), published numbers from data/published
    aligned through the config's dataset and hf_id fields."""
    config = validate_config(
        {
            "benchmarks": {
                "extremal": {"kind": "ingested", "dataset": "extrem-bench"},
                "aime25": {"kind": "ingested", "dataset": "aime2025"},
            },
            "models": {
                "q4b": {"backend": "sglang", "hf_id": "Qwen/Qwen3-4B-Thinking-2507", "size_class": "gpu1"},
                "oss120": {"backend": "sglang", "hf_id": "openai/gpt-oss-120b", "size_class": "gpu1"},
            },
            "evaluate": {"models": ["q4b", "oss120"], "benchmarks": ["extremal", "aime25"]},
            "resources": {"cpu": {}, "gpu1": {"gpu": 1}},
        }
    )
    rows = [
        grade_row(
            benchmark=benchmark,
            model=model,
            problem_id=f"p{i}",
            trial=t,
            correct=(i + t) % 4 != 0,
            sense="min" if benchmark == "extremal" else None,
        )
        for benchmark in ("extremal", "aime25")
        for model in ("q4b", "oss120")
        for i in range(8)
        for t in range(3)
    ]
    leaderboard = build_leaderboard(grades_table(rows, tmp_path))
    benchmarks, models = aliases_from_config(config)
    published = align_published(load_published(REPO / "data" / "published"), benchmarks=benchmarks, models=models)
    bars = figures.main_figure_bars(leaderboard, published)
    q4b = bars[bars["model"] == "q4b"].set_index(["benchmark", "kind"])["value"]
    assert q4b[("extremal", "published")] == pytest.approx(0.8495)
    assert q4b[("aime25", "published")] == pytest.approx(0.813)
    assert ("extremal", "reproduced") in q4b.index
    comparison = compare_published(leaderboard, published)
    row = comparison[(comparison["benchmark"] == "extremal") & (comparison["model"] == "q4b")].iloc[0]
    assert row["difference"] == pytest.approx(row["accuracy_reproduced"] - 0.8495)
    png, _ = figures.plot_main(leaderboard, tmp_path / "main.png", published=published)
    assert_valid_png_and_pdf(png)


@pytest.mark.parametrize(
    ("csv", "message"),
    [
        ("benchmark,model,accuracy_percent\nb,m,50\n", r"missing columns \['source'\]"),
        ("benchmark,model,accuracy_percent,source\nb,m,,paper\n", r"row 1: field 'accuracy_percent' is empty"),
        ("benchmark,model,accuracy_percent,source\nb,m,0.5x,paper\n", r"row 1: field 'accuracy_percent' is '0.5x'"),
        ("benchmark,model,accuracy_percent,source\nb,m,150,paper\n", r"outside 0–100"),
        ("benchmark,model,accuracy_percent,source\nb,m,50,p\nb,M,60,q\n", r"more than once: \[\('b', 'm'\)\]"),
    ],
)
def test_published_loader_names_file_and_field(csv, message, tmp_path):
    (tmp_path / "bad.csv").write_text(csv, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        load_published(tmp_path)
    assert "bad.csv" in str(error.value)


def test_published_data_carries_a_citation_for_every_number():
    published = load_published(REPO / "data" / "published")
    assert published["source"].str.len().gt(10).all()
    assert set(published["benchmark"]) == {"extrem-bench", "aime2025", "math500"}
    assert published["accuracy"].between(0, 1).all()
