"""Hostile problem files through the real Snakemake pipeline (issue 12, acceptance).

A copy of the workflow (a "checkout") holds good problems next to files with wrong types, huge
sizes, aliases, deep nesting and huge numbers. The run exits 0, every bad file is `invalid` with
file and field, the good problems are answered and graded. Then a job fails for a reason that is
no problem's fault (an unwritable cache): the old leaderboard is removed, not left looking
current, and the job's log holds the traceback. Finally the checkout is moved: nothing reruns.
Build stages + the reference solver only, so it stays small."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from support.workflow import run_snakemake

from extrembench.core.artifacts import artifact_problem

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "pipeline"
CONFIG = {
    "benchmarks": {"extrem": {"kind": "extremal", "problems": "problems", "shards": 2, "trials": 1}},
    "models": {"reference-solver": {"backend": "reference-solver", "reference": {"starts": 4}}},
    "evaluate": {"models": ["reference-solver"], "benchmarks": ["extrem"]},
    "validation": {"starts": 6},
    "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    "cache_dir": "cache",
}
TARGETS = ["results/leaderboard.csv", "results/tables/review.csv"]
GOOD = 'sense: min\nvariables: {a: positive, b: positive}\nobjective: "a/b + b/a"\nanswer: "2"\n'


def _bomb() -> str:
    lines = ['a0: &a0 "lol"'] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "id: alias-bomb\nsense: min\n" + "\n".join(lines) + "\nobjective: *a9\nanswer: 1\n"


# file stem -> (text, or bytes for a non-UTF-8 file; the field its invalid row must name)
BAD = {
    "source-text-list": ("id: source-text-list\n" + GOOD + "source: {language: en, text: [1, 2]}\n", "source.text"),
    "source-language-int": (
        "id: source-language-int\n" + GOOD + "source: {language: 12, text: x}\n",
        "source.language",
    ),
    "source-translation-map": (
        "id: source-translation-map\n" + GOOD + "source: {language: zh, text: x, translation: {a: 1}}\n",
        "source.translation",
    ),
    "answer-list": ("id: answer-list\n" + GOOD.replace('"2"', "[2]"), "answer"),
    "too-big": ("id: too-big\n" + GOOD + "# " + "x" * 300_000 + "\n", "(file)"),
    "long-objective": ("id: long-objective\n" + GOOD.replace("a/b + b/a", " + ".join(["a/b"] * 400)), "objective"),
    "alias-bomb": (_bomb(), "(yaml)"),
    "deep-nesting": ("id: deep-nesting\n" + GOOD + "technique: " + "[" * 3000 + "]" * 3000 + "\n", "(yaml)"),
    "deep-expression": (
        "id: deep-expression\n" + GOOD.replace("a/b + b/a", "(" * 80 + "a" + ")" * 80 + " + 1/a"),
        "objective",
    ),
    "product-of-powers": (
        "id: product-of-powers\n" + GOOD.replace("a/b + b/a", "*".join(["10^999"] * 140) + " * a"),
        "objective",
    ),
    "power-tower": ("id: power-tower\n" + GOOD.replace("a/b + b/a", "9^9^9^9 * a + 1/a"), "objective"),
    "huge-integer": ("id: huge-integer\n" + GOOD.replace('"2"', "1" * 5000), "(yaml)"),
    "unicode-digit": ("id: unicode-digit\n" + GOOD.replace('"2"', '"٢"'), "answer"),
    "id-not-file-name": ("id: somebody-else\n" + GOOD, "id"),
    "not-utf8": (b"id: not-utf8\nsense: min\n\xff\xfe\n", "(file)"),
    "top-level-list": ("- 1\n- 2\n", "(top level)"),
}


def make_checkout(root: Path) -> Path:
    """The workflow as a user has it: its own directory, run in place."""
    checkout = root / "checkout"
    for name in ("Snakefile", "rules", "scripts", "envs", "profiles", "report", "extrembench", "data/published"):
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, checkout / name)
    shutil.copytree(FIXTURES, checkout / "problems")
    for stem, (text, _) in BAD.items():
        path = checkout / "problems" / f"{stem}.yaml"
        path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text, encoding="utf-8")
    (checkout / "config.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    return checkout


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    checkout = make_checkout(tmp_path_factory.mktemp("adversarial"))
    result = run_snakemake(checkout, *TARGETS, code=checkout, cwd=checkout, timeout=1200)
    return checkout, result


def problem_rows(checkout: Path) -> dict[str, dict]:
    rows = {}
    for path in sorted((checkout / "results" / "extrem" / "problems").glob("shard-*.parquet")):
        rows.update({r["problem_id"]: r for r in pq.read_table(path).to_pylist()})
    return rows


def test_run_with_hostile_files_exits_0(first_run):
    _, result = first_run
    assert result.returncode == 0, result.stderr[-5000:]


@pytest.mark.parametrize("stem", sorted(BAD))
def test_each_bad_file_is_invalid_with_file_and_field(first_run, stem):
    checkout, _ = first_run
    row = problem_rows(checkout)[stem]
    assert row["status"] == "invalid", row
    assert row["reason"].startswith(f"problems/{stem}.yaml: {BAD[stem][1]}: "), row["reason"]
    assert len(row["reason"]) < 1000


def test_good_problems_are_answered_graded_and_on_the_leaderboard(first_run):
    checkout, result = first_run
    rows = problem_rows(checkout)
    good = sorted(p.stem for p in FIXTURES.glob("*.yaml"))
    assert all(rows[g]["status"] == "confirmed" for g in good)
    grades = pd.concat(
        [
            pq.read_table(p).to_pandas()
            for p in (checkout / "results" / "extrem" / "grade" / "reference-solver").glob("*.parquet")
        ]
    )
    assert sorted(grades["problem_id"]) == good and grades["correct"].all()
    board = pd.read_csv(checkout / "results" / "leaderboard.csv").iloc[0]
    assert (board["n_problems"], board["accuracy_mean"]) == (len(good), 1.0)
    for stem in BAD:  # the end-of-run summary names each one
        assert f"problem {stem} is invalid (not asked)" in result.stderr


def test_audit_of_the_run_passes(first_run):
    checkout, _ = first_run
    audit = subprocess.run(
        [sys.executable, "-m", "extrembench.cli", "audit", "--benchmark", "extrem", "--model", "reference-solver"],
        cwd=checkout,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(checkout)},
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "recomputed from 3 grade rows" in audit.stdout


def test_a_failed_run_of_another_experiment_leaves_this_ones_results_intact(first_run):
    """Each experiment writes into its own results_dir: a second experiment that fails (its generate
    job cannot write the cache) removes nothing of the first's leaderboard, figures or audit."""
    checkout, _ = first_run
    kept = [checkout / "results" / "leaderboard.csv", checkout / "results" / "leaderboard.parquet"]
    before = {path: path.read_bytes() for path in kept}
    (checkout / "blocked-other").write_text("a file where the cache directory should be")
    other = checkout / "other.yaml"
    other.write_text("results_dir: results/other\ncache_dir: blocked-other\n")
    failed = run_snakemake(
        checkout, "results/other/leaderboard.csv", configfile=other, code=checkout, cwd=checkout, timeout=1200
    )
    assert failed.returncode != 0
    assert "removed results/leaderboard" not in failed.stderr
    assert {path: path.read_bytes() for path in kept} == before
    assert (checkout / "results" / "extrem" / "problems").is_dir() and (
        checkout / "results" / "other" / "extrem"
    ).is_dir()
    test_audit_of_the_run_passes(first_run)


def test_failed_job_removes_old_leaderboard_and_logs_traceback_then_rerun_restores(first_run):
    checkout, _ = first_run
    board = checkout / "results" / "leaderboard.csv"
    assert board.exists()
    # a new good problem reruns its shard's generate job, which cannot write the cache: not a
    # problem's fault, so the job fails
    (checkout / "problems" / "tiny-new.yaml").write_text(
        "id: tiny-new\n" + GOOD.replace("a/b + b/a", "a/b + b/a + 1").replace('"2"', '"3"')
    )
    (checkout / "blocked").write_text("a file where the cache directory should be")
    failed = run_snakemake(
        checkout, *TARGETS, "--config", "cache_dir=blocked", code=checkout, cwd=checkout, timeout=1200
    )
    assert failed.returncode != 0
    assert not board.exists() and not (checkout / "results" / "leaderboard.parquet").exists()
    assert "removed results/leaderboard" in failed.stderr
    logs = list((checkout / "results" / "logs" / "generate").rglob("shard-*.log"))
    assert any("Traceback (most recent call last)" in p.read_text() for p in logs if "server" not in p.name)
    fixed = run_snakemake(checkout, *TARGETS, code=checkout, cwd=checkout, timeout=1200)
    assert fixed.returncode == 0, fixed.stderr[-5000:]
    assert pd.read_csv(board).iloc[0]["n_problems"] == 4


def test_a_truncated_or_wrong_schema_parquet_is_named_with_the_command_that_rebuilds_it(first_run):
    """Issue 30 item 7: such a file looks current to Snakemake, so every rerun used to fail in the
    job reading it, naming nothing. Now Snakemake stops before any job naming each file and the
    command; running that command rebuilds them."""
    checkout, _ = first_run
    grades = checkout / "results/extrem/grade/reference-solver/shard-0.parquet"
    generations = checkout / "results/extrem/generate/reference-solver/shard-0.parquet"
    originals = {path: path.read_bytes() for path in (grades, generations)}
    grades.write_bytes(grades.read_bytes()[:200])  # truncated: no footer
    pq.write_table(pa.table({"problem_id": ["x"]}), generations)  # a Parquet file of another shape
    stopped = run_snakemake(checkout, *TARGETS, code=checkout, cwd=checkout, timeout=1200)
    assert stopped.returncode != 0
    for path, why in ((grades, "unreadable Parquet"), (generations, "no extrembench.kind metadata")):
        assert f"{path.relative_to(checkout)}: {why}" in stopped.stderr, stopped.stderr[-3000:]
    assert "rule " not in stopped.stdout  # before any job
    command = stopped.stderr.split("(answers come from the cache): ")[1].split(";")[0]
    remove, rebuild = command.split(" && snakemake [your options] ")
    assert remove.startswith("rm ")
    subprocess.run(remove, shell=True, cwd=checkout, check=True)
    rebuilt = run_snakemake(checkout, *rebuild.split(), code=checkout, cwd=checkout, timeout=1200)
    assert rebuilt.returncode == 0, rebuilt.stderr[-5000:]
    assert artifact_problem(grades) is None and artifact_problem(generations) is None
    # the same inputs give the same bytes: the files are as they were before the damage
    assert all(path.read_bytes() == data for path, data in originals.items())
    usual = run_snakemake(checkout, *TARGETS, code=checkout, cwd=checkout, timeout=1200)
    assert usual.returncode == 0, usual.stderr[-5000:]


def test_moving_the_checkout_reruns_nothing(first_run):
    checkout, _ = first_run
    moved = checkout.with_name("moved-checkout")
    checkout.rename(moved)
    try:
        dry = run_snakemake(moved, "-n", *TARGETS, code=moved, cwd=moved, timeout=1200)
        assert dry.returncode == 0, dry.stderr[-3000:]
        assert "Nothing to be done" in dry.stdout + dry.stderr, (dry.stdout + dry.stderr)[-3000:]
    finally:
        moved.rename(checkout)
