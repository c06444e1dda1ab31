"""`audit` and `show` find a run's folders the same way (extrembench/report/audit/folders.py):
given directly, else from the config layered with the run's experiment file, or from that file
alone when there is no config.yaml (outside a checkout), where `audit` used to stop."""

from __future__ import annotations

import argparse
from pathlib import Path

from extrembench.report.audit.folders import add_folder_arguments, run_folders

REPO = Path(__file__).resolve().parents[1]


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_folder_arguments(parser)
    return parser.parse_args(list(argv))


def test_folders_given_are_taken_as_they_are(tmp_path):
    args = parsed("--results", str(tmp_path / "r"), "--cache-dir", str(tmp_path / "c"))
    assert run_folders(args) == (tmp_path / "r", tmp_path / "c")


def test_the_experiment_file_names_the_run_folders():
    results, _ = run_folders(
        parsed("--config", str(REPO / "config.yaml"), "--configfile", str(REPO / "experiments/full.yaml"))
    )
    assert results == Path("results/full")


def test_without_config_yaml_a_whole_experiment_file_is_enough(tmp_path):
    """Outside a checkout there is no config.yaml: the run's own (complete) config file is read alone."""
    whole = tmp_path / "run.yaml"
    whole.write_text((REPO / "config.yaml").read_text() + "\nresults_dir: elsewhere\n")
    results, _ = run_folders(parsed("--config", str(tmp_path / "absent.yaml"), "--configfile", str(whole)))
    assert results == Path("elsewhere")
