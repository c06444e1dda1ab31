"""The five figures from constructed grade files: each writes a valid PNG and PDF, works with one
model and one benchmark, is byte-for-byte reproducible, and the main figure puts published bars
beside reproduced ones."""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PIL import Image
from test_leaderboard import grade_row, grades_table, mixed_rows

from extrembench.core.config import validate_config
from extrembench.report.results import figures
from extrembench.report.results.leaderboard import build_leaderboard
from extrembench.report.results.published import aliases_from_config, align_published, compare_published, load_published

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


@pytest.mark.parametrize(
    ("values", "span", "scale"),
    [
        ([41.8, 42.8], 10, "linear"),  # the default run: a log axis printed 4.2 × 10¹ … 4.28 × 10¹
        ([500, 30000], 10, "log"),
        ([500, 4000], 10, "linear"),
        ([0.0026, 0.017, 0.17], 100, "linear"),  # the default run's wall-hours: 65×
        ([0.001, 0.5], 100, "log"),
        ([0, 0, 12.0], 10, "linear"),  # zeros are not plotted and do not count
        ([], 10, "linear"),
    ],
)
def test_x_scale(values, span, scale):
    assert figures.x_scale(values, span=span) == scale


def house2_leaderboard() -> pd.DataFrame:
    """The default run's leaderboard, cut to what the figures read: one LLM with token counts on
    two benchmarks at nearly the same length, two baselines without, wall-hours as cost."""
    rows = []
    for benchmark, shift in (("extrem", 0.0), ("extrem-variants", 0.01)):
        for model, accuracy, tokens, hours, truncated in (
            ("gemma3-270m", 0.0104 - shift, 42.8 - 100 * shift, 0.1717 - shift, 0.79),
            ("reference-solver", 0.9896 + shift, float("nan"), 0.0162 + shift / 10, 0.0),
            ("symmetric-guess", 0.3125 + shift / 3, float("nan"), 0.0026, 0.0),
        ):
            rows.append(
                dict(
                    benchmark=benchmark,
                    model=model,
                    extremal=True,
                    accuracy_mean=accuracy,
                    ci_low=max(0.0, accuracy - 0.1),
                    ci_high=min(1.0, accuracy + 0.1),
                    output_tokens_mean=tokens,
                    truncation_rate=truncated,
                    wall_hours=hours,
                    gpu_hours=0.0,
                    cost=float("nan"),
                    n_problems=48 if benchmark == "extrem" else 110,
                    n_trials=2 if model == "gemma3-270m" else 1,
                )
            )
    return pd.DataFrame(rows)


def drawn_figure(monkeypatch, draw, leaderboard, tmp_path):
    """Draw through `draw` and return the Figure it would have saved, laid out as when saved."""
    captured = {}

    def capture(figure, out_png):
        FigureCanvasAgg(figure).draw()
        captured["figure"] = figure
        return Path(out_png), Path(out_png).with_suffix(".pdf")

    monkeypatch.setattr(figures, "save_figure", capture)
    draw(leaderboard, tmp_path / "figure.png")
    return captured["figure"]


def visible_texts(figure):
    """(text, window box) of every label drawn: titles, axis labels, annotations, legend entries
    and the tick labels inside the axes' limits (matplotlib keeps invisible ones beyond them)."""
    renderer = figure.canvas.get_renderer()
    texts = list(figure.texts)
    for axes in figure.axes:
        texts += [axes.title, axes.xaxis.label, axes.yaxis.label, *axes.texts]
        legend = axes.get_legend()
        texts += legend.get_texts() if legend else []
        ticks = [
            (axes.get_xticklabels(), sorted(axes.get_xlim()), 0),
            (axes.get_yticklabels(), sorted(axes.get_ylim()), 1),
        ]
        for labels, (low, high), index in ticks if axes.axison else []:
            texts += [t for t in labels if low <= t.get_position()[index] <= high]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts if t.get_visible() and t.get_text().strip()]


@pytest.mark.parametrize("draw", [figures.plot_accuracy_vs_cost, figures.plot_accuracy_vs_tokens])
def test_no_text_overlaps_another_or_leaves_the_figure(draw, monkeypatch, tmp_path):
    """The default run's cost figure printed 'reference-solver' over 'reference-solver' and cut
    'gemma3-270m' at the right edge."""
    figure = drawn_figure(monkeypatch, draw, house2_leaderboard(), tmp_path)
    texts = visible_texts(figure)
    canvas = figure.bbox
    for text, box in texts:
        assert canvas.x0 - 0.5 <= box.x0 and box.x1 <= canvas.x1 + 0.5, f"{text!r} leaves the figure"
        assert canvas.y0 - 0.5 <= box.y0 and box.y1 <= canvas.y1 + 0.5, f"{text!r} leaves the figure"
    for (text_a, a), (text_b, b) in itertools.combinations(texts, 2):
        assert not a.overlaps(b), f"{text_a!r} overlaps {text_b!r}"


def test_tokens_figure_with_one_llm_plots_it_and_names_the_rest(monkeypatch, tmp_path):
    """Issue 37: the figure was a text-only placeholder when one model reported tokens."""
    figure = drawn_figure(monkeypatch, figures.plot_accuracy_vs_tokens, house2_leaderboard(), tmp_path)
    assert figure.axes[0].axison
    text = " ".join(t for t, _ in visible_texts(figure))
    assert text.count("79 % cut off") == 2  # both benchmarks' points, labelled
    assert "not shown, no token counts: reference-solver, symmetric-guess" in " ".join(text.split())
    assert "n = 48 problems × 1–2 trials" in text and "two-level bootstrap" in text


@pytest.mark.parametrize(
    ("models_with_tokens", "message_starts"),
    [
        ([], "No model in this run reports output tokens"),
        (["a"], None),  # one model: a plot
        (["a", "b"], None),
    ],
)
def test_tokens_message(models_with_tokens, message_starts):
    leaderboard = pd.DataFrame(
        [
            dict(
                benchmark="x",
                model=m,
                accuracy_mean=0.5,
                output_tokens_mean=100.0 if m in models_with_tokens else float("nan"),
            )
            for m in ("a", "b", "c")
        ]
    )
    message = figures.tokens_message(leaderboard)
    assert message == message_starts if message_starts is None else message.startswith(message_starts)


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
            "evaluate": {"models": ["q4b", "oss120"], "benchmarks": ["extremal", "aime25"], "unpinned_weights": True},
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
