"""Splits that cannot leak (issue 41): a `train` row never shares a family with a problem an
evaluation benchmark of the same config asks, on the shipped data under config.yaml and under every
experiment file layered on it; a headline family put into train is caught."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from extrembench.core.config import layered_config
from extrembench.core.errors import InputError
from extrembench.problems.problem import load_problem
from extrembench.rl import export
from extrembench.rl.collect import Budget, plan
from extrembench.rl.splits import HELD_OUT, TRAIN, evaluated, family_of, leaks

REPO = Path(__file__).resolve().parents[1]
TRAINING = [REPO / folder for folder in export.TRAINING_FOLDERS]
EXPERIMENTS = sorted((REPO / "experiments").glob("*.yaml"))
# experiment files written to be layered on another (each says so in its header)
LAYERED_ON = {"amo-bench": ["paper"]}


def _rows(tasks) -> list[dict]:
    """What leaks() reads of a row, for every planned problem file (no validation needed: a
    variant's family and split are its parent's)."""
    rows = []
    for task in tasks:
        problem = load_problem(task.path)
        rows.append(
            {
                "id": problem.id,
                "parent_id": problem.id,
                "family": family_of(problem),
                "split": task.split,
                "folder": task.folder,
            }
        )
    return rows


@pytest.fixture(scope="module")
def default_plan():
    asked = evaluated(layered_config(REPO / "config.yaml", []), REPO)
    return asked, _rows(plan(TRAINING, asked, budget=Budget()))


@pytest.mark.slow
def test_the_shipped_training_folders_do_not_leak_into_the_headline(default_plan):
    asked, rows = default_plan
    assert asked.families and rows
    assert leaks(rows, asked) == []
    headline = {family_of(load_problem(p)) for p in (REPO / "data/problems").glob("*.yaml")}
    train = {r["family"] for r in rows if r["split"] == TRAIN}
    assert train and not (train & headline)
    # data/instances holds other instances of headline families: every one of those is held out
    held = [r for r in rows if r["family"] in headline]
    assert held and all(r["split"] == HELD_OUT for r in held)


@pytest.mark.slow
def test_a_headline_family_put_into_train_is_caught(default_plan):
    asked, rows = default_plan
    headline_row = next(r for r in rows if r["split"] == HELD_OUT)
    forced = [*rows, {**headline_row, "id": headline_row["id"] + "~constants-9", "split": TRAIN}]
    found = leaks(forced, asked)
    assert len(found) == 1 and headline_row["family"] in found[0] and "'extrem'" in found[0]


@pytest.mark.slow
@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_no_experiment_config_leaks_either(experiment):
    """Under experiments/guessable.yaml, data/guessable is evaluated: its rows are held out there."""
    below = [REPO / "experiments" / f"{name}.yaml" for name in LAYERED_ON.get(experiment.stem, [])]
    config = layered_config(REPO / "config.yaml", [*below, experiment])
    asked = evaluated(config, REPO)
    rows = _rows(plan(TRAINING, asked, budget=Budget()))
    assert leaks(rows, asked) == []
    for folder in TRAINING:
        if str(folder.resolve()) in asked.folders:
            assert all(r["split"] == HELD_OUT for r in rows if Path(r["folder"]) == folder)


def _config(tmp_path: Path, evaluated_folder: Path):
    (tmp_path / "config.yaml").write_text(
        f"benchmarks:\n  bench:\n    kind: extremal\n    problems: {evaluated_folder}\n"
        "models:\n  m:\n    backend: symmetric-guess\n    size_class: cpu\n"
        "evaluate:\n  models: [m]\n  benchmarks: [bench]\n"
        "resources:\n  cpu: {gpu: 0, mem_mb: 2000, runtime: 60}\n"
    )
    return layered_config(tmp_path / "config.yaml", [])


def _copy(source: Path, folder: Path, new_id: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = source.read_text().replace(f"id: {source.stem}", f"id: {new_id}", 1)
    target = folder / f"{new_id}.yaml"
    target.write_text(text)
    return target


def test_a_file_of_an_evaluated_family_in_a_named_folder_is_held_out(tmp_path):
    headline = tmp_path / "headline"
    _copy(REPO / "data/problems/ineq-0007.yaml", headline, "ineq-0007")
    extra = tmp_path / "extra"
    _copy(REPO / "data/problems/ineq-0007.yaml", extra, "ineq-9007")  # same family, another file
    _copy(REPO / "data/unnumbered/ineq-0111.yaml", extra, "ineq-0111")
    asked = evaluated(_config(tmp_path, headline), tmp_path)
    splits = {Path(t.path).stem: t.split for t in plan([extra], asked, budget=Budget())}
    assert splits == {"ineq-9007": HELD_OUT, "ineq-0111": TRAIN}


def test_the_export_stops_before_writing_a_leaking_train_row(tmp_path, monkeypatch):
    """Even if the split were computed wrongly, export-rl writes nothing with a leak."""
    headline = tmp_path / "headline"
    source = _copy(REPO / "data/problems/ineq-0007.yaml", headline, "ineq-0007")
    _config(tmp_path, headline)
    row = {"id": "ineq-0007", "parent_id": "ineq-0007", "family": family_of(load_problem(source)), "split": TRAIN}
    monkeypatch.setattr(export, "collect", lambda tasks, **_: ([row], []))
    args = argparse.Namespace(
        format="verl",
        out=tmp_path / "out",
        configfile=[],
        directory=tmp_path,
        problems=[headline],
        tables=[],
        per_problem=0,
        seed=0,
        variant_seed=0,
        jobs=1,
        limit=None,
        from_rows=None,
    )
    with pytest.raises(InputError, match="train rows of evaluated families.*ineq-0007"):
        export.run(args)
    assert not (tmp_path / "out").exists()
