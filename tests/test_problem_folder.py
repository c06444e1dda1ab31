"""A problems folder holds regular files only (issue 42): a symlink to a file outside the folder
put its text in review.csv, Parquet and logs; a directory named `x.yaml` failed every run; a FIFO
hung the run forever; a symlink to /dev/zero spun a core forever. Each such entry is now refused by
lstat before any job (never a job input, never read) and becomes an `invalid` row naming it.

The fast tests here drive the functions; the slow one a whole Snakemake run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from extrembench.core.config import Validation
from extrembench.core.files import sha256_file
from extrembench.core.problem_entries import problem_folder_entries
from extrembench.core.untrusted_yaml import UntrustedYAMLError, read_untrusted_text
from extrembench.sources.convert import convert_shard
from extrembench.sources.translate import translate_shard
from extrembench.verify.stage import validate_shard

REPO = Path(__file__).resolve().parents[1]
GOOD = (REPO / "tests" / "fixtures" / "slurm" / "ineq-0001.yaml").read_text()
SECRET = "TOP-SECRET-OUTSIDE-TEXT"


@contextmanager
def deadline(seconds: int = 10):
    """A hang (reading a FIFO, /dev/zero) fails the test instead of blocking the suite."""

    def expired(*_):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def hostile_folder(root: Path) -> Path:
    """A folder with one good problem and one entry of each refused kind (all named *.yaml)."""
    folder = root / "problems"
    folder.mkdir()
    (folder / "ineq-0001.yaml").write_text(GOOD)
    outside = root / "secret.yaml"
    outside.write_text(f"id: outside\nsense: min\nobjective: '{SECRET}'\n")
    (folder / "outside.yaml").symlink_to(outside)
    (folder / "a-directory.yaml").mkdir()
    os.mkfifo(folder / "a-fifo.yaml")
    (folder / "zero.yaml").symlink_to("/dev/zero")
    (folder / "dangling.yaml").symlink_to("no-such-file")  # inside the folder, to nothing
    (folder / "$(touch pwned).yaml").write_text(GOOD)
    with open(folder / "huge.yaml", "wb") as handle:
        handle.truncate(1 << 40)  # 1 TB, sparse: refused by its size, never hashed or read
    return folder


REFUSED = {
    "outside": "symbolic link to a file outside the problems folder",
    "a-directory": "a directory, not a regular file",
    "a-fifo": "a FIFO (named pipe), not a regular file",
    "zero": "symbolic link to a file outside the problems folder",
    "dangling": "cannot be read",
    "$(touch pwned)": "is not an identifier; rename the file",
    "huge": "1099511627776 bytes, more than the 262144-byte limit for one file",
}


def test_folder_entries_keep_regular_files_and_name_every_refused_entry(tmp_path):
    folder = hostile_folder(tmp_path)
    (folder / "alias.yaml").symlink_to("ineq-0001.yaml")  # a link that stays inside: judged by its target
    (folder / ".hidden.yaml").write_text(GOOD)  # hidden names are skipped, as a shell glob does
    with deadline():
        entries = problem_folder_entries(folder)
    assert entries.files == {"ineq-0001": str(folder / "ineq-0001.yaml"), "alias": str(folder / "alias.yaml")}
    assert set(entries.refused) == set(REFUSED)
    for problem_id, words in REFUSED.items():
        path, reason = entries.refused[problem_id]
        assert path == str(folder / f"{problem_id}.yaml") and words in reason, (problem_id, reason)
    assert problem_folder_entries(tmp_path / "missing").ids == []


def test_a_link_to_a_device_inside_the_folder_is_refused_as_a_device(tmp_path):
    folder = tmp_path / "problems"
    folder.mkdir()
    (folder / "dev").symlink_to("/dev")  # the folder's own link: /dev/zero reached through it stays "inside"
    (folder / "zero.yaml").symlink_to("dev/zero")
    reason = problem_folder_entries(folder).refused["zero"][1]
    assert "symbolic link to a file outside" in reason or "a device, not a regular file" in reason


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_readers_refuse_special_files_at_once(tmp_path, kind):
    """The job-side readers hold too (an entry swapped after planning): nothing blocks or spins."""
    path = tmp_path / "entry.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    with deadline():
        with pytest.raises(UntrustedYAMLError) as error:
            read_untrusted_text(path)
        with pytest.raises(OSError, match="not a regular file"):
            sha256_file(path)
    assert error.value.field == "(file)" and "not a regular file" in error.value.reason


def test_stages_turn_refused_entries_into_named_invalid_rows(tmp_path):
    folder = hostile_folder(tmp_path)
    entries = problem_folder_entries(folder)
    files = list(entries.files.values())
    refused = [[i, path, reason] for i, (path, reason) in sorted(entries.refused.items())]
    out = tmp_path / "out"
    with deadline(60):
        translate_shard(files, out / "translate.parquet", benchmark="b", dag_node="t")
        convert_shard(files, out / "translate.parquet", out / "convert.parquet", benchmark="b", dag_node="t",
                      refused=refused)  # fmt: skip
        validate_shard(files, out / "convert.parquet", out / "problems.parquet", benchmark="b", dag_node="t",
                       settings=Validation(starts=2))  # fmt: skip
    rows = {r["problem_id"]: r for r in pq.read_table(out / "problems.parquet").to_pylist()}
    assert set(rows) == {"ineq-0001", *REFUSED}
    assert rows["ineq-0001"]["status"] == "confirmed"
    for problem_id, words in REFUSED.items():
        row = rows[problem_id]
        assert row["status"] == "invalid", row
        assert row["reason"].startswith(f"{folder / problem_id}.yaml: (file): ") and words in row["reason"]
        assert row["source_sha256"] is None
    tables = [out / name for name in ("translate.parquet", "convert.parquet", "problems.parquet")]
    assert not any(SECRET in str(pq.read_table(t).to_pylist()) for t in tables)


@pytest.mark.slow  # ~30 s: a whole Snakemake run
def test_refused_entries_are_invalid_rows_of_a_run_that_ends(tmp_path):
    folder = hostile_folder(tmp_path)
    config = {
        "benchmarks": {"extrem": {"kind": "extremal", "problems": str(folder), "shards": 2}},
        "models": {"reference-solver": {"backend": "reference-solver", "reference": {"starts": 2}}},
        "evaluate": {"models": ["reference-solver"], "benchmarks": ["extrem"]},
        "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
        "validation": {"starts": 2},
        "cache_dir": "cache",
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path),
         "--profile", str(REPO / "profiles" / "local"), "results/tables/review.csv"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-5000:]
    review = pd.read_csv(tmp_path / "results" / "tables" / "review.csv", keep_default_na=False)
    assert set(review["problem_id"]) == set(REFUSED)
    assert set(review["status"]) == {"invalid"}
    for problem_id, words in REFUSED.items():
        reason = review.loc[review["problem_id"] == problem_id, "reason"].item()
        assert f"{problem_id}.yaml: (file): " in reason and words in reason
    produced = [p for p in (tmp_path / "results").rglob("*") if p.is_file()]
    assert not any(SECRET.encode() in p.read_bytes() for p in produced)
    assert not (tmp_path / "pwned").exists()
