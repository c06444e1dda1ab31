"""The five result figures, in one style: Okabe–Ito colours (distinguishable with every common
colour-vision deficiency), cividis for the heatmap, labelled axes with units.

Each function writes the PNG it is given and a PDF beside it, with no timestamps or software
versions in the file metadata, so identical tables give identical bytes. Figures are built on
matplotlib's object API (no pyplot state), so they are safe to call from any thread.
Every function works with one model and one benchmark (the tiny default run).
"""

from __future__ import annotations

import functools
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from extrembench.report.results.leaderboard import build_correlations, build_problem_model_rates
from extrembench.report.results.metrics import MIN_MODELS_FOR_CORRELATION, correlation_note

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
STYLE = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.hashsalt": "extrembench",
}
PNG_METADATA = {"Software": None}
PDF_METADATA = {"Creator": None, "Producer": None, "CreationDate": None}


def save_figure(figure: Figure, out_png: str | Path) -> tuple[Path, Path]:
    """Write out_png and the PDF beside it, without volatile metadata."""
    out_png = Path(out_png)
    if out_png.suffix.lower() != ".png":
        raise ValueError(f"{out_png}: figure output must end in .png (the PDF is written beside it)")
    out_png.parent.mkdir(parents=True, exist_ok=True)
    out_pdf = out_png.with_suffix(".pdf")
    figure.savefig(out_png, dpi=150, metadata=PNG_METADATA)
    figure.savefig(out_pdf, metadata=PDF_METADATA)
    return out_png, out_pdf


def styled(draw):
    """Run a figure function inside the project style: rcParams are read when each artist is
    created, so the whole drawing, not just the Figure() call, must be inside the context."""

    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(STYLE):
            return draw(*args, **kwargs)

    return wrapper


def _new_figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def benchmark_order(leaderboard: pd.DataFrame) -> list[str]:
    """Extremal benchmarks first, then the rest, each alphabetically."""
    flags = leaderboard.groupby("benchmark")["extremal"].any() if "extremal" in leaderboard else None
    names = sorted(leaderboard["benchmark"].unique())
    if flags is None:
        return names
    return sorted(names, key=lambda b: (not bool(flags.get(b, False)), b))


def benchmark_colours(benchmarks: list[str]) -> dict[str, str]:
    return {b: OKABE_ITO[i % len(OKABE_ITO)] for i, b in enumerate(benchmarks)}


def _percent(series) -> np.ndarray:
    return 100.0 * np.asarray(series, dtype=float)


# How every interval on the figures is computed (extrembench/report/results/metrics.py, docs/metrics.md).
INTERVAL = "95 % two-level bootstrap CI"


def value_label(value: float) -> str:
    """A bar's printed value in percent; a missing bar says so."""
    return "n/a" if np.isnan(value) else f"{value:.1f}"


def sample_size(leaderboard: pd.DataFrame, benchmark: str) -> str:
    """'n = 48 problems × 1 trial' for a benchmark ('1–2 trials' when its models differ)."""
    rows = leaderboard[leaderboard["benchmark"] == benchmark]
    problems, fewest, most = int(rows["n_problems"].max()), int(rows["n_trials"].min()), int(rows["n_trials"].max())
    trials = str(most) if fewest == most else f"{fewest}–{most}"
    return f"n = {problems} problems × {trials} trial{'s' if most != 1 else ''}"


def _whiskers(value: float, low: float, high: float) -> list[list[float]]:
    """errorbar's [[below], [above]] for a value in percent and its interval in fractions."""
    return [[max(0.0, value - 100 * low)], [max(0.0, 100 * high - value)]]


def main_figure_bars(
    leaderboard: pd.DataFrame, published: pd.DataFrame | None = None, sort_by: str | None = None
) -> pd.DataFrame:
    """The bars of the main figure in drawing order: one row per (model, benchmark, kind) with
    kind 'reproduced' (value = accuracy_mean, low/high = the 95 % interval) or 'published'
    (value = the published accuracy, no interval); accuracies as fractions.

    Benchmarks: those of the leaderboard, extremal first; published rows for other benchmarks are
    ignored. Models: every model with a reproduced or published value, best first by accuracy on
    `sort_by` (default: the first extremal benchmark; the reproduced value, else the published
    one), models without a value there last, alphabetically."""
    benchmarks = benchmark_order(leaderboard)
    sort_by = sort_by or benchmarks[0]
    bars = (
        leaderboard[["model", "benchmark", "accuracy_mean", "ci_low", "ci_high"]]
        .rename(columns={"accuracy_mean": "value", "ci_low": "low", "ci_high": "high"})
        .assign(kind="reproduced")
    )
    if published is not None and not published.empty:
        quoted = published.loc[published["benchmark"].isin(benchmarks), ["model", "benchmark", "accuracy"]]
        bars = pd.concat(
            [bars, quoted.rename(columns={"accuracy": "value"}).assign(kind="published")], ignore_index=True
        )
    on_sort = bars[(bars["benchmark"] == sort_by) & bars["value"].notna()]
    on_sort = on_sort.sort_values("kind", ascending=False, kind="stable")  # 'reproduced' before 'published'
    sort_value = on_sort.groupby("model", sort=False)["value"].first()
    models = sorted(set(bars["model"]), key=lambda m: (m not in sort_value.index, -sort_value.get(m, 0.0), m))
    bars["model_rank"] = bars["model"].map({m: i for i, m in enumerate(models)})
    bars["benchmark_rank"] = bars["benchmark"].map({b: i for i, b in enumerate(benchmarks)})
    bars["kind_rank"] = (bars["kind"] == "published").astype(int)
    bars = bars.sort_values(["model_rank", "benchmark_rank", "kind_rank"], kind="stable")
    return bars[["model", "benchmark", "kind", "value", "low", "high"]].reset_index(drop=True)


def _draw_bars(axes, x, width: float, rows: pd.DataFrame, *, kind: str, colour: str, label: str) -> None:
    """One series of plot_main: reproduced bars with whiskers, or published ones hatched; every bar
    says its value, so a 0 % bar is a labelled 0, not a gap."""
    values = _percent(rows["value"])
    if kind == "reproduced":
        low, high = _percent(rows["low"]), _percent(rows["high"])
        errors = np.vstack([np.clip(values - low, 0, None), np.clip(high - values, 0, None)])
        drawn = axes.bar(
            x,
            values,
            width,
            color=colour,
            label=label,
            yerr=errors,
            capsize=2,
            error_kw={"elinewidth": 0.8, "ecolor": "#333333"},
        )
        axes.bar_label(drawn, labels=[value_label(v) for v in values], padding=2, fontsize=6)
    else:
        drawn = axes.bar(
            x,
            values,
            width,
            color="white",
            edgecolor=colour,
            hatch="///",
            linewidth=0.8,
            label=label,
        )
        axes.bar_label(drawn, labels=[value_label(v) for v in values], padding=2, fontsize=6)


@styled
def plot_main(
    leaderboard: pd.DataFrame, out_png: str | Path, *, published: pd.DataFrame | None = None, sort_by: str | None = None
) -> tuple[Path, Path]:
    """Per model, grouped bars: accuracy on each benchmark (extremal first) with 95 % bootstrap
    whiskers, models sorted by accuracy on `sort_by`. With `published` (columns benchmark, model,
    accuracy as a fraction) the published value stands as a hatched bar beside each reproduced
    one; models only published still appear. Bars: `main_figure_bars`."""
    bars = main_figure_bars(leaderboard, published, sort_by)
    benchmarks = benchmark_order(leaderboard)
    colours = benchmark_colours(benchmarks)
    models = list(dict.fromkeys(bars["model"]))
    series = list(dict.fromkeys(zip(bars["benchmark"], bars["kind"])))
    series.sort(key=lambda s: (benchmarks.index(s[0]), s[1] == "published"))
    width = 0.8 / len(series)
    figure = _new_figure(max(4.0, 1.2 + 0.3 * len(models) * len(series)), 3.6)
    axes = figure.add_subplot()
    x = np.arange(len(models))
    for index, (benchmark, kind) in enumerate(series):
        offset = (index - (len(series) - 1) / 2) * width
        rows = bars[(bars["benchmark"] == benchmark) & (bars["kind"] == kind)].set_index("model").reindex(models)
        label = (
            f"{benchmark} (this run, {sample_size(leaderboard, benchmark)})"
            if kind == "reproduced"
            else f"{benchmark} (published)"
        )
        _draw_bars(axes, x + offset, width, rows, kind=kind, colour=colours[benchmark], label=label)
    sort_by = sort_by or benchmarks[0]
    axes.set_xticks(x, models, rotation=30, ha="right")
    axes.xaxis.grid(False)  # vertical lines through the bar groups only add clutter
    axes.set(
        ylabel="Accuracy (%)",
        xlabel=f"Model (sorted by accuracy on {sort_by})",
        ylim=(0, 112),
        title=f"Accuracy per model and benchmark\n(whiskers: {INTERVAL})",
    )
    # below the plot, not beside it: beside, a narrow figure squeezed the axes and cut the title
    figure.legend(loc="outside lower center", ncols=1, frameon=False)
    return save_figure(figure, out_png)


@styled
def _message_figure(out_png: str | Path, title: str, message: str, *, width: float = 4.5) -> tuple[Path, Path]:
    """A figure that says why there is nothing to plot (e.g. one benchmark, no tokens)."""
    figure = _new_figure(width, 2.5)
    axes = figure.add_subplot()
    axes.set_axis_off()
    axes.set_title(title)
    axes.text(0.5, 0.5, message, ha="center", va="center", wrap=True, transform=axes.transAxes)
    return save_figure(figure, out_png)


def no_result_figure(out_png: str | Path) -> tuple[Path, Path]:
    """A figure of a run whose leaderboard has no row: no benchmark had a confirmed problem to ask."""
    return _message_figure(
        out_png,
        "No result to plot",
        "The leaderboard has no row: no benchmark had a confirmed problem to ask. "
        "tables/review.csv and the end of the run's output name each problem and why.",
    )


def correlation_label(symbol: str, row, method: str) -> str:
    """The legend text of one correlation row: the value with its interval, or why there is none
    (too few models for the number to mean anything, or a constant ranking)."""
    n_models = int(row["n_models"])
    if n_models < MIN_MODELS_FOR_CORRELATION:
        return f"{symbol}: {correlation_note(n_models)}"
    if pd.isna(row[method]):
        return f"{symbol}: not computed: one benchmark ranks all {n_models} models alike"
    low, high = row[f"{method}_low"], row[f"{method}_high"]
    interval = "" if pd.isna(low) else f" [{low:.2f}, {high:.2f}]"
    return f"{symbol} = {row[method]:.2f}{interval} ({n_models} models)"


def _draw_model_points(axes, pair: pd.DataFrame, x_benchmark: str, y_benchmark: str) -> None:
    """plot_scatter's points: one per model (rows of `pair`, wide by benchmark), whiskers on both axes."""
    for index, model in enumerate(sorted(pair.index)):
        row = pair.loc[model]
        xv, yv = 100 * row[("accuracy_mean", x_benchmark)], 100 * row[("accuracy_mean", y_benchmark)]
        axes.errorbar(
            xv,
            yv,
            xerr=_whiskers(xv, row[("ci_low", x_benchmark)], row[("ci_high", x_benchmark)]),
            yerr=_whiskers(yv, row[("ci_low", y_benchmark)], row[("ci_high", y_benchmark)]),
            fmt=MARKERS[index % len(MARKERS)],
            color=OKABE_ITO[index % len(OKABE_ITO)],
            elinewidth=0.7,
            capsize=2,
            label=model,
        )


def _correlation_legend(axes, correlations: pd.DataFrame, x_benchmark: str, y_benchmark: str) -> None:
    """The pair's rank correlations as legend entries without a marker (none when not computed)."""
    match = correlations[
        ((correlations["benchmark_a"] == x_benchmark) & (correlations["benchmark_b"] == y_benchmark))
        | ((correlations["benchmark_a"] == y_benchmark) & (correlations["benchmark_b"] == x_benchmark))
    ]
    if not match.empty:
        c = match.iloc[0]
        for method, symbol in (("spearman", "Spearman ρ"), ("kendall", "Kendall τ")):
            axes.plot([], [], " ", label=correlation_label(symbol, c, method))


@styled
def plot_scatter(
    leaderboard: pd.DataFrame,
    out_png: str | Path,
    *,
    x_benchmark: str | None = None,
    y_benchmark: str | None = None,
    correlations: pd.DataFrame | None = None,
) -> tuple[Path, Path]:
    """One point per model: accuracy on x_benchmark (default: the first extremal one) against
    y_benchmark (default: the next), 95 % whiskers on both axes, the rank correlations in the
    legend. With one benchmark the figure says so instead."""
    benchmarks = benchmark_order(leaderboard)
    title = "Benchmark vs benchmark, one point per model"
    if len(benchmarks) < 2:
        return _message_figure(
            out_png, title, f"Only one benchmark ({benchmarks[0]}) in this run:\nno pair to compare."
        )
    x_benchmark = x_benchmark or benchmarks[0]
    y_benchmark = y_benchmark or next(b for b in benchmarks if b != x_benchmark)
    correlations = build_correlations(leaderboard) if correlations is None else correlations
    wide = leaderboard.pivot(index="model", columns="benchmark", values=["accuracy_mean", "ci_low", "ci_high"])
    pair = wide.loc[wide[("accuracy_mean", x_benchmark)].notna() & wide[("accuracy_mean", y_benchmark)].notna()]
    figure = _new_figure(7.2, 4.2)
    axes = figure.add_subplot()
    axes.plot([0, 100], [0, 100], color="#999999", linewidth=0.8, linestyle="--", label="equal accuracy")
    _draw_model_points(axes, pair, x_benchmark, y_benchmark)
    _correlation_legend(axes, correlations, x_benchmark, y_benchmark)
    axes.set(
        xlim=(-2, 102),  # a model at 0 % or 100 % (the reference solver) is not cut by the frame
        ylim=(-2, 102),
        xlabel=f"Accuracy on {x_benchmark} (%, {sample_size(leaderboard, x_benchmark)})",
        ylabel=f"Accuracy on {y_benchmark} (%, {sample_size(leaderboard, y_benchmark)})",
        title=f"{title}\n(whiskers: {INTERVAL})",
    )
    axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    return save_figure(figure, out_png)


def x_scale(values, *, span: float = 10.0) -> str:
    """'log' when the positive values span more than `span`× (a log axis then separates small and
    large), else 'linear': a log axis over 41.8–42.8 tokens only prints 4.2 × 10¹ tick labels."""
    values = np.asarray(values, dtype=float)
    values = values[values > 0]
    return "log" if values.size and values.max() > span * values.min() else "linear"


def _model_markers(models) -> dict[str, str]:
    return {m: MARKERS[i % len(MARKERS)] for i, m in enumerate(sorted(models))}


def _model_and_benchmark_legend(
    axes, markers: dict[str, str], colours: dict[str, str], leaderboard: pd.DataFrame
) -> None:
    """One legend beside the axes: marker = model, colour = benchmark (with its n). Replaces a
    text label at each point, which overlapped when two points lie close (a model on two benchmarks)."""
    for model, marker in markers.items():
        axes.plot([], [], marker, color="#555555", label=model)
    for benchmark, colour in colours.items():
        axes.plot([], [], "s", color=colour, label=f"{benchmark} ({sample_size(leaderboard, benchmark)})")
    axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)


def _not_shown(axes, why: str, models: list[str]) -> None:
    """A legend line naming the models left off the plot (drawn with the legend that follows)."""
    if models:
        text = textwrap.fill(f"not shown, {why}: {', '.join(models)}", 44, break_on_hyphens=False)
        axes.plot([], [], " ", label=text)


def _points(axes, rows: pd.DataFrame, column: str, markers: dict[str, str], colours: dict[str, str]) -> None:
    for row in rows.sort_values(["benchmark", "model"]).itertuples(index=False):
        value = 100 * row.accuracy_mean
        axes.errorbar(
            getattr(row, column),
            value,
            yerr=_whiskers(value, row.ci_low, row.ci_high),
            fmt=markers[row.model],
            color=colours[row.benchmark],
            elinewidth=0.7,
            capsize=2,
        )


def _scale_x(axes, values, label: str, *, span: float) -> str:
    if x_scale(values, span=span) == "log":
        axes.set_xscale("log")
        return label + ", log scale"
    axes.set_xlim(0, 1.1 * float(np.max(values)))
    return label


def tokens_message(leaderboard: pd.DataFrame) -> str | None:
    """Why the tokens figure draws no plot (None: it draws one): no model of the run reports
    output tokens (non-LLM baselines do not)."""
    if (leaderboard["output_tokens_mean"] > 0).any():
        return None
    return f"No model in this run reports output tokens ({', '.join(sorted(leaderboard['model'].unique()))})."


@styled
def plot_accuracy_vs_tokens(leaderboard: pd.DataFrame, out_png: str | Path) -> tuple[Path, Path]:
    """Accuracy against mean output tokens (reasoning + answer), one marker per model, one colour
    per benchmark; log x when the points span more than 10×. Rows without positive token counts
    (e.g. a non-LLM baseline) are listed in the title instead of plotted; a run where no model
    reports tokens says so (tokens_message). Each point is labelled with its truncation share."""
    title = "Accuracy vs output length"
    message = tokens_message(leaderboard)
    if message is not None:
        return _message_figure(out_png, title, message, width=6.4)
    benchmarks = benchmark_order(leaderboard)
    colours = benchmark_colours(benchmarks)
    usable = leaderboard[leaderboard["output_tokens_mean"] > 0]
    markers = _model_markers(usable["model"].unique())

    def cut_off(axes) -> None:
        for row in usable.itertuples(index=False):
            if pd.notna(row.truncation_rate):
                axes.annotate(
                    f"{100 * row.truncation_rate:.0f} % cut off",
                    (row.output_tokens_mean, 100 * row.accuracy_mean),
                    xytext=(4, 4 + 9 * list(colours).index(row.benchmark)),  # stacked: points may coincide
                    textcoords="offset points",
                    fontsize=6,
                )

    figure = _accuracy_against(
        leaderboard,
        usable,
        "output_tokens_mean",
        ("Mean output tokens per sample (reasoning + answer)", 10),
        (title, (-2, 105)),
        (markers, colours),
        "no token counts",
        annotate=cut_off,
    )
    return save_figure(figure, out_png)


def _accuracy_against(leaderboard, usable, column, x_axis, title_ylim, styles, why, annotate=None) -> Figure:
    """The accuracy-against-a-resource scatter the tokens and cost figures share: the usable rows'
    points with intervals, x log when it spans past x_axis's factor, the models left off named in
    the legend (why), markers and colours explained beside the axes."""
    (x_label, span), (title, ylim), (markers, colours) = x_axis, title_ylim, styles
    figure = _new_figure(6.4, 3.8)
    axes = figure.add_subplot()
    _points(axes, usable, column, markers, colours)
    if annotate is not None:
        annotate(axes)
    label = _scale_x(axes, usable[column].astype(float), x_label, span=span)
    axes.set(ylim=ylim, xlabel=label, ylabel="Accuracy (%)", title=f"{title}\n(whiskers: {INTERVAL})")
    _not_shown(axes, why, sorted(set(leaderboard["model"]) - set(usable["model"])))
    _model_and_benchmark_legend(axes, markers, colours, leaderboard)
    return figure


@styled
def plot_pass_at_k(leaderboard: pd.DataFrame, out_png: str | Path) -> tuple[Path, Path]:
    """pass@k against k (log2 x), one panel per benchmark, one line per model."""
    benchmarks = benchmark_order(leaderboard)
    k_columns = sorted(
        (c for c in leaderboard.columns if c.startswith("pass_at_")), key=lambda c: int(c.rsplit("_", 1)[1])
    )
    models = sorted(leaderboard["model"].unique())
    figure = _new_figure(max(3.6, 3.2 * len(benchmarks)), 3.4)
    panels = figure.subplots(1, len(benchmarks), squeeze=False, sharey=True)[0]
    for axes, benchmark in zip(panels, benchmarks):
        rows = leaderboard[leaderboard["benchmark"] == benchmark].set_index("model")
        for index, model in enumerate(models):
            if model not in rows.index:
                continue
            ks = [int(c.rsplit("_", 1)[1]) for c in k_columns if pd.notna(rows.loc[model, c])]
            values = [100 * rows.loc[model, f"pass_at_{k}"] for k in ks]
            axes.plot(
                ks, values, marker=MARKERS[index % len(MARKERS)], color=OKABE_ITO[index % len(OKABE_ITO)], label=model
            )
        # only the k this benchmark's trials allow: an axis running past them is an empty panel
        present = rows[k_columns].notna().any(axis=0)
        ks = [int(c.rsplit("_", 1)[1]) for c in k_columns if present[c]] or [1]
        axes.set_xscale("log", base=2)
        axes.set_xticks(ks, [str(k) for k in ks])
        axes.set(
            xlim=(ks[0] / 1.25, ks[-1] * 1.25),
            ylim=(-2, 105),
            title=f"{benchmark}\n({sample_size(leaderboard, benchmark)})",
            xlabel="k (samples per problem)",
        )
    panels[0].set_ylabel("pass@k (%)")
    # beside the panels, one entry per model: inside the last panel it sat on a baseline's point
    handles = {label: handle for axes in panels for handle, label in zip(*axes.get_legend_handles_labels())}
    figure.legend(handles.values(), handles.keys(), loc="outside right upper", frameon=False)
    return save_figure(figure, out_png)


@styled
def plot_heatmap(grades: pd.DataFrame, out_png: str | Path) -> tuple[Path, Path]:
    """Per benchmark, a models × problems grid of solve rates (share of graded trials correct);
    problems sorted from easiest to hardest across models, models from strongest to weakest, each
    column labelled with its problem id (the figure widens with the count). White cells: no
    graded sample."""
    rates = build_problem_model_rates(grades)
    extremal = grades.groupby("benchmark")["sense"].agg(lambda s: s.isin(("min", "max")).any())
    benchmarks = sorted(rates["benchmark"].unique(), key=lambda b: (not extremal.get(b, False), b))
    n_models = rates["model"].nunique()
    widest = int(rates.groupby("benchmark")["problem_id"].nunique().max())
    longest = int(rates["problem_id"].str.len().max())
    figure = _new_figure(
        max(7.0, 2.4 + 0.1 * widest), max(2.2, (0.35 * n_models + 1.2 + 0.07 * longest) * len(benchmarks))
    )
    panels = figure.subplots(len(benchmarks), 1, squeeze=False)[:, 0]
    image = None
    for axes, benchmark in zip(panels, benchmarks):
        grid = rates[rates["benchmark"] == benchmark].pivot(index="model", columns="problem_id", values="solve_rate")
        problem_order = grid.mean(axis=0).sort_values(ascending=False, kind="stable").index
        model_order = grid.mean(axis=1).sort_values(ascending=False, kind="stable").index
        grid = grid.loc[model_order, problem_order]
        cmap = matplotlib.colormaps["cividis"].with_extremes(bad="white")
        image = axes.imshow(
            np.ma.masked_invalid(grid.to_numpy(dtype=float)),
            aspect="auto",
            cmap=cmap,
            vmin=0,
            vmax=1,
            interpolation="nearest",
        )
        axes.set_yticks(range(len(model_order)), list(model_order))
        axes.set_xticks(range(len(problem_order)), list(problem_order), rotation=90, fontsize=5)
        axes.grid(False)
        axes.set(title=f"{benchmark}: {len(problem_order)} problems, easiest left", xlabel="Problem")
    figure.colorbar(image, ax=list(panels), label="Solve rate (share of trials correct)")
    return save_figure(figure, out_png)


def _draw_variant_points(axes, mine: pd.DataFrame, *, kind: str, colour: str, marker: str) -> None:
    """One model's memorisation rows, one point per variant kind: `kind` filled, the controls hollow."""
    for row in mine.sort_values("kind").itertuples(index=False):
        xv, yv = 100 * row.accuracy_original, 100 * row.accuracy_variant
        main = row.kind == kind
        axes.errorbar(
            xv,
            yv,
            xerr=_whiskers(xv, row.original_low, row.original_high),
            yerr=_whiskers(yv, row.variant_low, row.variant_high),
            fmt=marker,
            color=colour,
            elinewidth=0.7 if main else 0.5,
            capsize=2 if main else 0,
            markerfacecolor=colour if main else "none",
            markersize=6 if main else 4,
            alpha=1.0 if main else 0.5,
        )


@styled
def plot_original_vs_variant(
    memorization: pd.DataFrame, out_png: str | Path, *, kind: str = "constants"
) -> tuple[Path, Path]:
    """One point per model: accuracy on the original problems (x) against accuracy on their
    `kind` variants (y), 95 % whiskers on both axes, the diagonal of equal accuracy. A point below
    the diagonal means the model does worse once the constants change (memorisation); the control
    kinds (rename, rephrase) are drawn hollow for comparison. Columns: build_memorization."""
    title = "Original vs variant problems, one point per model"
    if memorization.empty:
        return _message_figure(out_png, title, "No confirmed variants were evaluated in this run.")
    figure = _new_figure(7.6, 4.4)
    axes = figure.add_subplot()
    axes.plot([0, 100], [0, 100], color="#999999", linewidth=0.8, linestyle="--", label="equal accuracy")
    models = sorted(memorization["model"].unique())
    for index, model in enumerate(models):
        colour, marker = OKABE_ITO[index % len(OKABE_ITO)], MARKERS[index % len(MARKERS)]
        mine = memorization[memorization["model"] == model]
        _draw_variant_points(axes, mine, kind=kind, colour=colour, marker=marker)
        # one legend entry per model: its difference on the main kind (the controls are drawn only)
        shift = mine[mine["kind"] == kind]
        text = "no variants" if shift.empty else variant_difference(shift.iloc[0])
        axes.plot([], [], marker, color=colour, label=f"{model}: {text}")
    axes.plot([], [], "o", color="#555555", label=f"filled: {kind} variants")
    axes.plot(
        [], [], "o", color="#555555", markerfacecolor="none", alpha=0.5, label="hollow: rename / rephrase (controls)"
    )
    axes.set(
        xlim=(-2, 102),
        ylim=(-2, 102),
        aspect="equal",
        xlabel="Accuracy on the original problems (%)",
        ylabel="Accuracy on their variants (%)",
        title=f"{title}\n(Δ = variant − original accuracy; whiskers: {INTERVAL})",
    )
    axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=7)
    return save_figure(figure, out_png)


def variant_difference(row) -> str:
    """'Δ = +2.6 pts' (and the Holm-adjusted significance when it holds) of one memorisation row."""
    return f"Δ = {100 * row.difference:+.1f} pts" + (", p_holm < 0.05" if row.significant else "")


def cost_axis(leaderboard: pd.DataFrame) -> tuple[str, str]:
    """(column, label) of the x axis of the cost figure: the price when every row has one, else
    GPU-hours when any job held GPUs, else the generate jobs' wall-hours (a CPU-only run)."""
    if "cost" in leaderboard and leaderboard["cost"].notna().all() and (leaderboard["cost"] > 0).any():
        return "cost", "Cost of the generations (configured price)"
    if "gpu_hours" in leaderboard and (leaderboard["gpu_hours"].fillna(0) > 0).any():
        return "gpu_hours", "GPU-hours of the generate jobs"
    return "wall_hours", "Wall-hours of the generate jobs (no GPU used)"


@styled
def plot_accuracy_vs_cost(leaderboard: pd.DataFrame, out_png: str | Path) -> tuple[Path, Path]:
    """Accuracy against what the answers cost (cost_axis picks the measure), one point per
    (benchmark, model), marker = model, colour = benchmark; log x when the points span more than
    100×."""
    title = "Accuracy vs cost"
    if "wall_hours" not in leaderboard:
        return _message_figure(out_png, title, "The leaderboard has no cost ledger columns.")
    column, label = cost_axis(leaderboard)
    # the title names what is measured: a CPU box's wall-hours are time, not a price
    title = {"cost": title, "gpu_hours": "Accuracy vs GPU-hours"}.get(column, "Accuracy vs compute time")
    usable = leaderboard[leaderboard[column].fillna(0) > 0]
    if usable.empty:
        return _message_figure(out_png, title, "No generate job of this run recorded its cost.")
    colours = benchmark_colours(benchmark_order(leaderboard))
    markers = _model_markers(usable["model"].unique())
    figure = _accuracy_against(
        leaderboard, usable, column, (label, 100), (title, (0, 105)), (markers, colours), "nothing recorded"
    )
    return save_figure(figure, out_png)


DATE_SIDES = (("before", "dated before the split date", "o"), ("after", "dated on or after it", "s"))


@styled
def plot_date_split(table: pd.DataFrame, out_png: str | Path) -> tuple[Path, Path]:
    """Per (model, benchmark) with a dated side: accuracy on problems dated before the model's
    split date (knowledge cut-off, else release) and on those dated on or after it, 95 % whiskers;
    the models left out are named. Columns: by_date.build_date_split."""
    title = "Accuracy before vs after each model's split date"
    shown = table[(table["n_before"] > 0) | (table["n_after"] > 0)].reset_index(drop=True)
    if shown.empty:
        return _message_figure(out_png, title, notes_message(table), width=6.0)
    figure = _new_figure(max(6.0, 1.3 * len(shown) + 3.5), 4.6)
    axes = figure.add_subplot()
    for index, (side, label, marker) in enumerate(DATE_SIDES):
        _draw_date_side(
            axes, shown, side, colour=OKABE_ITO[index], marker=marker, label=label, offset=0.15 * (2 * index - 1)
        )
    axes.set_xticks(range(len(shown)), [date_split_tick(row) for row in shown.itertuples()], fontsize=7)
    left_out = sorted(set(table["model"]) - set(shown["model"]))
    _not_shown(axes, "no split date or no dated problem", left_out)
    axes.set(
        xlim=(-0.6, len(shown) - 0.4),
        ylim=(-2, 102),
        ylabel="Accuracy (%)",
        title=f"{title}\n(Δ = after − before; whiskers: {INTERVAL};\nundecided and undated problems left out)",
    )
    axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, fontsize=7)
    return save_figure(figure, out_png)


def _draw_date_side(axes, shown: pd.DataFrame, side: str, *, colour: str, marker: str, label: str, offset: float):
    """One side's points with whiskers, at x = row index + offset (a side with no problem: no point)."""
    present = shown[shown[f"n_{side}"] > 0]
    values = _percent(present[f"accuracy_{side}"])
    low, high = _percent(present[f"{side}_low"]), _percent(present[f"{side}_high"])
    errors = np.vstack([np.clip(values - low, 0, None), np.clip(high - values, 0, None)])
    axes.errorbar(present.index + offset, values, yerr=errors, fmt=marker, color=colour, capsize=2, label=label)


def date_split_tick(row) -> str:
    """x label of one (model, benchmark): names, split date and basis, the difference and counts."""
    shift = "Δ n/a" if pd.isna(row.difference) else f"Δ = {100 * row.difference:+.1f} pts"
    basis = "cut-off" if row.split_basis == "knowledge_cutoff" else "release"
    return f"{row.model}\n{row.benchmark}\n{basis} {row.split_date}\n{shift}\nn = {row.n_before} / {row.n_after}"


def notes_message(table: pd.DataFrame) -> str:
    """Why a figure of a report table has no mark: the table's first note per model."""
    if table.empty:
        return "No model was graded in this run."
    notes = table.groupby("model", sort=True)["note"].first()
    return "\n".join(f"{model}: {note}" for model, note in notes.items())


# the slices of plot_slices: (column prefix, legend label)
SLICE_BARS = (
    ("originals", "originals with a constants variant"),
    ("variants", "their constants variants (paired)"),
    ("fresh", "fresh problems"),
)


@styled
def plot_slices(table: pd.DataFrame, out_png: str | Path) -> tuple[Path, Path]:
    """Per model (and originals benchmark), three bars with 95 % whiskers: accuracy on the original
    problems that have a variant, on those variants, and on the fresh benchmark; a tick marks the
    accuracy on every original (what fresh is compared with). The models without any bar are
    named. Columns: slices.build_slices."""
    title = "Originals, their variants and fresh problems, per model"
    shown = table[(table[[f"n_{name}" for name, _ in SLICE_BARS]] > 0).any(axis=1)].reset_index(drop=True)
    if shown.empty:
        return _message_figure(out_png, title, notes_message(table), width=6.0)
    figure = _new_figure(max(6.0, 1.6 * len(shown) + 3.5), 4.6)
    axes = figure.add_subplot()
    width = 0.25
    for index, (name, label) in enumerate(SLICE_BARS):
        _draw_slice(axes, shown, name, x=np.arange(len(shown)) + (index - 1) * width, width=width, label=label)
    present = shown[shown["n_all"] > 0]
    at = _percent(present["accuracy_all"])
    axes.hlines(at, present.index - 1.5 * width, present.index + 1.5 * width, colors="#000000", linestyles="--")
    axes.plot([], [], "--", color="#000000", label="all originals (what Δf compares with)")
    axes.set_xticks(range(len(shown)), [slices_tick(row) for row in shown.itertuples()], fontsize=7)
    axes.xaxis.grid(False)
    _not_shown(axes, "no graded original, variant or fresh problem", sorted(set(table["model"]) - set(shown["model"])))
    axes.set(
        xlim=(-0.6, len(shown) - 0.4),
        ylim=(0, 112),
        ylabel="Accuracy (%)",
        xlabel="Model (n = originals / variants / fresh problems)",
        title=f"{title}\n(Δv = variants − originals, paired; Δf = fresh − all originals;\nwhiskers: {INTERVAL})",
    )
    handles, labels = axes.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i].startswith("not shown"))  # the bars first
    axes.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        frameon=False,
        fontsize=7,
    )
    return save_figure(figure, out_png)


def _draw_slice(axes, shown: pd.DataFrame, name: str, *, x, width: float, label: str) -> None:
    """One slice's bars with whiskers and printed values (a slice without problems: 'n/a', no bar)."""
    values = _percent(shown[f"accuracy_{name}"])
    low, high = _percent(shown[f"{name}_low"]), _percent(shown[f"{name}_high"])
    errors = np.nan_to_num(np.vstack([np.clip(values - low, 0, None), np.clip(high - values, 0, None)]))
    colour = OKABE_ITO[[n for n, _ in SLICE_BARS].index(name)]
    drawn = axes.bar(
        x,
        np.nan_to_num(values),
        width,
        color=colour,
        label=label,
        yerr=errors,
        capsize=2,
        error_kw={"elinewidth": 0.8, "ecolor": "#333333"},
    )
    axes.bar_label(drawn, labels=[value_label(v) for v in values], padding=2, fontsize=6)


def slices_tick(row) -> str:
    """x label of one row: the model (and the originals benchmark), both differences and the counts."""
    shift = lambda d: "n/a" if pd.isna(d) else f"{100 * d:+.1f} pts"  # noqa: E731
    where = f"\n{row.benchmark}" if isinstance(row.benchmark, str) else ""
    counts = f"n = {row.n_originals} / {row.n_variants} / {row.n_fresh}"  # the order of the bars
    return f"{row.model}{where}\nΔv {shift(row.variants_difference)}\nΔf {shift(row.fresh_difference)}\n{counts}"
