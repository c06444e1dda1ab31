"""One resolver for the local dataset copies, in the documented order: EXTREMBENCH_SHARED_DATA, else
../shared/data beside the checkout; a missing copy names both places."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extrembench.sources.ingest import DatasetError, local_root, shared_data_root

REPO = Path(__file__).resolve().parents[1]


def test_beside_the_checkout_when_the_variable_is_unset(tmp_path, monkeypatch):
    monkeypatch.delenv("EXTREMBENCH_SHARED_DATA", raising=False)
    assert shared_data_root(tmp_path / "clone") == tmp_path / "shared" / "data"
    assert shared_data_root() == REPO.parent / "shared" / "data"  # not <checkout>/shared/data


def test_the_variable_comes_first(tmp_path, monkeypatch):
    monkeypatch.setenv("EXTREMBENCH_SHARED_DATA", str(tmp_path / "elsewhere"))
    assert shared_data_root(tmp_path / "clone") == tmp_path / "elsewhere"


def test_a_missing_copy_names_both_places(tmp_path, monkeypatch):
    monkeypatch.delenv("EXTREMBENCH_SHARED_DATA", raising=False)
    monkeypatch.setattr("extrembench.sources.ingest.CHECKOUT", tmp_path / "clone")
    with pytest.raises(DatasetError) as error:
        local_root("math500")
    message = str(error.value)
    assert "EXTREMBENCH_SHARED_DATA (not set)" in message
    assert str(tmp_path / "shared" / "data") in message and "beside the checkout" in message


@pytest.mark.slow
def test_plan_finds_the_datasets_beside_a_clone_without_the_variable(tmp_path, shared_datasets):
    """A clone with shared/data beside it (a link to the real copies) and no environment variable."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    for changed in subprocess.run(
        ["git", "ls-files", "-m", "-o", "--exclude-standard"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split():
        if (REPO / changed).is_file():  # the working tree's edits too, so this tests what is checked out
            (clone / changed).parent.mkdir(parents=True, exist_ok=True)
            (clone / changed).write_bytes((REPO / changed).read_bytes())
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(shared_datasets)
    env = {k: v for k, v in os.environ.items() if k != "EXTREMBENCH_SHARED_DATA"}
    env["PYTHONPATH"] = str(clone)
    result = subprocess.run(
        [sys.executable, "-m", "extrembench.cli", "plan", "--configfile", "experiments/paper.yaml"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "| **total** |" in result.stdout


def test_the_console_script_prints_a_missing_dataset_without_a_traceback(tmp_path):
    env = {**os.environ, "EXTREMBENCH_SHARED_DATA": str(tmp_path / "nothing-here")}
    result = subprocess.run(
        [sys.executable, "-m", "extrembench.cli", "plan", "--configfile", "experiments/paper.yaml"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("extrembench plan: local copy of dataset")
    assert f"EXTREMBENCH_SHARED_DATA={tmp_path / 'nothing-here'}" in result.stderr
