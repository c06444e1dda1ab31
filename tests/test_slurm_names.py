"""Names under the SLURM profile (issue 42): a model named `$(touch ...)` ran that command on the
submit host, because the SLURM executor plugin puts the job command inside `--wrap="..."` on a
shell=True command line, escaping only `"`. Driven through `--profile profiles/slurm` with fake
`sbatch`, `sacct`, `squeue`, `sinfo`, `scontrol` and `sacctmgr` on PATH that only log their
arguments (sacct reports every submitted job FAILED, so the run ends): a hostile name is refused
before anything is submitted, a legal name with dots, dashes and underscores reaches sbatch intact.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from support.workflow import run_snakemake

REPO = Path(__file__).resolve().parents[1]
SLURM_PROFILE = REPO / "profiles" / "slurm"
CI_OVERLAY = REPO / ".ci" / "profile-overlay"  # status checks after 1 s instead of 40 s
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
FAKES = ("sbatch", "sacct", "squeue", "sinfo", "scontrol", "sacctmgr")

FAKE = """#!{python}
import json, os, sys
log = os.environ["FAKE_SLURM_LOG"]
name = os.path.basename(sys.argv[0])
with open(log, "a") as handle:
    handle.write(json.dumps([name, *sys.argv[1:]]) + "\\n")
if name == "sbatch":
    with open(log) as handle:
        print(sum(1 for line in handle if line.startswith('["sbatch"')) + 1000)
elif name == "sacct":
    with open(log) as handle:
        submitted = sum(1 for line in handle if line.startswith('["sbatch"'))
    for job in range(1001, 1001 + submitted):
        print(f"{{job}}|FAILED")
"""


def fake_slurm(tmp_path: Path) -> tuple[dict, Path]:
    """(environment with the fake commands first on PATH, their log)."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    for name in FAKES:
        script = bin_dir / name
        script.write_text(FAKE.format(python=sys.executable))
        script.chmod(0o755)
    log = tmp_path / "slurm-calls.jsonl"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_SLURM_LOG": str(log)}
    return env, log


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def write_config(workdir: Path, *, benchmark: str, model: str) -> Path:
    problems = workdir / "problems"
    problems.mkdir()
    shutil.copy(REPO / "tests" / "fixtures" / "slurm" / "ineq-0001.yaml", problems)
    config = {
        "benchmarks": {benchmark: {"kind": "extremal", "problems": str(problems), "shards": 1}},
        "models": {model: {"backend": "reference-solver", "reference": {"starts": 2}}},
        "evaluate": {"models": [model], "benchmarks": [benchmark]},
        "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
        "cluster": {"cpu_partition": "cpu"},
        "validation": {"starts": 2},
        "cache_dir": str(workdir / "cache"),
    }
    path = workdir / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def run_slurm(workdir: Path, configfile: Path, env: dict, *targets: str):
    return run_snakemake(
        workdir,
        "--profile",
        str(SLURM_PROFILE),
        "--profile",
        str(CI_OVERLAY),
        "--retries",
        "0",
        *targets,
        profile=None,
        command=[str(SNAKEMAKE)],
        configfile=configfile,
        env=env,
        cwd=workdir,
        timeout=600,
    )


@pytest.mark.slow  # ~3 s: one Snakemake start that stops while parsing the config
@pytest.mark.parametrize("where", ["models", "benchmarks"])
@pytest.mark.parametrize("hostile", ["$(touch {marker})", "`touch {marker}`", "../../escaped"])
def test_hostile_name_under_the_slurm_profile_runs_nothing(tmp_path, where, hostile):
    marker = tmp_path / "pwned"
    name = hostile.format(marker=marker)
    env, log = fake_slurm(tmp_path)
    names = {"model": "reference-solver", "benchmark": "extrem"}
    names["model" if where == "models" else "benchmark"] = name
    configfile = write_config(tmp_path, **names)
    result = run_slurm(tmp_path, configfile, env)
    assert result.returncode != 0
    assert f"{where}: " in result.stderr and "is not allowed as a name" in result.stderr, result.stderr[-2000:]
    assert [c for c in calls(log) if c[0] == "sbatch"] == [], "a job was submitted"
    assert not marker.exists(), "the name was run as a command"
    assert not (tmp_path.parent / "escaped").exists() and not (tmp_path / "results").exists()


@pytest.mark.slow  # ~40 s: the problems table built locally, then one generate job submitted to the fakes
def test_legal_names_reach_sbatch_intact(tmp_path):
    benchmark, model = "ex.t_1-a", "m.v1_x-2"
    configfile = write_config(tmp_path, benchmark=benchmark, model=model)
    table = f"results/{benchmark}/problems/shard-0.parquet"
    built = run_snakemake(tmp_path, table, configfile=configfile, cwd=tmp_path, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    env, log = fake_slurm(tmp_path)
    result = run_slurm(tmp_path, configfile, env, f"results/{benchmark}/generate/{model}/shard-0.parquet")
    assert result.returncode != 0  # the fake sacct says FAILED: nothing ran
    submitted = [c for c in calls(log) if c[0] == "sbatch"]
    assert len(submitted) == 1, calls(log)
    wrap = next(arg for arg in submitted[0] if arg.startswith("--wrap="))
    words = shlex.split(wrap.removeprefix("--wrap="))
    target = words[words.index("--target-jobs") + 1]
    assert target == f"generate:benchmark={benchmark},model={model},shard=0"
