"""One TRL GRPO step with our reward on our export, in TRL's own trainer (issue 41): the TRL layout
of `extrembench export-rl` is loaded by `datasets`, fed to `GRPOTrainer` at the pinned TRL
(envs/upstream.sh) with `extrembench.rl.reward.trl_reward` as the reward, on a tiny randomly
initialised local model. TRL hands our reward the export's `answer` and `facts` columns beside the
completions; the step ends and logs the reward it got back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support.upstream import upstream_python

from extrembench.cli import main

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
STEP = Path(__file__).resolve().parent / "support" / "trl_grpo_step.py"


def test_one_grpo_step_with_our_reward_on_our_export(tmp_path):
    python = upstream_python()
    folder = tmp_path / "problems"
    folder.mkdir()
    shutil.copy(REPO / "data/guessable/ineq-0004.yaml", folder)
    shutil.copy(REPO / "data/unnumbered/ineq-0111.yaml", folder)
    out = tmp_path / "trl"
    args = ["export-rl", "--format", "trl", "--out", str(out), "--directory", str(REPO)]
    assert main([*args, "--problems", str(folder), "--per-problem", "0"]) == 0
    done = subprocess.run(
        [python, str(STEP), str(out), str(tmp_path / "work")],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["global_step"] == 1
    (call,) = report["calls"]  # one batch of 4 generations
    assert call["completions"] == 4 and call["facts"]
    assert set(call["answers"]) <= set(report["gold"]) and call["answers"]
    assert all(score in (0.0, 1.0) for score in call["scores"])
    log = report["log"]
    assert "rewards/extrembench/mean" in log, sorted(log)
    assert log["rewards/extrembench/mean"] == pytest.approx(sum(call["scores"]) / 4)


def test_docs_name_the_pinned_trainer_stack():
    pins = dict(
        line.split("==")
        for line in (REPO / "envs" / "upstream-constraints.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )
    docs = (REPO / "docs" / "rl.md").read_text()
    for name, shown in (("trl", "TRL"), ("transformers", "transformers"), ("torch", "torch")):
        assert f"{shown} {pins[name]}" in docs, name
