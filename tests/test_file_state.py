"""Issue 30 item 8: audit said a problem file's content came from its last commit even when the
file had been edited since (and the run used the edit). file_state says 'uncommitted' then."""

from __future__ import annotations

import subprocess

from extrembench.core.provenance import file_state


def git(repo, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_committed_edited_and_untracked_files(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "p.yaml").write_text("answer: 2\n")
    git(tmp_path, "add", "p.yaml")
    git(tmp_path, "commit", "-q", "-m", "p")
    commit = git(tmp_path, "rev-parse", "HEAD")[:12]
    assert file_state("p.yaml", tmp_path) == f"git {commit}"
    (tmp_path / "p.yaml").write_text("answer: 3\n")
    assert file_state("p.yaml", tmp_path) == f"uncommitted (edited after git {commit})"
    (tmp_path / "q.yaml").write_text("answer: 1\n")
    assert file_state("q.yaml", tmp_path) == "untracked"
