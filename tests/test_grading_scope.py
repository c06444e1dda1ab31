"""grading.scope: the final section only (default) or also a box left inside the reasoning, as
graders that take the last box of the whole response do; both readings are kept on every row and
counted in the leaderboard (extrembench/grading/shard.py, docs/grading.md)."""

from __future__ import annotations

import pandas as pd
import pytest

from extrembench.core.artifacts import GENERATIONS, PROBLEMS, read_artifact, write_artifact
from extrembench.grading.shard import grade_shard
from extrembench.report.results.leaderboard import build_leaderboard

# trial: (content, reasoning_content, finish_reason)
SAMPLES = {
    0: (r"The minimum is \boxed{36}.", None, "stop"),  # a final answer: both readings agree
    1: (r"<think>so it is \boxed{36} but let me check", None, "length"),  # cut off inside <think>
    2: (None, r"the value is \boxed{42}, now write it up", "length"),  # reasoning field, wrong box
    3: (None, "no box anywhere", "length"),
    4: (r"<think>\boxed{36}</think> Final: \boxed{40}", None, "stop"),  # a final answer overrides
}
# trial: (status, correct) under each scope, then (correct_final, correct_anywhere, reasoning_answer)
EXPECTED = {
    "final": {
        0: ("correct", True),
        1: ("no_answer", False),
        2: ("no_answer", False),
        3: ("no_answer", False),
        4: ("wrong", False),
    },
    "anywhere": {
        0: ("correct", True),
        1: ("correct", True),
        2: ("wrong", False),
        3: ("no_answer", False),
        4: ("wrong", False),
    },
}
READINGS = {
    0: (True, True, None),
    1: (False, True, "36"),
    2: (False, False, "42"),
    3: (False, False, None),
    4: (False, False, None),
}


def _inputs(tmp_path):
    problems, generations = tmp_path / "problems.parquet", tmp_path / "generations.parquet"
    write_artifact(
        [
            {
                **{name: None for name in PROBLEMS.names},
                "benchmark": "extrem",
                "problem_id": "p",
                "answer": "36",
                "answer_type": "number",
                "sense": "min",
                "technique": [],
                "status": "confirmed",
            }
        ],
        problems,
        "problems",
    )
    write_artifact(
        [
            {
                **{name: None for name in GENERATIONS.names},
                "benchmark": "extrem",
                "model": "m",
                "problem_id": "p",
                "trial": trial,
                "cache_key": f"k{trial}",
                "content": content,
                "reasoning_content": reasoning,
                "finish_reason": finish,
            }
            for trial, (content, reasoning, finish) in SAMPLES.items()
        ],
        generations,
        "generations",
    )
    return generations, problems


@pytest.mark.slow  # the grader's worker pool grades every sample in three modes (~2 s)
def test_scope_chooses_the_verdict_and_both_readings_are_kept_and_counted(tmp_path):
    generations, problems = _inputs(tmp_path)
    boards = {}
    for scope in ("final", "anywhere"):
        out = tmp_path / f"grades-{scope}.parquet"
        grade_shard(generations, problems, out, dag_node="g", mode="default", timeout_s=20.0, scope=scope)
        frame = read_artifact(out, "grades").to_pandas().set_index("trial")
        assert set(frame["scope"]) == {scope}  # provenance: the option the verdicts follow
        for trial, (status, correct) in EXPECTED[scope].items():
            assert (frame.loc[trial, "status"], bool(frame.loc[trial, "correct"])) == (status, correct), (scope, trial)
            final, anywhere, boxed = READINGS[trial]
            row = frame.loc[trial]
            boxed_read = None if pd.isna(row["reasoning_answer"]) else row["reasoning_answer"]
            assert (bool(row["correct_final"]), bool(row["correct_anywhere"]), boxed_read) == (
                final,
                anywhere,
                boxed,
            ), (scope, trial)
        boards[scope] = build_leaderboard(frame.reset_index()).iloc[0]
    for board in boards.values():  # the same two readings whichever scope the verdicts follow
        assert board["accuracy_final_only"] == pytest.approx(1 / 5)
        assert board["accuracy_anywhere"] == pytest.approx(2 / 5)
    assert boards["final"]["accuracy_mean"] == pytest.approx(1 / 5)
    assert boards["anywhere"]["accuracy_mean"] == pytest.approx(2 / 5)
