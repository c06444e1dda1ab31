"""Nothing in the repository points at one machine's folders: configs, experiments, profiles, CI
and code name paths relative to the checkout or read them from the environment
(EXTREMBENCH_SHARED_DATA)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from extrembench.build.ingest import shared_data_root

ROOT = Path(__file__).resolve().parents[1]
# Where one machine's checkouts, homes and data live (system folders such as /usr, /var/lib or
# /run that the SLURM setup script manages are the same on every Debian machine).
MACHINE_PATH = re.compile(
    r"(?<![\w.:/~-])/(?:work|home|Users|root|mnt|scratch|gpfs|lustre|nfs|data|srv|tmp)/[\w.-]+"
)


def _tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    files = [ROOT / name for name in listed.decode().split("\0") if name]
    return [path for path in files if path.suffix not in {".parquet", ".png", ".pdf", ".gguf"} and path.is_file()]


def test_machine_path_pattern():
    assert MACHINE_PATH.search("root: /work/shared/data/aime2025")
    assert MACHINE_PATH.search('for candidate in ../shared/data /home/alice/data; do')
    assert not MACHINE_PATH.search("root: ../shared/data/aime2025")
    assert not MACHINE_PATH.search("url: http://127.0.0.1:8080/v1/models")
    assert not MACHINE_PATH.search("mkdir -p /var/lib/munge")


def test_no_tracked_file_names_a_machine_path():
    this_file = Path(__file__).resolve()
    offenders = []
    for path in _tracked_text_files():
        if path == this_file:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATH.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == [], "absolute machine paths (use a relative path or EXTREMBENCH_SHARED_DATA):\n" + "\n".join(offenders)


def test_shared_data_root_defaults_beside_the_checkout(monkeypatch):
    # ../shared/data, as docs/datasets.md and .ci/run say (moving ingest.py into build/ once made it
    # the checkout's own shared/data, where no copy is)
    monkeypatch.delenv("EXTREMBENCH_SHARED_DATA", raising=False)
    assert shared_data_root() == ROOT.parent / "shared" / "data"
    monkeypatch.setenv("EXTREMBENCH_SHARED_DATA", "elsewhere")
    assert shared_data_root() == Path("elsewhere")
