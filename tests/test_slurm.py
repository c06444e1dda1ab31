"""SLURM: what every job asked the cluster for, checked against the config's size classes.

Always run: the requests built from size classes (extrembench.cluster.resources), the SLURM profile's
shape, a dry run through profiles/slurm on a PATH without any SLURM command, and the submission
check itself on constructed sacct records (it must reject a wrong GPU count).

Marked `slurm`: a real tiny pipeline on the local single-node cluster that .ci/run starts
(.ci/slurm/local-slurm.sh, fake b200 GPUs), through `--profile profiles/slurm` plus the CI overlay,
checked from `sacct`; then one problem is edited and one GPU shard's outputs deleted (its requests
are all cached), and the rerun must submit exactly the expected jobs, the cached shard on the CPU
partition with no GPU. The workflow and package run from a snapshot taken at the start, so edits
to the checkout during the minutes on the cluster cannot change what the rerun sees.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from support.workflow import run_snakemake, snakemake_command

from extrembench.cluster.resources import ResourceError, job_request, scaled
from extrembench.core.config import Cluster, Resources
from extrembench.core.shards import shard_of

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
SLURM_PROFILE = REPO / "profiles" / "slurm"
CI_OVERLAY = REPO / ".ci" / "profile-overlay"
SACCT_FIELDS = "JobID,Partition,NodeList,ReqTRES,SubmitLine"

# ---------------------------------------------------------------- the submission check


@dataclass(frozen=True)
class Submission:
    """One sbatch as SLURM recorded it: the flags submitted and what accounting holds."""

    job_id: str
    rule: str
    wildcards: dict[str, str]
    partition: str  # sacct Partition
    node: str  # sacct NodeList
    recorded_gpus: int  # sacct ReqTRES gres/gpu
    recorded_gpu_types: dict[str, int]  # sacct ReqTRES gres/gpu:<type>
    flags: dict[str, str] = field(default_factory=dict)  # from SubmitLine: -p, --gpus, --cpus-per-gpu, ...

    @property
    def target(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.rule, tuple(sorted(self.wildcards.items()))


def _submit_flags(tokens: list[str]) -> dict[str, str]:
    flags: dict[str, str] = {}
    for i, token in enumerate(tokens):
        if token in ("-p", "--mem", "-t", "--target-jobs") and i + 1 < len(tokens):
            flags[token] = tokens[i + 1]
        elif token.startswith(
            ("--gpus=", "--cpus-per-gpu=", "--cpus-per-task=", "--array=", "--slurm-jobstep-array-execs=")
        ):
            name, value = token.split("=", 1)
            flags[name] = value
    return flags


def array_task_target(flags: dict[str, str], task: int) -> str:
    """The --target-jobs of one task of an array submission (--slurm-array-jobs): the first task runs
    the submitted command; task k runs the k-th command of the plugin's payload (base64 JSON of
    task -> zlib-compressed hex of the job's command line)."""
    import base64
    import json
    import zlib

    if task == int(flags["--array"].split("-")[0]):
        return flags["--target-jobs"]
    payload = json.loads(base64.b64decode(flags["--slurm-jobstep-array-execs"]))
    command = zlib.decompress(bytes.fromhex(payload[str(task)])).decode()
    return _submit_flags(shlex.split(command))["--target-jobs"]


def parse_sacct(text: str) -> list[Submission]:
    """Rows of `sacct -X -P -n -o JobID,Partition,NodeList,ReqTRES,SubmitLine` for Snakemake jobs."""
    submissions = []
    for line in text.splitlines():
        if not line.strip():
            continue
        job_id, partition, node, req_tres, submit_line = line.split("|", 4)
        flags = _submit_flags(shlex.split(submit_line))
        if "--target-jobs" not in flags:
            continue  # not a Snakemake job
        target = flags["--target-jobs"]
        if "--array" in flags:  # one row per array task, id <array job>_<task>
            array_job, _, task = job_id.partition("_")
            if not task.isdigit():
                continue  # a pending range such as 123_[2-4]: its tasks appear once they start
            target = array_task_target(flags, int(task))
            flags = {**flags, "--target-jobs": target}
        rule, _, spec = target.partition(":")
        wildcards = dict(item.split("=", 1) for item in spec.split(",") if item)
        tres = dict(item.split("=", 1) for item in req_tres.split(",") if "=" in item)
        submissions.append(
            Submission(
                job_id=job_id,
                rule=rule,
                wildcards=wildcards,
                partition=partition,
                node=node,
                recorded_gpus=int(tres.get("gres/gpu", 0)),
                recorded_gpu_types={k.split(":", 1)[1]: int(v) for k, v in tres.items() if k.startswith("gres/gpu:")},
                flags=flags,
            )
        )
    return submissions


def expected_request(submission: Submission, config: dict, cache_hit: frozenset) -> tuple[str, dict]:
    """(size class, request) the config promises: generate from its model's class unless the shard was
    fully cached, everything else from `cpu`."""
    size_class = "cpu"
    if submission.rule == "generate":
        key = (submission.wildcards["benchmark"], submission.wildcards["model"], submission.wildcards["shard"])
        if key not in cache_hit:
            size_class = config["models"][submission.wildcards["model"]]["size_class"]
    size = config["resources"][size_class]
    gpus = size.get("gpu", 0)
    partition = size.get("partition") or config["cluster"]["gpu_partition" if gpus else "cpu_partition"]
    return size_class, {
        "partition": partition,
        "gpus": gpus,
        "gpu_model": size.get("gpu_model") if gpus else None,
        "cpus_per_gpu": size.get("cpus_per_gpu") if gpus else None,
        "mem_mb": size["mem_mb"],
    }


def submission_errors(submissions: list[Submission], config: dict, cache_hit: frozenset = frozenset()) -> list[str]:
    """Every way a first-attempt submission differs from its size class (empty list: all as configured).

    `cache_hit`: (benchmark, model, shard) of generate jobs whose requests were all cached.
    """
    errors = []
    for sub in submissions:
        size_class, want = expected_request(sub, config, cache_hit)
        gpu_flag = sub.flags.get("--gpus")
        asked_type, _, asked_count = (gpu_flag or "").rpartition(":")
        got = {
            "partition (sbatch -p)": sub.flags.get("-p"),
            "partition (sacct)": sub.partition,
            "gpus (sbatch --gpus)": int(asked_count) if gpu_flag else 0,
            "gpus (sacct ReqTRES)": sub.recorded_gpus,
            "gpu_model (sbatch --gpus)": asked_type or None,
            "gpu_model (sacct ReqTRES)": next(iter(sub.recorded_gpu_types), None),
            "cpus_per_gpu": int(sub.flags["--cpus-per-gpu"]) if "--cpus-per-gpu" in sub.flags else None,
            "mem_mb": int(sub.flags["--mem"]) if "--mem" in sub.flags else None,
        }
        expected = {
            "partition (sbatch -p)": want["partition"],
            "partition (sacct)": want["partition"],
            "gpus (sbatch --gpus)": want["gpus"],
            "gpus (sacct ReqTRES)": want["gpus"],
            "gpu_model (sbatch --gpus)": want["gpu_model"],
            "gpu_model (sacct ReqTRES)": want["gpu_model"],
            "cpus_per_gpu": want["cpus_per_gpu"],
            "mem_mb": want["mem_mb"] + array_memory_fudge(sub.flags),
        }
        where = f"SLURM job {sub.job_id} {sub.rule}{sub.wildcards}"
        for name, value in expected.items():
            if got[name] != value:
                errors.append(f"{where}: {name} is {got[name]!r}, size class {size_class!r} says {value!r}")
        if want["gpus"] and "--cpus-per-task" in sub.flags:
            errors.append(f"{where}: GPU job submitted with --cpus-per-task (overrides cpus_per_gpu)")
    return errors


def array_memory_fudge(flags: dict[str, str]) -> int:
    """MB the plugin adds to an array submission's --mem for its jobstep to hold the task payload."""
    if "--slurm-jobstep-array-execs" not in flags:
        return 0
    from snakemake_executor_plugin_slurm.submit_string import _compute_array_exec_fudge_mb

    return _compute_array_exec_fudge_mb(flags["--slurm-jobstep-array-execs"])


# ---------------------------------------------------------------- constructed records

CHECK_CONFIG = {
    "models": {"big": {"size_class": "b200x2"}, "small": {"size_class": "cpu"}},
    "resources": {
        "cpu": {"gpu": 0, "mem_mb": 1000, "runtime": 10},
        "b200x2": {"gpu": 2, "gpu_model": "b200", "cpus_per_gpu": 4, "mem_mb": 4000, "runtime": 20},
    },
    "cluster": {"gpu_partition": "b200", "cpu_partition": "cpu"},
}


def _sacct_line(job_id, target, sbatch_flags, partition, req_tres):
    wrap = f"--wrap=/venv/bin/python3 -m snakemake --target-jobs '{target}' --allowed-rules x --cores 'all'"
    submit = f"sbatch --parsable --job-name extrembench_run --comment c {sbatch_flags} -D /w {wrap}"
    return f"{job_id}|{partition}|vm|{req_tres}|{submit}"


GPU_OK = _sacct_line(
    10,
    "generate:benchmark=b,model=big,shard=0",
    "-p b200 -t 20 --mem 4000 --cpus-per-gpu=4 --gpus=b200:2",
    "b200",
    "billing=1,cpu=1,gres/gpu:b200=2,gres/gpu=2,mem=4000M,node=1",
)
CPU_OK = _sacct_line(
    11,
    "grade:benchmark=b,model=big,shard=0",
    "-p cpu -t 10 --mem 1000 --ntasks=1 --cpus-per-task=1",
    "cpu",
    "billing=1,cpu=1,mem=1000M,node=1",
)
CACHED_OK = _sacct_line(
    12,
    "generate:benchmark=b,model=big,shard=1",
    "-p cpu -t 10 --mem 1000 --ntasks=1 --cpus-per-task=1",
    "cpu",
    "billing=1,cpu=1,mem=1000M,node=1",
)
CACHE_HIT = frozenset({("b", "big", "1")})


def test_parse_sacct_reads_rule_wildcards_flags_and_recorded_gpus():
    (sub,) = parse_sacct(GPU_OK)
    assert (sub.job_id, sub.rule, sub.wildcards) == ("10", "generate", {"benchmark": "b", "model": "big", "shard": "0"})
    assert (sub.partition, sub.node, sub.recorded_gpus, sub.recorded_gpu_types) == ("b200", "vm", 2, {"b200": 2})
    assert sub.flags == {
        "-p": "b200",
        "-t": "20",
        "--mem": "4000",
        "--cpus-per-gpu": "4",
        "--gpus": "b200:2",
        "--target-jobs": "generate:benchmark=b,model=big,shard=0",
    }


def _array_lines() -> list[str]:
    """An array of two grade jobs as snakemake-executor-plugin-slurm 2.8.0 submits it: task 1 runs the
    submitted command, task 2 its entry in the payload; --mem raised by the plugin's fudge."""
    import base64
    import json
    import zlib

    second = "/venv/bin/python3 -m snakemake --target-jobs 'grade:benchmark=b,model=small,shard=1' --cores 'all'"
    payload = base64.b64encode(json.dumps({"2": zlib.compress(second.encode(), 9).hex()}).encode()).decode()
    mem = 1000 + array_memory_fudge({"--slurm-jobstep-array-execs": payload})
    wrap = (
        f"--wrap=/venv/bin/python3 -m snakemake --target-jobs 'grade:benchmark=b,model=big,shard=0' "
        f"--cores 'all' --slurm-jobstep-array-execs={payload}"
    )
    submit = (
        f"sbatch --parsable --job-name r --comment c -p cpu -t 10 --mem {mem} --ntasks=1 --cpus-per-task=1 "
        f"-D /w --array=1-2 {wrap}"
    )
    return [f"20_{task}|cpu|vm|billing=1,cpu=1,mem={mem}M,node=1|{submit}" for task in (1, 2)]


def test_parse_sacct_gives_each_array_task_its_own_target():
    first, second = parse_sacct("\n".join(_array_lines()))
    assert (first.job_id, first.rule, first.wildcards) == (
        "20_1",
        "grade",
        {"benchmark": "b", "model": "big", "shard": "0"},
    )
    assert (second.job_id, second.wildcards) == ("20_2", {"benchmark": "b", "model": "small", "shard": "1"})
    assert submission_errors([first, second], CHECK_CONFIG) == []


def test_parse_sacct_skips_jobs_not_submitted_by_snakemake():
    assert parse_sacct("3|cpu|vm|billing=1,cpu=1|sbatch -p cpu --wrap=true\n") == []


def test_submission_check_accepts_requests_as_configured():
    assert submission_errors(parse_sacct("\n".join([GPU_OK, CPU_OK, CACHED_OK])), CHECK_CONFIG, CACHE_HIT) == []


@pytest.mark.parametrize(
    "line, cache_hit, complaint",
    [
        # the acceptance case: a GPU rule submitted with the wrong GPU count
        (
            GPU_OK.replace("--gpus=b200:2", "--gpus=b200:1").replace(
                "gres/gpu:b200=2,gres/gpu=2", "gres/gpu:b200=1,gres/gpu=1"
            ),
            frozenset(),
            "gpus (sbatch --gpus) is 1, size class 'b200x2' says 2",
        ),
        (
            GPU_OK.replace("gres/gpu:b200=2,gres/gpu=2", "gres/gpu:b200=4,gres/gpu=4"),
            frozenset(),
            "gpus (sacct ReqTRES) is 4",
        ),
        (GPU_OK.replace("--gpus=b200:2", "--gpus=h100:2"), frozenset(), "gpu_model (sbatch --gpus) is 'h100'"),
        (
            GPU_OK.replace("-p b200", "-p cpu"),
            frozenset(),
            "partition (sbatch -p) is 'cpu', size class 'b200x2' says 'b200'",
        ),
        (GPU_OK.replace("--cpus-per-gpu=4", "--cpus-per-task=4"), frozenset(), "cpus_per_gpu is None"),
        (GPU_OK.replace("--cpus-per-gpu=4", "--cpus-per-gpu=4 --cpus-per-task=8"), frozenset(), "with --cpus-per-task"),
        (GPU_OK.replace("--mem 4000", "--mem 1000"), frozenset(), "mem_mb is 1000"),
        (
            CPU_OK.replace("-p cpu", "-p b200 --gpus=b200:1"),
            frozenset(),
            "gpus (sbatch --gpus) is 1, size class 'cpu' says 0",
        ),
        (GPU_OK.replace("shard=0", "shard=1"), CACHE_HIT, "gpus (sbatch --gpus) is 2, size class 'cpu' says 0"),
        (CACHED_OK, frozenset(), "gpus (sbatch --gpus) is 0, size class 'b200x2' says 2"),
    ],
)
def test_submission_check_names_each_wrong_request(line, cache_hit, complaint):
    errors = submission_errors(parse_sacct(line), CHECK_CONFIG, cache_hit)
    assert any(complaint in e for e in errors), errors
    assert all(e.startswith("SLURM job ") for e in errors)


# ---------------------------------------------------------------- requests from size classes

B200X2 = {
    "gpu": 2,
    "gpu_model": "b200",
    "cpus_per_gpu": 16,
    "cpus_per_task": None,
    "mem_mb": 200000,
    "runtime": 600,
    "partition": None,
}
CPU = {
    "gpu": 0,
    "gpu_model": None,
    "cpus_per_gpu": None,
    "cpus_per_task": 2,
    "mem_mb": 2000,
    "runtime": 60,
    "partition": None,
}
CLUSTER = {"gpu_partition": "gpu", "cpu_partition": "short"}


@pytest.mark.parametrize("value, attempt, grown", [(60, 1, 60), (60, 2, 120), (60, 3, 240), (2000, 4, 16000)])
def test_memory_and_runtime_double_with_each_attempt(value, attempt, grown):
    assert scaled(value, attempt) == grown


@pytest.mark.parametrize(
    "name, size, cluster, attempt, asked",
    [
        (
            "b200x2",
            B200X2,
            CLUSTER,
            1,
            {
                "gpu": 2,
                "gpu_model": "b200",
                "cpus_per_gpu": 16,
                "mem_mb": 200000,
                "runtime": 600,
                "slurm_partition": "gpu",
            },
        ),
        (
            "b200x2",
            B200X2,
            CLUSTER,
            2,
            {
                "gpu": 2,
                "gpu_model": "b200",
                "cpus_per_gpu": 16,
                "mem_mb": 400000,
                "runtime": 1200,
                "slurm_partition": "gpu",
            },
        ),
        (
            "b200x2",
            {**B200X2, "partition": "b200-long"},
            CLUSTER,
            1,
            {
                "gpu": 2,
                "gpu_model": "b200",
                "cpus_per_gpu": 16,
                "mem_mb": 200000,
                "runtime": 600,
                "slurm_partition": "b200-long",
            },
        ),
        (
            "cpu",
            CPU,
            CLUSTER,
            1,
            {"gpu": 0, "cpus_per_task": 2, "mem_mb": 2000, "runtime": 60, "slurm_partition": "short"},
        ),
        (
            "cpu",
            CPU,
            {"gpu_partition": None, "cpu_partition": None},
            1,
            {"gpu": 0, "cpus_per_task": 2, "mem_mb": 2000, "runtime": 60, "slurm_partition": None},
        ),
    ],
)
def test_job_request_from_size_class(name, size, cluster, attempt, asked):
    assert job_request(name, Resources(**size), Cluster(**cluster), attempt) == asked


def test_gpu_class_with_cpus_per_task_is_refused_naming_the_key():
    with pytest.raises(ResourceError, match=r"resources\.b200x2\.cpus_per_task: .*cpus_per_gpu"):
        job_request("b200x2", Resources(**{**B200X2, "cpus_per_task": 8}), Cluster(**CLUSTER), 1)


# ---------------------------------------------------------------- the profile


def test_slurm_profile_sets_executor_triggers_retries_and_no_cpus_per_task():
    profile = yaml.safe_load((SLURM_PROFILE / "config.yaml").read_text())
    assert profile["executor"] == "slurm"
    assert profile["rerun-triggers"] == ["mtime", "params", "input", "software-env"]
    assert profile["retries"] >= 1 and profile["keep-going"] is True
    assert "cpus_per_task" not in (SLURM_PROFILE / "config.yaml").read_text().split("# ----", 2)[-1]
    assert not (REPO / "profiles" / "default").exists()


@pytest.mark.parametrize(
    "size_class, size, partition",
    [
        ("b200x2", CHECK_CONFIG["resources"]["b200x2"], "b200"),
        ("cpu", CHECK_CONFIG["resources"]["cpu"], "cpu"),  # also a generate shard served from the cache
        ("h100x1", {"gpu": 1, "gpu_model": "h100", "cpus_per_gpu": 4, "mem_mb": 4000, "runtime": 20}, None),
    ],
)
def test_plugin_partition_config_routes_each_size_class(size_class, size, partition):
    """profiles/slurm/partitions.yaml through the plugin's own selection, for requests built from
    size classes with no partition in the config (None: no partition fits, the plugin falls back)."""
    import logging
    from types import SimpleNamespace

    from snakemake_executor_plugin_slurm.partitions import get_best_partition, read_partition_file

    request = job_request(size_class, Resources(**size), Cluster(), 1)
    job = SimpleNamespace(resources={k: v for k, v in request.items() if v is not None}, threads=1, name="generate")
    partitions = read_partition_file(SLURM_PROFILE / "partitions.yaml")
    assert get_best_partition(partitions, job, logging.getLogger("test")) == partition


def test_profile_uses_arrays_only_for_rules_of_one_size():
    profile = yaml.safe_load((SLURM_PROFILE / "config.yaml").read_text())
    assert profile["slurm-requeue"] is True
    assert "generate" not in profile["slurm-array-jobs"].replace(" ", "").split(",")


def test_ci_overlay_only_speeds_up_status_checks():
    overlay = yaml.safe_load((CI_OVERLAY / "config.yaml").read_text())
    assert set(overlay) <= {"slurm-init-seconds-before-status-checks", "max-status-checks-per-second"}


# ---------------------------------------------------------------- tiny pipeline config

GPU_MODEL = "solver-on-b200"
# four cheap problems, kept under tests/fixtures/slurm so the shipped set can change freely
PROBLEMS = ["ineq-0001", "ineq-0002", "ineq-0003", "ineq-0004"]
N_SHARDS = 2


def tiny_config(workdir: Path) -> dict:
    problems = workdir / "problems"
    problems.mkdir(parents=True)
    for name in PROBLEMS:
        shutil.copy(REPO / "tests" / "fixtures" / "slurm" / f"{name}.yaml", problems)
    config = {
        "benchmarks": {"extrem": {"kind": "extremal", "problems": str(problems), "shards": N_SHARDS, "trials": 1}},
        "models": {
            "reference-solver": {
                "backend": "reference-solver",
                "size_class": "cpu",
                "reference": {"starts": 4, "digits": 8},
            },
            # a non-LLM backend on a GPU size class: exercises the GPU request path on the fake b200 node
            GPU_MODEL: {"backend": "reference-solver", "size_class": "b200x2", "reference": {"starts": 4, "digits": 8}},
        },
        "evaluate": {"models": ["reference-solver", GPU_MODEL], "benchmarks": ["extrem"]},
        "resources": {
            "cpu": {"gpu": 0, "mem_mb": 1000, "runtime": 10},
            "b200x2": {"gpu": 2, "gpu_model": "b200", "cpus_per_gpu": 4, "mem_mb": 4000, "runtime": 20},
        },
        "cluster": {"gpu_partition": "b200", "cpu_partition": "cpu"},
        "validation": {"starts": 6},
        "cache_dir": str(workdir / "cache"),
    }
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return config


# every run: no default profile (each run names its SLURM profiles), by the venv's `snakemake` script
SLURM_RUN = {"profile": None, "command": [str(SNAKEMAKE)]}


def snapshot_code(destination: Path) -> Path:
    """A frozen copy of the workflow and the package: the rerun must see the code of the first run
    even while the checkout is being edited (rules track code by content hash)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("Snakefile", "config.yaml"):
        shutil.copy2(REPO / name, destination / name)
    for name in ("rules", "scripts", "extrembench", "envs", "report", "data"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, destination / name, ignore=ignore)
    return destination


@pytest.mark.slow  # ~4 s
def test_dry_run_through_slurm_profile_without_slurm_shows_each_models_resources(tmp_path):
    tiny_config(tmp_path)
    bare = tmp_path / "bin"  # a PATH with no SLURM command at all; the plugin still needs `which`
    bare.mkdir()
    (bare / "which").symlink_to(shutil.which("which"))
    result = run_snakemake(
        tmp_path,
        "-n",
        "--profile",
        str(SLURM_PROFILE),
        configfile=tmp_path / "config.yaml",
        env={**os.environ, "PATH": str(bare)},
        cwd=tmp_path,
        timeout=1800,
        **SLURM_RUN,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout + result.stderr
    assert "gpu=2, gpu_model=b200, cpus_per_gpu=4" in out and "slurm_partition=b200" in out
    assert re.search(r"rule generate:(?:(?!rule ).)*gpu=0(?:(?!rule ).)*slurm_partition=cpu", out, re.S)


# ---------------------------------------------------------------- the real cluster


def _cluster_problem() -> str | None:
    """Why no cluster is reachable, or None when one is."""
    for command in ("sbatch", "sacct", "scontrol"):
        if shutil.which(command) is None:
            return f"`{command}` not on PATH"
    try:
        ping = subprocess.run(["scontrol", "ping"], capture_output=True, text=True, timeout=10)
        if ping.returncode != 0 or "UP" not in ping.stdout:
            return f"slurmctld not answering `scontrol ping`: {(ping.stdout + ping.stderr).strip()}"
        if subprocess.run(["sacct", "-n", "-X", "-S", "now"], capture_output=True, timeout=10).returncode != 0:
            return "sacct fails (no slurmdbd): the plugin would hang"
    except subprocess.TimeoutExpired as exc:
        return f"`{' '.join(exc.cmd)}` did not answer within {exc.timeout:.0f} s"
    return None


@pytest.fixture
def cluster():
    problem = _cluster_problem()
    if problem:
        message = f"no SLURM cluster reachable ({problem}); start one with `bash .ci/slurm/local-slurm.sh up`"
        if os.environ.get("EXTREMBENCH_REQUIRE_SLURM") == "1":
            pytest.fail(message)
        pytest.skip(message)


def run_on_slurm(workdir: Path, code: Path) -> tuple[subprocess.CompletedProcess, list[Submission]]:
    # PYTHONPATH puts the snapshot's package before the editable install, here and (sbatch
    # --export=ALL) inside every job
    env = {**os.environ, "PYTHONPATH": str(code)}
    result = run_snakemake(
        workdir,
        "--profile",
        str(SLURM_PROFILE),
        "--profile",
        str(CI_OVERLAY),
        code=code,
        configfile=workdir / "config.yaml",
        env=env,
        cwd=workdir,
        timeout=1800,
        **SLURM_RUN,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    run_id = re.search(r"SLURM run ID: (\S+)", log).group(1)
    sacct = subprocess.run(
        ["sacct", "-X", "-P", "-n", "-S", "now-1days", "--name", run_id, "-o", SACCT_FIELDS],
        capture_output=True,
        text=True,
        check=True,
    )
    return result, parse_sacct(sacct.stdout)


def generation_rows(workdir: Path, model: str, shard: int) -> list[dict]:
    path = workdir / "results" / "extrem" / "generate" / model / f"shard-{shard}.parquet"
    return pq.read_table(path, columns=["problem_id", "slurm_job_id", "host"]).to_pylist()


def per_shard(rule: str, shard: int, model: str | None = None):
    wildcards = {"benchmark": "extrem", "shard": str(shard), **({"model": model} if model else {})}
    return rule, tuple(sorted(wildcards.items()))


@pytest.fixture
def own_tmp_path():
    """A work dir of this test alone: pytest's basetemp rotation (other sessions on the same machine)
    must not delete it during the minutes the cluster runs."""
    with tempfile.TemporaryDirectory(prefix="extrembench-slurm-") as tmp:
        yield Path(tmp)


@pytest.mark.slurm
@pytest.mark.slow
def test_pipeline_on_local_slurm_asks_each_rule_for_its_size_class_and_reruns_only_the_edit(own_tmp_path, cluster):
    tmp_path = own_tmp_path
    config = tiny_config(tmp_path)
    code = snapshot_code(Path(tempfile.mkdtemp(prefix="code-", dir=tmp_path)))
    models = config["evaluate"]["models"]

    # 1. fresh run: every job as its size class says; every sample names the job and node behind it
    _, first = run_on_slurm(tmp_path, code)
    assert submission_errors(first, config) == []
    generate_jobs = {s.target: s for s in first if s.rule == "generate"}
    assert set(generate_jobs) == {per_shard("generate", k, m) for k in range(N_SHARDS) for m in models}
    for shard in range(N_SHARDS):
        for model in models:
            job = generate_jobs[per_shard("generate", shard, model)]
            assert {(r["slurm_job_id"], r["host"]) for r in generation_rows(tmp_path, model, shard)} == {
                (job.job_id, job.node)
            }

    # 2. edit one problem (same value, new statement: new requests) and delete the GPU model's
    #    outputs of the other shard (its requests are all cached: it must go to the CPU partition)
    edited = "ineq-0001"
    path = tmp_path / "problems" / f"{edited}.yaml"
    path.write_text(path.read_text().replace('objective: "(1 + 1/a)*(1 + 1/b)"', 'objective: "(1 + 1/b)*(1 + 1/a)"'))
    edited_shard = shard_of(edited, N_SHARDS)
    cached_shard = 1 - edited_shard
    cached_rows_before = generation_rows(tmp_path, GPU_MODEL, cached_shard)
    for stage in ("generate", "grade"):  # a lone intermediate would not be rebuilt: its grade is up to date
        (tmp_path / "results" / "extrem" / stage / GPU_MODEL / f"shard-{cached_shard}.parquet").unlink()

    rerun_result, second = run_on_slurm(tmp_path, code)
    cache_hit = frozenset({("extrem", GPU_MODEL, str(cached_shard))})
    assert submission_errors(second, config, cache_hit) == []
    unsharded = {s.target for s in first if "shard" not in s.wildcards}  # aggregate, plot, ...: read every shard
    expected = {
        *(per_shard(rule, edited_shard) for rule in ("translate", "convert", "validate")),
        # misses reads a shard's grades and problems: every model's for the edited shard, the
        # re-graded GPU shard's for the cached one
        *(per_shard(rule, edited_shard, m) for rule in ("generate", "grade", "misses") for m in models),
        *(per_shard(rule, cached_shard, GPU_MODEL) for rule in ("generate", "grade", "misses")),
        *unsharded,
    }
    ran = {s.target for s in second}
    reasons = re.findall(r"rule (\w+):\n(?:    .*\n)*?    reason: (.*)", rerun_result.stdout + rerun_result.stderr)
    assert sorted(ran) == sorted(expected), (
        f"unexpected: {sorted(ran - expected)}; missing: {sorted(expected - ran)}; Snakemake's reasons: {reasons}"
    )

    rerun = {s.target: s for s in second}
    cached_job = rerun[per_shard("generate", cached_shard, GPU_MODEL)]
    assert (cached_job.partition, cached_job.recorded_gpus) == ("cpu", 0)
    # served from cache: the samples still name the job that produced them in the first run
    assert generation_rows(tmp_path, GPU_MODEL, cached_shard) == cached_rows_before
    edited_job = rerun[per_shard("generate", edited_shard, GPU_MODEL)]
    assert (edited_job.partition, edited_job.recorded_gpus) == ("b200", 2)
    by_problem = {r["problem_id"]: r["slurm_job_id"] for r in generation_rows(tmp_path, GPU_MODEL, edited_shard)}
    assert by_problem[edited] == edited_job.job_id
    assert all(
        job == generate_jobs[per_shard("generate", edited_shard, GPU_MODEL)].job_id
        for pid, job in by_problem.items()
        if pid != edited
    )


# ---------------------------------------------------------------- preemption on the real cluster


def _running_generate_job(model: str) -> str | None:
    """SLURM id of a RUNNING generate job of `model` (the plugin's comment: rule_<rule>_wildcards_<values
    joined by _>)."""
    queue = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i|%k"], capture_output=True, text=True)
    for line in queue.stdout.splitlines():
        job_id, _, comment = line.partition("|")
        if comment.startswith("rule_generate_wildcards_") and f"_{model}_" in comment:
            return job_id.strip()
    return None


def _cache_entries(cache_dir: Path) -> list[dict]:
    import json

    return [json.loads(p.read_text()) for p in (cache_dir / "generations").rglob("*.json")]


@pytest.mark.slurm
@pytest.mark.slow
def test_requeued_generate_job_resumes_from_the_cache_with_no_duplicate_request(own_tmp_path, cluster):
    """`scontrol requeue` of a running GPU generate job mid-shard: the job flushes and exits, SLURM
    reruns it under the same id, the workflow finishes, and every request was produced exactly once."""
    import json
    import time
    from collections import Counter

    tmp_path = own_tmp_path
    config = tiny_config(tmp_path)
    config["benchmarks"]["extrem"]["trials"] = 6  # a shard of ≈ 12 solver answers of ≈ 1 s each
    config["evaluate"]["models"] = [GPU_MODEL]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    code = snapshot_code(Path(tempfile.mkdtemp(prefix="code-", dir=tmp_path)))
    cache_dir = Path(config["cache_dir"])
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = snakemake_command(
        tmp_path,
        "--profile",
        str(SLURM_PROFILE),
        "--profile",
        str(CI_OVERLAY),
        code=code,
        configfile=tmp_path / "config.yaml",
        **SLURM_RUN,
    )
    with open(tmp_path / "snakemake.log", "w") as log:
        workflow = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        requeued = None
        deadline = time.monotonic() + 900
        while requeued is None and workflow.poll() is None and time.monotonic() < deadline:
            job_id = _running_generate_job(GPU_MODEL)
            if job_id and (cache_dir / "generations").is_dir():
                produced = [e for e in _cache_entries(cache_dir) if e["produced_by"].get("slurm_job_id") == job_id]
                if produced:  # mid-shard: some answers filed, the job still running
                    subprocess.run(["scontrol", "requeue", job_id], check=True, capture_output=True, text=True)
                    requeued = job_id
            time.sleep(0.2)
        assert requeued, (
            f"no running generate job of {GPU_MODEL} was caught mid-shard:\n"
            + (tmp_path / "snakemake.log").read_text()[-3000:]
        )
        assert workflow.wait(timeout=1800) == 0, (tmp_path / "snakemake.log").read_text()[-5000:]
    finally:
        if workflow.poll() is None:
            workflow.terminate()
            workflow.wait()

    ledger = [json.loads(p.read_text()) for p in (cache_dir / "ledger").glob("*.json")]
    # the interrupted attempt and the requeued one, under the same SLURM job id
    attempts = sorted((e for e in ledger if e["slurm_job_id"] == requeued), key=lambda e: not e["interrupted"])
    assert [e["interrupted"] for e in attempts] == [True, False], attempts
    assert all(e["source"] == "sacct" and e["gpus"] == 2 for e in attempts)
    # counted from the cache: each request of the shard filed once, by the attempt the ledger names
    shard = attempts[0]["shard"]
    planned = len(pq.read_table(tmp_path / "results" / "extrem" / "generate" / GPU_MODEL / f"{shard}.parquet"))
    produced = Counter(
        e["produced_by"]["job_uid"]
        for e in _cache_entries(cache_dir)
        if e["produced_by"].get("slurm_job_id") == requeued
    )
    assert produced == {e["job_uid"]: e["produced"] for e in attempts}
    assert sum(produced.values()) == planned  # 0 duplicates: nothing re-sent, nothing missing
    assert 0 < attempts[0]["produced"] < planned
