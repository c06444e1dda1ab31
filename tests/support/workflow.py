"""The one way the tests run the Snakemake workflow: a subprocess on the Snakefile of the repository
(or of a copy of it, `code`), in a work directory of the test's own, output captured."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
PYTHON_SNAKEMAKE = (sys.executable, "-m", "snakemake")


def snakemake_command(
    workdir: Path,
    *args: str,
    code: Path = REPO,
    profile: str | None = "local",
    configfile: Path | None = None,
    command: Sequence[str] = PYTHON_SNAKEMAKE,
) -> list[str]:
    """`snakemake --snakefile <code>/Snakefile --directory <workdir> [--profile <code>/profiles/<profile>]
    [--configfile <configfile>] <args>`, for a test that must start it in the background."""
    argv = list(command)
    if configfile is not None:
        # first: --configfile takes every word up to the next option, so a target after it would be
        # read as a second config file
        argv += ["--configfile", str(configfile)]
    argv += ["--snakefile", str(code / "Snakefile"), "--directory", str(workdir)]
    if profile is not None:
        argv += ["--profile", str(code / "profiles" / profile)]
    return argv + list(args)


def run_snakemake(
    workdir: Path,
    *args: str,
    code: Path = REPO,
    profile: str | None = "local",
    configfile: Path | None = None,
    command: Sequence[str] = PYTHON_SNAKEMAKE,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 900,
    check: bool = False,
) -> subprocess.CompletedProcess:
    """Snakemake run to its end (`snakemake_command`), output captured as text. A copy of the
    workflow (`code` other than the repository) runs with its own package first on PYTHONPATH;
    `env` None otherwise inherits this process's environment. `check`: fail the test, with the
    tail of stderr, unless Snakemake exits 0."""
    argv = snakemake_command(workdir, *args, code=code, profile=profile, configfile=configfile, command=command)
    if Path(code).resolve() != REPO:
        env = {**(os.environ if env is None else env), "PYTHONPATH": str(code)}
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)
    if check:
        assert result.returncode == 0, result.stderr[-5000:]
    return result


def api_workdir(workdir: Path, base_url: str, cache_dir: str, **model: object) -> Path:
    """`workdir` set up to run the formalized fixture statements (1 shard, 2 trials) on one
    OpenAI-compatible model `api` at `base_url`, its key read from EXTREMBENCH_PIPELINE_KEY; `model`
    adds or overrides that model's settings."""
    shutil.copy(REPO / "tests" / "fixtures" / "pipeline-formalized" / "statements.jsonl", workdir)
    config = {
        "benchmarks": {"b": {"kind": "formalized", "statements": "statements.jsonl", "shards": 1, "trials": 2}},
        "models": {
            "api": {
                "backend": "openai",
                "hf_id": "vendor/model",
                "concurrency": 1,
                "max_retries": 0,
                **model,
                "openai": {"base_url": base_url, "api_key_env": "EXTREMBENCH_PIPELINE_KEY"},
            }
        },
        "evaluate": {"models": ["api"], "benchmarks": ["b"]},
        "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
        "cache_dir": cache_dir,
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return workdir
