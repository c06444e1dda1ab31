"""The whole chain for real: Snakemake on a tiny config with the reference solver and gemma3-270m
behind a real llama.cpp server; then edit one problem, rerun, and count what was sent."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from support.workflow import run_snakemake

from extrembench.core.shards import shard_of
from extrembench.report.misses.classes import CLASSES

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "pipeline"
TRIALS = 2
N_SHARDS = 2

TINY_CONFIG = {
    "benchmarks": {"extrem": {"kind": "extremal", "problems": "problems", "shards": N_SHARDS, "trials": TRIALS}},
    "models": {
        "reference-solver": {"backend": "reference-solver", "reference": {"starts": 4}},
        "symmetric-guess": {"backend": "symmetric-guess"},
        "boundary-guess": {"backend": "boundary-guess"},
        "gemma3-270m": {
            "backend": "llamacpp",
            "hf_id": "google/gemma-3-270m",
            "revision": "gguf-1.0.0",
            "context_length": 1024,
            "concurrency": 1,
            "sampling": {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0, "max_tokens": 8},
        },
    },
    "evaluate": {
        "models": ["reference-solver", "symmetric-guess", "boundary-guess", "gemma3-270m"],
        "benchmarks": ["extrem"],
    },
    "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    "cache_dir": "cache",
}


def sent_counts(output: str) -> tuple[int, int]:
    match = re.search(
        r"(\d+) LLM request\(s\) sent, \d+ reference-solver answer\(s\) computed, (\d+) served from cache", output
    )
    assert match, f"no request summary in snakemake output:\n{output[-3000:]}"
    return int(match.group(1)), int(match.group(2))


def planned_jobs(dry_run_output: str) -> dict[str, list[str]]:
    """rule name -> wildcards strings of the jobs a dry run plans."""
    jobs: dict[str, list[str]] = {}
    for block in dry_run_output.split("\n\n"):
        rule = re.search(r"^(?:local)?rule (\w+):", block, re.M)
        if rule:
            wildcards = re.search(r"^\s+wildcards: (.*)$", block, re.M)
            jobs.setdefault(rule.group(1), []).append(wildcards.group(1) if wildcards else "")
    return jobs


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pipeline")
    shutil.copytree(FIXTURES, root / "problems")
    (root / "config.yaml").write_text(yaml.safe_dump(TINY_CONFIG, sort_keys=False))
    result = run_snakemake(root)
    assert result.returncode == 0, result.stderr[-5000:]
    assert sent_counts(result.stderr) == (3 * TRIALS, 0)
    return root


def test_first_run_writes_leaderboard_and_figure(workdir):
    board = pd.read_csv(workdir / "results" / "leaderboard.csv")
    for column in ("benchmark", "model", "n_problems", "n_trials", "accuracy_mean", "accuracy_std"):
        assert column in board.columns
    # both cheap-guess baselines on the leaderboard, as in the default run (config.yaml)
    assert sorted(board["model"]) == ["boundary-guess", "gemma3-270m", "reference-solver", "symmetric-guess"]
    assert set(board["n_problems"]) == {3} and set(board["n_trials"]) == {TRIALS}
    solver = board.set_index("model").loc["reference-solver"]
    # the numeric optimum of each tiny problem is its exact answer to far more than 4 decimals
    assert solver["accuracy_mean"] == 1.0
    # each tiny problem's extremum is at its all-equal point, so the guess is right on all three
    assert board.set_index("model").loc["symmetric-guess", "accuracy_mean"] == 1.0
    assert (workdir / "results" / "figures" / "accuracy_by_model.png").stat().st_size > 0


def test_report_builds_with_every_figure_and_caption(workdir):
    result = run_snakemake(workdir, "--report", "results/report.html")
    assert result.returncode == 0, result.stderr[-3000:]
    html = (workdir / "results" / "report.html").read_text(errors="replace")
    for name in (
        "accuracy_by_model.png",
        "benchmark_scatter.png",
        "accuracy_vs_tokens.png",
        "pass_at_k.png",
        "problem_heatmap.png",
        "leaderboard.csv",
        "review.csv",
    ):
        assert name in html, name
    assert "extrembench audit" in html


def test_generation_rows_carry_provenance(workdir):
    rows = pq.read_table(next((workdir / "results" / "extrem" / "generate" / "gemma3-270m").glob("*.parquet")))
    rows = rows.to_pylist()
    assert rows and all(r["engine"] == "llamacpp" and r["cache_key"] and r["host"] for r in rows)
    assert len({r["seed"] for r in rows}) == len(rows)
    assert all(r["dag_node"].startswith("generate[benchmark=extrem,model=gemma3-270m,shard=") for r in rows)


def test_nothing_to_do_and_touch_reruns_nothing(workdir):
    assert "Nothing to be done" in run_snakemake(workdir, "-n").stdout
    (workdir / "problems" / "tiny-parabola.yaml").touch()
    assert "Nothing to be done" in run_snakemake(workdir, "-n").stdout


def test_audit_passes_then_names_a_changed_grade_file(workdir):
    command = [sys.executable, "-m", "extrembench.cli", "audit", "--benchmark", "extrem", "--model", "gemma3-270m"]
    ok = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    grade_file = workdir / "results" / "extrem" / "grade" / "gemma3-270m" / "shard-0.parquet"
    original = grade_file.read_bytes()
    try:
        data = bytearray(original)
        data[len(data) // 2] ^= 0x01
        grade_file.write_bytes(bytes(data))
        broken = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
        assert broken.returncode != 0
        assert "results/extrem/grade/gemma3-270m/shard-0.parquet: changed" in broken.stderr
    finally:
        grade_file.write_bytes(original)


@pytest.mark.parametrize(
    "changed",
    [
        "results/tables/misses.csv",
        "results/extrem/misses/symmetric-guess/shard-0.parquet",
        "results/figures/misses.png",
    ],
)
def test_audit_rederives_the_misses_row_then_fails_on_one_changed_byte(workdir, changed):
    command = [sys.executable, "-m", "extrembench.cli", "audit", "--benchmark", "extrem", "--model", "symmetric-guess"]
    ok = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "misses of 6 samples recomputed from 2 shards: correct 6" in ok.stdout, ok.stdout
    table = pd.read_csv(workdir / "results" / "tables" / "misses.csv")
    assert (table[list(CLASSES)].sum(axis=1) == table["n_samples"]).all()
    assert set(table.set_index("model").loc["reference-solver", ["n_missed"]]) == {0}
    target = workdir / changed
    original = target.read_bytes()
    try:
        data = bytearray(original)
        data[len(data) // 2] ^= 0x01
        target.write_bytes(bytes(data))
        broken = subprocess.run(command, cwd=workdir, capture_output=True, text=True)
        assert broken.returncode != 0
        assert f"{changed}: changed" in broken.stderr
    finally:
        target.write_bytes(original)


def test_editing_one_problem_reruns_its_shard_and_sends_models_times_trials(workdir):
    edited = workdir / "problems" / "tiny-sum-of-squares.yaml"
    shard = shard_of(edited.stem, N_SHARDS)
    # a real change of the problem (the rendered statement, hence the prompt, changes too)
    text = edited.read_text().replace('objective: "a^2 + b^2"', 'objective: "a^2 + b^2 + 1"')
    edited.write_text(text.replace('answer: "2"', 'answer: "3"'))
    plan = planned_jobs(run_snakemake(workdir, "-n").stdout)
    for rule in ("translate", "convert", "validate"):
        assert plan[rule] == [f"benchmark=extrem, shard={shard}"], plan
    for rule in ("generate", "grade", "misses"):
        assert sorted(plan[rule]) == sorted(
            f"benchmark=extrem, model={m}, shard={shard}" for m in TINY_CONFIG["evaluate"]["models"]
        ), plan
    assert set(plan) == {
        "translate",
        "convert",
        "validate",
        "generate",
        "grade",
        "review",
        "aggregate",
        "plot",
        "compare",
        "misses",
        "misses_report",
        "all",
    }
    rerun = run_snakemake(workdir)
    assert rerun.returncode == 0, rerun.stderr[-5000:]
    n_llm_models = 1
    sent, cached = sent_counts(rerun.stderr)
    problems_in_shard = sum(shard_of(p.stem, N_SHARDS) == shard for p in (workdir / "problems").glob("*.yaml"))
    assert sent == n_llm_models * TRIALS
    # the shard's other problems, every model
    assert cached == (problems_in_shard - 1) * TRIALS * len(TINY_CONFIG["evaluate"]["models"])


def test_malformed_problem_is_invalid_and_the_run_goes_on(workdir):
    bad = workdir / "problems" / "tiny-broken.yaml"
    bad.write_text(
        "id: tiny-broken\nsense: min\nvariables: {x: positive}\nconstraints: []\n"
        "objective: \"__import__('os').system('touch pwned')\"\nanswer: \"0\"\n"
    )
    try:
        result = run_snakemake(workdir)
        assert result.returncode == 0, result.stderr[-5000:]
        assert re.search(r"problem tiny-broken is invalid \(not asked\): .*tiny-broken\.yaml: objective", result.stderr)
        assert not (workdir / "pwned").exists()
        board = pd.read_csv(workdir / "results" / "leaderboard.csv")
        assert set(board["n_problems"]) == {3}
    finally:
        bad.unlink()


def test_every_confirmed_problem_carries_a_certificate_that_verifies(workdir, tmp_path, capsys):
    from extrembench import cli
    from extrembench.core.artifacts import read_artifact, write_artifact

    tables = sorted((workdir / "results" / "extrem" / "problems").glob("*.parquet"))
    rows = [r for t in tables for r in read_artifact(t, "problems").to_pylist()]
    confirmed = [r for r in rows if r["status"] == "confirmed"]
    assert confirmed and all(
        r["certificate_kind"] in ("bound", "sos", "numeric") and r["certificate_verifier"] for r in confirmed
    )
    assert cli.main(["verify-certificate", *map(str, tables)]) == 0
    # one number changed inside one certificate (a fraction's numerator, e.g. epsilon, a Gram entry
    # or a witness coordinate; else the answer): named, exit 1
    target = next(t for t in tables if any(r["certificate"] for r in read_artifact(t, "problems").to_pylist()))
    changed = read_artifact(target, "problems").to_pylist()
    row = next(r for r in changed if r["certificate"])
    text = row["certificate"]
    row["certificate"] = (
        text.replace('"1/', '"2/', 1) if '"1/' in text else text.replace('"answer":"', '"answer":"1+', 1)
    )
    bad = write_artifact(changed, tmp_path / "tampered.parquet", "problems")
    capsys.readouterr()
    assert cli.main(["verify-certificate", str(bad)]) == 1
    assert row["problem_id"] in capsys.readouterr().err


def test_the_report_opens_on_the_leaderboard_table_in_headless_chromium(workdir):
    """Issue 37: the report opened on the rule graph, the leaderboard a link to a 45-column CSV.
    Its first screen (1280 x 800) now shows this run's leaderboard table, every model a row."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from support.browser import headless_chromium

    report = workdir / "results" / "report.html"
    result = run_snakemake(workdir, "--report", "results/report.html")
    assert result.returncode == 0, result.stderr[-3000:]
    board = pd.read_parquet(workdir / "results" / "leaderboard.parquet")
    with headless_chromium(1280, 800) as browser:
        browser.get(report.as_uri())
        table = WebDriverWait(browser, 60).until(lambda b: b.find_element(By.CSS_SELECTOR, "table.leaderboard"))
        screen = browser.execute_script("return window.innerHeight")
        top = browser.execute_script("return arguments[0].getBoundingClientRect().top", table)
        assert 0 <= top < screen / 2, f"the leaderboard table starts at {top} px of a {screen} px first screen"
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        cells = [[c.text.replace("\n", "") for c in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert sorted((c[0], c[1]) for c in cells) == sorted(zip(board["benchmark"], board["model"]))
    for c in cells:
        row = board[(board["benchmark"] == c[0]) & (board["model"] == c[1])].iloc[0]
        assert c[2].startswith(f"{100 * row['accuracy_mean']:.1f} ±"), c
