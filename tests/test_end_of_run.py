"""Issue 37: the run ended on a count of requests, with no result and no path. The end of a
successful run now shows the leaderboard rows (benchmark, model, accuracy with interval, n), how
models missed, what was not confirmed, and where the leaderboard and the HTML report are."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from extrembench.report.misses.classes import CLASSES, MISSED
from extrembench.report.operations.run_summary import (
    MAX_PROBLEM_LINES,
    leaderboard_lines,
    misses_lines,
    plain,
    result_lines,
    unconfirmed_lines,
)
from extrembench.report.results.aggregate import EMPTY_BOARD

BOARD = pd.DataFrame(
    {
        "benchmark": ["extrem", "extrem"],
        "model": ["reference-solver", "symmetric-guess"],
        "n_problems": [48, 48],
        "n_trials": [2, 2],
        "accuracy_mean": [0.98958, 1 / 3],
        "ci_low": [0.96875, 0.2083],
        "ci_high": [1.0, 0.4792],
    }
)


def misses_row(model: str, **counts: int) -> dict:
    row = {"benchmark": "extrem", "model": model, **dict.fromkeys(CLASSES, 0), "attained_all_equal": 0, **counts}
    row["n_samples"] = sum(row[c] for c in CLASSES)
    row["n_missed"] = row["n_samples"] - row["correct"]
    return row


def test_leaderboard_rows_show_accuracy_interval_and_n():
    assert leaderboard_lines(BOARD) == [
        "  benchmark  model             accuracy %  95 % CI        n",
        "  extrem     reference-solver  99.0        [96.9, 100.0]  48 problems × 2 trials",
        "  extrem     symmetric-guess   33.3        [20.8, 47.9]   48 problems × 2 trials",
    ]


def test_misses_headline_names_the_commonest_classes():
    table = pd.DataFrame(
        [
            misses_row("symmetric-guess", correct=32, suboptimal_attained=44, attained_all_equal=44, no_answer=20),
            misses_row("reference-solver", correct=96),
        ]
    )
    assert misses_lines(table) == [
        "  symmetric-guess on extrem: 64 of 96 samples missed: 44 suboptimal attained (44 at the all-equal point), "
        "20 no answer",
        "  reference-solver on extrem: none of 96 samples missed",
    ]
    many = pd.DataFrame([misses_row("m", **{name: 1 for name in MISSED})])
    assert misses_lines(many)[0].endswith(f"{len(MISSED) - 3} other")


def test_problems_not_confirmed_and_a_benchmark_with_none_are_named():
    problems = {
        "good": [{"problem_id": "p1", "status": "confirmed", "reason": ""}],
        "mine": [{"problem_id": "mine-1", "status": "refuted", "reason": "a point gives 2, below the claimed 3"}],
    }
    assert unconfirmed_lines(problems, {"good", "mine"}, "results/tables/review.csv") == [
        "problem mine-1 is refuted (not asked): a point gives 2, below the claimed 3",
        "benchmark mine: no confirmed problem (mine-1 refuted), so nothing of it was asked or scored and it has no "
        "leaderboard row; results/tables/review.csv and the lines above say why (fix the problem file and rerun)",
    ]


def test_many_unconfirmed_problems_are_capped_and_untrusted_text_is_made_printable():
    rows = [
        {"problem_id": f"p{i:03d}", "status": "invalid", "reason": "bad\x1b[31m\nfield"}
        for i in range(MAX_PROBLEM_LINES + 10)
    ]
    lines = unconfirmed_lines({"b": rows + [{"problem_id": "ok", "status": "confirmed", "reason": ""}]}, {"b"}, "r.csv")
    assert len(lines) == MAX_PROBLEM_LINES + 1
    assert lines[0] == "problem p000 is invalid (not asked): bad\\x1b[31m field"
    assert lines[-1] == "... and 10 more not confirmed (r.csv lists all)"
    assert plain("x" * 400).endswith("…") and len(plain("x" * 400)) == 300


def test_result_lines_end_with_the_two_paths(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    BOARD.to_parquet(results / "leaderboard.parquet")
    pd.DataFrame([misses_row("symmetric-guess", correct=1, no_answer=1)]).to_csv(results / "misses.csv", index=False)
    lines = result_lines(str(results), results / "leaderboard.parquet", results / "misses.csv", time.time() - 5)
    assert lines[0] == f"leaderboard: {results / 'leaderboard.md'}"
    assert lines[1:4] == leaderboard_lines(BOARD)
    assert lines[4].startswith(f"how models missed ({results / 'misses.csv'}")
    assert lines[5] == "  symmetric-guess on extrem: 1 of 2 samples missed: 1 no answer"
    assert lines[-1].startswith(f"results: {results / 'leaderboard.md'} (also .csv, .parquet)")
    assert f"HTML report: snakemake --report {results}/report.html [your options]" in lines[-1]
    # a leaderboard this run did not rebuild says so
    assert (
        "from an earlier run: this one did not rebuild it"
        in result_lines(str(results), results / "leaderboard.parquet", None, time.time() + 60)[0]
    )


def test_an_empty_leaderboard_says_why(tmp_path):
    empty = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in EMPTY_BOARD.items()})
    empty.to_parquet(tmp_path / "leaderboard.parquet")
    lines = result_lines("results", tmp_path / "leaderboard.parquet", Path("absent.csv"), 0)
    assert lines[1] == "  no row: no benchmark had a confirmed problem to ask"


def test_one_trial_is_singular():
    board = BOARD.assign(n_trials=[1, 1])
    assert leaderboard_lines(board)[1].endswith("48 problems × 1 trial")
