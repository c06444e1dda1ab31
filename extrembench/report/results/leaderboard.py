"""Grade rows → the result tables: leaderboard, per-problem difficulty, technique split,
cross-benchmark rank correlations, and the Markdown leaderboard.

Ungraded samples (status 'ungraded': a grader timeout or error, a failed judge call) are counted
in `ungraded_rate` and, by default, scored wrong in every accuracy (`ungraded="exclude"` leaves
them out of the denominators instead); a sample with no extractable answer is graded wrong and
counted in `no_answer_rate`; a failed request (status `failed`: the model never answered) is
left out of every figure and counted in `n_failed`. Every random draw is seeded from `seed` and the
(benchmark, model) names, so identical input gives identical output.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from extrembench.core.artifacts import lineage_inputs, read_metadata
from extrembench.core.files import write_bytes_atomic
from extrembench.core.seeds import name_digest
from extrembench.report.results import metrics

REQUIRED_COLUMNS = (
    "benchmark",
    "model",
    "problem_id",
    "trial",
    "correct",
    "status",
    "extracted",
    "sense",
    "modes_disagree",
    "finish_reason",
    "completion_tokens",
)
EXTREMAL_SENSES = ("min", "max")
CERTIFICATE_KINDS = ("bound", "sos", "numeric")
# aggregate.require_certificate -> the certificate kinds kept ("any" = proven: bound or sos)
REQUIRE_CERTIFICATE = {"none": None, "any": ("bound", "sos"), "bound": ("bound",), "sos": ("sos",)}


def restrict_to_certified(grades: pd.DataFrame, require: str) -> pd.DataFrame:
    """Only the samples of problems whose certificate kind `require` accepts (none keeps all)."""
    if require not in REQUIRE_CERTIFICATE:
        raise ValueError(f"aggregate.require_certificate: {require!r} is not one of {', '.join(REQUIRE_CERTIFICATE)}")
    kinds = REQUIRE_CERTIFICATE[require]
    if kinds is None:
        return grades
    return grades[grades["certificate_kind"].isin(kinds)]


def certified_counts(frame: pd.DataFrame) -> dict[str, int]:
    """Distinct problems per certificate kind (columns certified_<kind>)."""
    if "certificate_kind" not in frame:
        return {f"certified_{k}": 0 for k in CERTIFICATE_KINDS}
    per_problem = frame.drop_duplicates("problem_id")["certificate_kind"]
    return {f"certified_{k}": int((per_problem == k).sum()) for k in CERTIFICATE_KINDS}


def _check_columns(grades: pd.DataFrame, needed=REQUIRED_COLUMNS) -> None:
    missing = [c for c in needed if c not in grades.columns]
    if missing:
        raise ValueError(
            f"grade table lacks columns {missing}; build it with the GRADES schema "
            "(extrembench/core/artifacts.py) via read_artifact(path, 'grades')"
        )


UNGRADED_POLICIES = ("wrong", "exclude")


def apply_ungraded_policy(grades: pd.DataFrame, ungraded: str = "wrong") -> pd.DataFrame:
    """Score ungraded samples as wrong (no answer, so they vote for nothing in maj@k), or keep
    them out of the denominators ('exclude'). A model that answers absurdly when unsure must not
    gain by being ungradable; their share stays visible as `ungraded_rate`."""
    if ungraded not in UNGRADED_POLICIES:
        raise ValueError(f"ungraded must be one of {UNGRADED_POLICIES}, got {ungraded!r}")
    if ungraded == "exclude" or "status" not in grades.columns:
        return grades
    undecided = grades["status"] == "ungraded"
    if not undecided.any():
        return grades
    scored = grades.copy()
    scored["correct"] = scored["correct"].astype(object)
    scored.loc[undecided, "correct"] = False
    if "extracted" in scored.columns:
        scored.loc[undecided, "extracted"] = None
    return scored


def group_seed(seed: int, *names: str) -> int:
    """A per-group seed that depends on the names, not on the process (Python's hash() does)."""
    digest = name_digest(seed, *names)
    return int.from_bytes(digest[:8], "little")


def string_equality(a: str, b: str) -> bool:
    return a.strip() == b.strip()


def judge_decided(frame: pd.DataFrame) -> pd.Series:
    """Per row: whether the LLM judge decided its verdict (reason 'judge:<yes>-<no>', or the same
    for an answer boxed in the reasoning)."""
    if "reason" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return frame["reason"].map(lambda r: isinstance(r, str) and r.removeprefix("reasoning-").startswith("judge:"))


def graded_flags(frame: pd.DataFrame) -> pd.Series:
    """correct as float: 1.0, 0.0, or NaN for ungraded."""
    return frame["correct"].map(lambda v: np.nan if v is None or pd.isna(v) else float(bool(v))).astype(float)


def trials_by_problem(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """problem_id → that problem's trial outcomes (1, 0, NaN = ungraded), ordered by trial."""
    ordered = frame.sort_values(["problem_id", "trial"], kind="stable")
    flags = graded_flags(ordered).to_numpy()
    return {problem: flags[index] for problem, index in ordered.groupby("problem_id").indices.items()}


def correctness_by_problem(frame: pd.DataFrame) -> list[np.ndarray]:
    """Per problem (sorted by id), its trials' correctness ordered by trial (NaN = ungraded)."""
    ordered = frame.sort_values(["problem_id", "trial"])
    flags = graded_flags(ordered).to_numpy()
    groups = ordered.groupby("problem_id").indices  # positions into `ordered`
    return [flags[groups[problem]] for problem in sorted(groups)]


def pass_at_k_values(n_trials: int) -> list[int]:
    """k = 1, 2, 4, … ≤ n_trials."""
    return [2**i for i in range(n_trials.bit_length())]


def _mean_pass_at_k(per_problem: list[np.ndarray], k: int) -> float:
    """Mean over problems with at least k graded samples of the unbiased pass@k."""
    values = []
    for flags in per_problem:
        graded = flags[~np.isnan(flags)]
        if graded.size >= k:
            values.append(metrics.pass_at_k(int(graded.size), int(graded.sum()), k))
    return float(np.mean(values)) if values else float("nan")


class AnswerEquivalence:
    """The `equivalent` given to build_leaderboard, bound to one problem's answer type and
    memoised across problems: the same pair of wrong answers ('2' vs '3') recurs often, and each
    call may be a symbolic check. A callable with an `answer_type` keyword (the grader's
    `extrembench.grading.equivalent`) receives the problem's answer type."""

    def __init__(self, equivalent: Callable[..., bool]):
        self._equivalent = equivalent
        try:
            parameters = inspect.signature(equivalent).parameters
        except (TypeError, ValueError):  # builtins without a signature: plain (a, b)
            parameters = {}
        self._takes_answer_type = "answer_type" in parameters
        self._verdicts: dict[tuple[str | None, str, str], bool] = {}

    def for_answer_type(self, answer_type: str | None) -> Callable[[str, str], bool]:
        def bound(a: str, b: str) -> bool:
            key = (answer_type, a, b)
            if key not in self._verdicts:
                if self._takes_answer_type and answer_type:
                    self._verdicts[key] = bool(self._equivalent(a, b, answer_type=answer_type))
                else:
                    self._verdicts[key] = bool(self._equivalent(a, b))
            return self._verdicts[key]

        return bound


def _mean_maj_at_k(frame: pd.DataFrame, k: int, equivalence: AnswerEquivalence) -> float:
    """Mean over problems with at least k graded samples of maj@k."""
    ordered = frame.sort_values(["problem_id", "trial"])
    flags = graded_flags(ordered).to_numpy()
    answers = [None if pd.isna(a) else str(a) for a in ordered["extracted"]]
    answer_types = ordered["answer_type"].tolist() if "answer_type" in ordered.columns else None
    values = []
    groups = ordered.groupby("problem_id").indices  # positions into `ordered`
    for problem in sorted(groups):
        positions = groups[problem]
        graded = flags[positions]
        if np.count_nonzero(~np.isnan(graded)) >= k:
            correct = [None if np.isnan(v) else bool(v) for v in graded]
            answer_type = answer_types[positions[0]] if answer_types is not None else None
            values.append(
                metrics.maj_at_k([answers[i] for i in positions], correct, k, equivalence.for_answer_type(answer_type))
            )
    return float(np.mean(values)) if values else float("nan")


def problem_mean_accuracy(per_problem: list[np.ndarray]) -> float:
    rates = [np.nanmean(f) for f in per_problem if np.any(~np.isnan(f))]
    return float(np.mean(rates)) if rates else float("nan")


def _sense_accuracy(frame: pd.DataFrame, sense: str) -> tuple[int, float]:
    subset = frame[frame["sense"] == sense]
    if subset.empty:
        return 0, float("nan")
    per_problem = correctness_by_problem(subset)
    return len(per_problem), problem_mean_accuracy(per_problem)


def _trial_accuracies(frame: pd.DataFrame) -> np.ndarray:
    flags = frame.assign(_flag=graded_flags(frame))
    per_trial = flags.groupby("trial", sort=True)["_flag"].mean()  # mean skips NaN: ungraded left out
    return per_trial.dropna().to_numpy(dtype=float)


def reading_accuracy(frame: pd.DataFrame, column: str) -> float:
    """accuracy_mean under one grading scope (`correct_final` or `correct_anywhere`): the mean over
    trials of the per-trial accuracy; where that reading is ungraded the row's own (policy-applied)
    verdict stands. NaN for grade files written before the columns existed."""
    if column not in frame.columns:
        return float("nan")
    reading = frame[column].astype(object).where(frame[column].notna(), frame["correct"])
    accuracies = _trial_accuracies(frame.assign(correct=reading))
    return float(accuracies.mean()) if accuracies.size else float("nan")


def accuracy_summary(benchmark: str, model: str, frame: pd.DataFrame, seed: int) -> dict:
    """The counts, accuracy and interval of one (benchmark, model): the leaderboard's numbers that
    `extrembench audit` recomputes from the grade rows (ungraded policy already applied)."""
    per_problem = correctness_by_problem(frame)
    trial_acc = _trial_accuracies(frame)
    ci_low, ci_high = metrics.bootstrap_ci(per_problem, seed=group_seed(seed, benchmark, model))
    verdicts = frame["status"] != "ungraded" if "status" in frame.columns else graded_flags(frame).notna()
    return {
        "n_problems": int(frame["problem_id"].nunique()),
        "n_trials": int(frame["trial"].nunique()),
        "n_samples": len(frame),
        "n_graded": int(verdicts.sum()),
        "accuracy_mean": float(trial_acc.mean()) if trial_acc.size else float("nan"),
        "accuracy_std": float(trial_acc.std(ddof=1)) if trial_acc.size > 1 else 0.0,
        "avg_at_k": problem_mean_accuracy(per_problem),
        "ci_low": ci_low,
        "ci_high": ci_high,
    }


def _leaderboard_row(
    benchmark: str, model: str, frame: pd.DataFrame, ks: list[int], equivalence: AnswerEquivalence, seed: int
) -> dict:
    # A failed request (endpoint error) is no answer by the model: out of every figure, counted.
    failed = frame["status"] == "failed"
    n_failed, frame = int(failed.sum()), frame[~failed]
    per_problem = correctness_by_problem(frame)
    n_trials = int(frame["trial"].nunique())
    tokens = frame["completion_tokens"].dropna().astype(float)
    n_min, acc_min = _sense_accuracy(frame, "min")
    n_max, acc_max = _sense_accuracy(frame, "max")
    summary = accuracy_summary(benchmark, model, frame, seed)
    return {
        "benchmark": benchmark,
        "model": model,
        "extremal": bool(frame["sense"].isin(EXTREMAL_SENSES).any()),
        **{
            key: summary[key]
            for key in ("n_problems", "n_trials", "n_samples", "n_graded", "accuracy_mean", "accuracy_std")
        },
        "n_failed": n_failed,
        # both grading scopes, whichever the row's verdicts follow (grading.scope), for comparison
        # with numbers published either way (docs/metrics.md)
        "accuracy_final_only": reading_accuracy(frame, "correct_final"),
        "accuracy_anywhere": reading_accuracy(frame, "correct_anywhere"),
        "k": n_trials,
        **{key: summary[key] for key in ("avg_at_k", "ci_low", "ci_high")},
        **{f"pass_at_{k}": _mean_pass_at_k(per_problem, k) if k <= n_trials else float("nan") for k in ks},
        "maj_at_k": _mean_maj_at_k(frame, n_trials, equivalence),
        "truncation_rate": float((frame["finish_reason"] == "length").mean()),
        "no_answer_rate": float((frame["status"] == "no_answer").mean()),
        "ungraded_rate": float((frame["status"] == "ungraded").mean()),
        # verdicts an LLM judge decided (descriptive answers): a share a reader weighs differently
        "judge_decided_rate": float(judge_decided(frame).mean()) if len(frame) else float("nan"),
        "mode_disagreements": int(frame["modes_disagree"].fillna(False).astype(bool).sum()),
        "output_tokens_mean": float(tokens.mean()) if tokens.size else float("nan"),
        "output_tokens_median": float(tokens.median()) if tokens.size else float("nan"),
        "n_problems_min_sense": n_min,
        "accuracy_min_sense": acc_min,
        "n_problems_max_sense": n_max,
        "accuracy_max_sense": acc_max,
        **certified_counts(frame),
    }


def leaderboard_row(
    benchmark: str,
    model: str,
    grades: pd.DataFrame,
    *,
    ks: list[int],
    equivalent: Callable[..., bool] | None = None,
    seed: int = 0,
    ungraded: str = "wrong",
) -> dict:
    """One row of build_leaderboard on its own, from that (benchmark, model)'s grade rows (failed
    ones included): what `extrembench audit` recomputes and compares, pass@k and maj@k too."""
    equivalence = AnswerEquivalence(equivalent or string_equality)
    return _leaderboard_row(benchmark, model, apply_ungraded_policy(grades, ungraded), ks, equivalence, seed)


def build_leaderboard(
    grades: pd.DataFrame, *, equivalent: Callable[..., bool] | None = None, seed: int = 0, ungraded: str = "wrong"
) -> pd.DataFrame:
    """One row per (benchmark, model), sorted by benchmark then model. Columns: docs/metrics.md.
    `ungraded`: how samples the grader could not decide enter accuracies (apply_ungraded_policy).

    `equivalent(a, b[, answer_type=...])` groups wrong answers for maj@k (default: equality of the
    stripped strings); it sees extracted model answers, which are untrusted, so it must be safe and
    bounded in time on any string (the grader's checks are; pass them a timeout-guarded wrapper if
    they are not)."""
    _check_columns(grades)
    equivalence = AnswerEquivalence(equivalent or string_equality)
    if grades.empty:
        raise ValueError("grade table is empty: no (benchmark, model) to report; check the grade rule's inputs")
    grades = apply_ungraded_policy(grades, ungraded)
    ks = pass_at_k_values(int(grades.groupby(["benchmark", "model"])["trial"].nunique().max()))
    rows = [
        _leaderboard_row(benchmark, model, frame, ks, equivalence, seed)
        for (benchmark, model), frame in grades.groupby(["benchmark", "model"], sort=True)
    ]
    return pd.DataFrame(rows).sort_values(["benchmark", "model"], kind="stable").reset_index(drop=True)


# What produced each row besides the grade rows: read by run_settings (docs/metrics.md).
SETTINGS_COLUMNS = (
    "judge_model",
    "engine",
    "model_revision",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "max_tokens",
    "reasoning_effort",
    "seed_policy",
)
_SAMPLING_NUMBERS = ("temperature", "top_p", "top_k", "min_p")
SEED_PER_SAMPLE = "per sample: sha256(model, benchmark, problem_id, trial)"


def _joined(values) -> str | None:
    present = sorted({str(v) for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))})
    return "; ".join(present) if present else None


def _settings_of(key: tuple[str, str], generations: list[dict], judges: set[str | None]) -> dict:
    from extrembench.generation.requests import sample_seed  # deferred: only this path needs it

    benchmark, model = key
    sampling = [{k: v for k, v in json.loads(r["sampling_json"] or "{}").items() if k != "seed"} for r in generations]
    row: dict = {"benchmark": benchmark, "model": model, "judge_model": _joined(judges)}
    row["engine"] = _joined(f"{r['engine']} {r['engine_version']}" for r in generations)
    row["model_revision"] = _joined(r["model_revision"] for r in generations) or (
        "none recorded" if generations else None
    )
    for name in _SAMPLING_NUMBERS:
        values = {float(s[name]) for s in sampling if s.get(name) is not None}
        # one value per model in a run (the cache key holds them); several would be a mixed run: no one number
        row[name] = values.pop() if len(values) == 1 else float("nan")
    sent = [float(s["max_tokens"]) for s in sampling if s.get("max_tokens") is not None]
    row["max_tokens"] = max(sent) if sent else float("nan")  # clamped per prompt to the context: the largest sent
    row["reasoning_effort"] = _joined(s.get("reasoning_effort") for s in sampling)
    seeds = [r["seed"] for r in generations]
    if generations and all(
        seed == sample_seed(model, benchmark, r["problem_id"], r["trial"]) for seed, r in zip(seeds, generations)
    ):
        row["seed_policy"] = SEED_PER_SAMPLE
    elif all(seed is None for seed in seeds):
        row["seed_policy"] = "none sent"
    else:
        row["seed_policy"] = "recorded per request (not the per-sample hash)"
    return row


def run_settings(grade_files: Sequence[str | Path]) -> pd.DataFrame:
    """One row per (benchmark, model) with SETTINGS_COLUMNS: the judge recorded in each grade
    file's metadata, and from the generation rows its lineage names, the engine, model revision,
    every sampling parameter and the seeds that were sent. Columns a model does not have (a solver
    has no temperature) are empty."""
    generations: dict[tuple[str, str], list[dict]] = {}
    judges: dict[tuple[str, str], set[str | None]] = {}
    columns = ["benchmark", "model", "problem_id", "trial", "engine", "engine_version", "model_revision"]
    for path in grade_files:
        record = json.loads(read_metadata(path).get("extrembench.judge") or "null")
        for r in pq.read_table(path, columns=["benchmark", "model"]).to_pylist():
            generations.setdefault((r["benchmark"], r["model"]), [])
            judges.setdefault((r["benchmark"], r["model"]), set()).add(record["model"] if record else None)
        source = lineage_inputs(path).get("generations")
        for r in pq.read_table(source, columns=[*columns, "sampling_json", "seed"]).to_pylist() if source else []:
            generations.setdefault((r["benchmark"], r["model"]), []).append(r)
    rows = [_settings_of(key, generations[key], judges.get(key, set())) for key in sorted(generations)]
    return pd.DataFrame(rows, columns=["benchmark", "model", *SETTINGS_COLUMNS])


def with_run_settings(board: pd.DataFrame, grade_files: Sequence[str | Path]) -> pd.DataFrame:
    """The leaderboard with SETTINGS_COLUMNS (run_settings) joined on (benchmark, model)."""
    settings = run_settings(grade_files)
    return board.drop(columns=[c for c in SETTINGS_COLUMNS if c in board.columns]).merge(
        settings, on=["benchmark", "model"], how="left"
    )


def build_problem_model_rates(grades: pd.DataFrame) -> pd.DataFrame:
    """One row per (benchmark, problem_id, model): graded samples, correct samples, solve rate."""
    _check_columns(grades, ("benchmark", "model", "problem_id", "correct"))
    flags = grades.assign(_flag=graded_flags(grades))
    table = (
        flags.groupby(["benchmark", "problem_id", "model"], sort=True)["_flag"]
        .agg(n_graded="count", n_correct="sum")
        .reset_index()
    )
    table["n_correct"] = table["n_correct"].astype(int)
    table["solve_rate"] = np.where(table["n_graded"] > 0, table["n_correct"] / table["n_graded"].clip(lower=1), np.nan)
    return table


def _first_value(series: pd.Series):
    present = series.dropna()
    return present.iloc[0] if not present.empty else None


def build_difficulty(grades: pd.DataFrame) -> pd.DataFrame:
    """One row per (benchmark, problem_id): solve rate across models (mean, min, max of the
    per-model solve rates), how many models solved it at least once, and its labels."""
    _check_columns(grades, ("benchmark", "model", "problem_id", "correct", "sense"))
    rates = build_problem_model_rates(grades).dropna(subset=["solve_rate"])
    summary = (
        rates.groupby(["benchmark", "problem_id"], sort=True)
        .agg(
            n_models=("model", "nunique"),
            solve_rate_mean=("solve_rate", "mean"),
            solve_rate_min=("solve_rate", "min"),
            solve_rate_max=("solve_rate", "max"),
            models_solved=("n_correct", lambda s: int((s > 0).sum())),
        )
        .reset_index()
    )
    label_columns = [c for c in ("sense", "difficulty") if c in grades.columns]
    labels = grades.groupby(["benchmark", "problem_id"], sort=True)[label_columns].agg(_first_value)
    return summary.merge(labels.reset_index(), on=["benchmark", "problem_id"], how="left")


def build_technique_table(grades: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per (benchmark, model, technique family): a problem with several techniques counts
    in each; problems without a technique are left out. Accuracy is the mean over problems of the
    per-problem solve rate."""
    _check_columns(grades, ("benchmark", "model", "problem_id", "correct", "technique"))
    rates = build_problem_model_rates(grades).dropna(subset=["solve_rate"])
    techniques = grades.groupby(["benchmark", "problem_id"], sort=True)["technique"].agg(_first_value).reset_index()
    techniques = techniques.dropna(subset=["technique"]).explode("technique").dropna(subset=["technique"])
    joined = rates.merge(techniques, on=["benchmark", "problem_id"])
    columns = ["benchmark", "model", "technique", "n_problems", "accuracy"]
    if joined.empty:
        return pd.DataFrame(columns=columns)
    table = (
        joined.groupby(["benchmark", "model", "technique"], sort=True)
        .agg(n_problems=("problem_id", "nunique"), accuracy=("solve_rate", "mean"))
        .reset_index()
    )
    return table[columns]


def build_correlations(leaderboard: pd.DataFrame, *, seed: int = 0, n_boot: int = 2000) -> pd.DataFrame:
    """Per pair of benchmarks (a < b), across the models evaluated on both: Spearman's rho and
    Kendall's tau-b of `accuracy_mean`, each with a 95 % interval from resampling models; with
    fewer than MIN_MODELS_FOR_CORRELATION models NaN and `note` says why."""
    columns = ["benchmark_a", "benchmark_b", "n_models"]
    for method in ("spearman", "kendall"):
        columns += [method, f"{method}_low", f"{method}_high"]
    columns.append("note")
    wide = leaderboard.pivot(index="model", columns="benchmark", values="accuracy_mean")
    rows = []
    benchmarks = sorted(wide.columns)
    for i, a in enumerate(benchmarks):
        for b in benchmarks[i + 1 :]:
            pair = wide[[a, b]].dropna()
            row = {"benchmark_a": a, "benchmark_b": b, "n_models": len(pair)}
            for method in ("spearman", "kendall"):
                rho, low, high = metrics.rank_correlation(
                    pair[a].to_numpy(), pair[b].to_numpy(), method=method, n_boot=n_boot, seed=group_seed(seed, a, b)
                )
                row.update({method: rho, f"{method}_low": low, f"{method}_high": high})
            row["note"] = metrics.correlation_note(len(pair))
            rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def percent_text(value: float) -> str:
    return "–" if pd.isna(value) else f"{100 * value:.1f}"


def markdown_table(leaderboard: pd.DataFrame) -> str:
    """The leaderboard as a Markdown table, accuracies in percent."""
    pass_columns = [c for c in leaderboard.columns if c.startswith("pass_at_")]
    header = [
        "benchmark",
        "model",
        "problems",
        "trials",
        "accuracy % (mean ± std)",
        "95 % CI",
        *(c.replace("pass_at_", "pass@") for c in pass_columns),
        "maj@k",
        "truncated %",
        "no answer %",
        "ungraded %",
        "mean output tokens",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in leaderboard.itertuples(index=False):
        r = row._asdict()
        cells = [
            r["benchmark"],
            r["model"],
            str(r["n_problems"]),
            str(r["n_trials"]),
            f"{percent_text(r['accuracy_mean'])} ± {percent_text(r['accuracy_std'])}",
            f"[{percent_text(r['ci_low'])}, {percent_text(r['ci_high'])}]",
            *(
                percent_text(r[c])
                for c in [*pass_columns, "maj_at_k", "truncation_rate", "no_answer_rate", "ungraded_rate"]
            ),
            "–" if pd.isna(r["output_tokens_mean"]) else f"{r['output_tokens_mean']:.0f}",
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def certified_summary(leaderboard: pd.DataFrame) -> str:
    """One line per benchmark: its problems by certificate kind (docs/problem-format.md)."""
    lines = ["Certified problems per benchmark (bound and sos are proofs; numeric is the search alone):", ""]
    for benchmark, frame in leaderboard.groupby("benchmark", sort=True):
        first = frame.iloc[0]
        counts = ", ".join(f"{k} {int(first.get(f'certified_{k}', 0))}" for k in CERTIFICATE_KINDS)
        lines.append(f"- {benchmark}: {counts} of {int(frame['n_problems'].max())} problems")
    return "\n".join(lines) + "\n"


def _setting(value, digits: str = "g") -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    return f"{value:{digits}}" if isinstance(value, float) else str(value)


def settings_line(row: dict) -> str:
    """One leaderboard row's settings (SETTINGS_COLUMNS) as a line of the Markdown leaderboard."""
    judge = row.get("judge_model")
    judged = f"{percent_text(row.get('judge_decided_rate', float('nan')))} % of samples decided by it"
    return (
        f"- {row['benchmark']} / {row['model']}: {_setting(row['engine'])}, revision {_setting(row['model_revision'])}; "
        f"temperature {_setting(row['temperature'])}, top_p {_setting(row['top_p'])}, "
        f"top_k {_setting(row['top_k'])}, min_p {_setting(row['min_p'])}, "
        f"max_tokens {_setting(row['max_tokens'], '.0f')}, reasoning effort {_setting(row['reasoning_effort'])}; "
        f"seeds {_setting(row['seed_policy'])}; judge {_setting(judge) if judge else 'none'} ({judged})"
    )


def settings_summary(leaderboard: pd.DataFrame) -> str:
    """What produced each row (docs/metrics.md), when the leaderboard carries run_settings' columns."""
    if not set(SETTINGS_COLUMNS) <= set(leaderboard.columns):
        return ""
    lines = ["Settings that produced each row (– = not applicable, e.g. a solver has no temperature):", ""]
    lines += [settings_line(row) for row in leaderboard.to_dict("records")]
    return "\n" + "\n".join(lines) + "\n"


def write_markdown(leaderboard: pd.DataFrame, path: str | Path) -> Path:
    """results/leaderboard.md: the table plus how to read it and how to audit a number."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (
        "# Leaderboard\n\n"
        "Accuracy is the mean over trials of the per-trial accuracy (± the standard deviation across "
        "trials); the 95 % interval is a two-level bootstrap over problems and then trials within a "
        "problem; pass@k is the unbiased estimator; maj@k votes over all k = trials samples with "
        "answers grouped by mathematical equivalence. Samples the grader could not decide count in "
        "`ungraded %` and, unless the run sets grading.ungraded: exclude, as wrong. Definitions: docs/metrics.md. Trace any row with "
        "`extrembench audit --benchmark B --model M`.\n\n"
        + markdown_table(leaderboard)
        + "\n"
        + certified_summary(leaderboard)
        + settings_summary(leaderboard)
    )
    write_bytes_atomic(path, text.encode())
    return path
