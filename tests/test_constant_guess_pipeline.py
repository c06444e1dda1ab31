"""constant-guess for real (issue 36): Snakemake on the three tiny problems puts a constant-guess row
on the leaderboard, and an edit that changes the set's most frequent answer reruns every shard of
it (the answer is a parameter of the generate rule), while an edit that does not reruns one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support.workflow import run_snakemake
from test_pipeline import FIXTURES, planned_jobs

from extrembench.core.shards import shard_of

pytestmark = pytest.mark.slow

N_SHARDS = 2
CONFIG = {
    "benchmarks": {"extrem": {"kind": "extremal", "problems": "problems", "shards": N_SHARDS, "trials": 1}},
    "models": {"constant-guess": {"backend": "constant-guess"}},
    "evaluate": {"models": ["constant-guess"], "benchmarks": ["extrem"]},
    "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    "cache_dir": "cache",
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("constant")
    shutil.copytree(FIXTURES, root / "problems")
    (root / "config.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    result = run_snakemake(root)
    assert result.returncode == 0, result.stderr[-5000:]
    return root


def test_constant_guess_has_a_leaderboard_row(workdir):
    board = pd.read_csv(workdir / "results" / "leaderboard.csv").set_index("model")
    # answers 1/4, 2, 2: the set's answer is 2, right on two of the three (none is a difference)
    assert board.loc["constant-guess", "accuracy_mean"] == pytest.approx(2 / 3)


def test_a_new_set_answer_reruns_every_shard(workdir):
    shards = {shard_of(p.stem, N_SHARDS) for p in (workdir / "problems").glob("*.yaml")}
    edited = workdir / "problems" / "tiny-sum-of-squares.yaml"
    # answers 1/4, 2, 2 -> 1/4, 3, 2: a three-way tie, the smaller value 1/4 is the new answer
    text = edited.read_text().replace('objective: "a^2 + b^2"', 'objective: "a^2 + b^2 + 1"')
    edited.write_text(text.replace('answer: "2"', 'answer: "3"'))
    plan = planned_jobs(run_snakemake(workdir, "-n").stdout)
    assert sorted(plan["generate"]) == sorted(f"benchmark=extrem, model=constant-guess, shard={s}" for s in shards), (
        plan
    )
