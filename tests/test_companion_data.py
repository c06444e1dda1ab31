"""Getting the companion datasets (issue 37): the "not found" error says how to download them and
which variable points at a copy, and a download that cannot reach its address says which address
and exits without a traceback."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from extrembench.cli import main as cli_main
from extrembench.llm.server import free_port
from extrembench.sources.download import main as download_main
from extrembench.sources.ingest import DATASETS, DatasetSpec

REPO = Path(__file__).resolve().parents[1]


def test_plan_names_the_download_command_and_the_variable(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("EXTREMBENCH_SHARED_DATA", str(tmp_path))
    rc = cli_main(["plan", "--configfile", "experiments/companions-offline.yaml"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "local copy of dataset 'aime2025' not found" in err
    # the command puts the files exactly where the lookup looks
    assert f"`python -m extrembench.sources.download aime2025 {tmp_path}/aime2025`" in err
    assert "set EXTREMBENCH_SHARED_DATA to a folder that holds aime2025/" in err
    assert "Traceback" not in err


@pytest.fixture
def unreachable_dataset(monkeypatch) -> tuple[str, str]:
    """A registered dataset whose one file comes from a loopback port nothing listens on."""
    url = f"http://127.0.0.1:{free_port()}/answers.csv"
    spec = DatasetSpec(
        name="offline-test",
        hub_id=None,
        revision=None,
        files={"answers.csv": hashlib.sha256(b"id,answer\n").hexdigest()},
        license="test",
        citation="test",
        mirrors={"answers.csv": url},
    )
    monkeypatch.setitem(DATASETS, spec.name, spec)
    return spec.name, url


def test_a_download_that_cannot_connect_names_the_address_without_a_traceback(tmp_path, capsys, unreachable_dataset):
    name, url = unreachable_dataset
    rc = download_main([name, str(tmp_path / "dest")])
    err = capsys.readouterr().err
    assert rc == 1
    assert f"GET {url} failed (ConnectError" in err and "EXTREMBENCH_SHARED_DATA" in err
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "dest" / "answers.csv").exists()
