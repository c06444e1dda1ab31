"""Issue 37: a user's first own benchmark, one problem with a typo in its answer. `check` refutes
it, but the pipeline then failed (aggregate: "grade table is empty", misses_report: KeyError
'benchmark'; four tracebacks) and the failed run removed the earlier figures. Now the run ends
with rc 0, says which benchmark has no confirmed problem and why, shows the leaderboard at its end,
and every other benchmark's results survive. Real Snakemake runs, reference solver only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support.workflow import run_snakemake

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "pipeline"
CONFIG = {
    "benchmarks": {
        "good": {"kind": "extremal", "problems": "good", "shards": 1, "trials": 1},
        "mine": {"kind": "extremal", "problems": "mine", "shards": 1, "trials": 1},
    },
    "models": {"reference-solver": {"backend": "reference-solver", "reference": {"starts": 4}}},
    "evaluate": {"models": ["reference-solver"], "benchmarks": ["good"]},
    "validation": {"starts": 6},
    "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    "cache_dir": "cache",
}
# the user's problem: the minimum of a^2 + b^2 on a + b = 2 is 2, typed as 3
TYPO = (FIXTURES / "tiny-sum-of-squares.yaml").read_text().replace("tiny-sum-of-squares", "mine-1")
TYPO = TYPO.replace('answer: "2"', 'answer: "3"')
FIGURES = ("accuracy_by_model", "benchmark_scatter", "accuracy_vs_tokens", "pass_at_k", "problem_heatmap", "misses")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("empty-benchmark")
    (root / "good").mkdir()
    for name in ("tiny-parabola.yaml", "tiny-x-plus-inverse.yaml"):
        shutil.copy(FIXTURES / name, root / "good" / name)
    (root / "mine").mkdir()
    (root / "mine" / "mine-1.yaml").write_text(TYPO)
    (root / "config.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    first = run_snakemake(root)
    assert first.returncode == 0, first.stderr[-5000:]
    return root


def end_lines(stderr: str) -> list[str]:
    return [line.removeprefix("extrembench: ") for line in stderr.splitlines() if line.startswith("extrembench: ")]


def test_a_benchmark_whose_only_problem_is_refuted_ends_with_rc_0_and_a_line_naming_it(workdir):
    figures = {name: workdir / "results" / "figures" / f"{name}.png" for name in FIGURES}
    assert all(path.exists() for path in figures.values())
    good_problems = workdir / "results" / "good" / "problems" / "shard-0.parquet"
    before = good_problems.read_bytes()

    both = workdir / "both.yaml"  # the user's benchmark beside the earlier one, in the same results
    both.write_text("evaluate: {models: [reference-solver], benchmarks: [good, mine]}\n")
    run = run_snakemake(workdir, configfile=both)

    assert run.returncode == 0, run.stderr[-5000:]
    assert "Traceback" not in run.stderr
    lines = end_lines(run.stderr)
    assert any(line.startswith("problem mine-1 is refuted (not asked): ") for line in lines), lines
    assert any(line.startswith("benchmark mine: no confirmed problem (mine-1 refuted)") for line in lines), lines
    # the other benchmark's results survive: its problems untouched, its leaderboard row and figures there
    assert good_problems.read_bytes() == before
    board = pd.read_csv(workdir / "results" / "leaderboard.csv")
    assert board[["benchmark", "model", "n_problems"]].values.tolist() == [["good", "reference-solver", 2]]
    assert all(path.exists() and path.stat().st_size > 0 for path in figures.values())
    # the end of the run: the leaderboard row and where to read on
    row = next(line for line in lines if line.lstrip().startswith("good "))
    assert row.split()[:3] == ["good", "reference-solver", "100.0"] and "2 problems × 1 trial" in row
    assert (
        lines[-1].startswith("results: results/leaderboard.md")
        and "snakemake --report results/report.html" in lines[-1]
    )


def test_an_experiment_of_only_the_refuted_benchmark_ends_with_rc_0_and_leaves_the_other_results(workdir):
    kept = {path: path.read_bytes() for path in (workdir / "results").glob("leaderboard.*")}
    kept.update({path: path.read_bytes() for path in (workdir / "results" / "figures").glob("*.png")})
    experiment = workdir / "mine-only.yaml"
    experiment.write_text(
        "results_dir: results/mine-only\nevaluate: {models: [reference-solver], benchmarks: [mine]}\n"
    )

    run = run_snakemake(workdir, configfile=experiment)

    assert run.returncode == 0, run.stderr[-5000:]
    assert "Traceback" not in run.stderr
    lines = end_lines(run.stderr)
    assert any(line.startswith("benchmark mine: no confirmed problem (mine-1 refuted)") for line in lines), lines
    assert "  no row: no benchmark had a confirmed problem to ask" in lines
    out = workdir / "results" / "mine-only"
    assert pd.read_csv(out / "leaderboard.csv").empty
    assert pd.read_csv(out / "tables" / "misses.csv").empty
    assert all((out / "figures" / f"{name}.png").stat().st_size > 0 for name in FIGURES)
    assert {path: path.read_bytes() for path in kept} == kept
