"""One float path for the validator on every x86-64 CPU (issue 35, extrembench/verify/blas.py):
OpenBLAS's Haswell kernels and numpy's loops below AVX-512, set before numpy loads, checked loudly."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
x86_only = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86-64 kernels")

PROBE = """
import json, sys
{first}
import numpy, scipy.linalg, threadpoolctl
from extrembench.verify.blas import float_path_problems
print(json.dumps({{"kernels": sorted({{l["architecture"] for l in threadpoolctl.threadpool_info() if l["internal_api"] == "openblas"}}),
                  "problems": float_path_problems()}}))
"""


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env={**environment, **env}, timeout=120
    )


@x86_only
@pytest.mark.parametrize("incoming", ["", "SkylakeX", "Zen", "Sandybridge"])
def test_importing_extrembench_first_pins_the_kernels_whatever_the_environment_asked(incoming):
    result = _python(PROBE.format(first="import extrembench"), **({"OPENBLAS_CORETYPE": incoming} if incoming else {}))
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == {"kernels": ["Haswell"], "problems": []}


@x86_only
def test_a_check_in_a_process_that_loaded_numpy_first_fails_loudly():
    code = (
        "import numpy\n"
        "from extrembench.verify.validate import check_problem\n"
        "check_problem('data/problems/ineq-0007.yaml')\n"
    )
    # numpy loads on the kernel the environment asks for: on a CPU whose own choice is the pinned
    # one (an AVX2 machine without AVX-512), numpy first alone would change nothing to report
    result = _python(code, OPENBLAS_CORETYPE="Sandybridge")
    assert result.returncode != 0
    assert "FloatPathError" in result.stderr and "Import extrembench before numpy" in result.stderr
    assert "Sandybridge kernels, not Haswell" in result.stderr


@x86_only
def test_the_environment_set_before_python_starts_is_enough():
    from extrembench.core.float_path import NUMPY_DISABLED, PINNED_CORETYPE

    result = _python(
        PROBE.format(first="import numpy"), OPENBLAS_CORETYPE=PINNED_CORETYPE, NPY_DISABLE_CPU_FEATURES=NUMPY_DISABLED
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == {"kernels": [PINNED_CORETYPE], "problems": []}


def _check_whole_set(coretype: str) -> dict[str, tuple]:
    """`extrembench check` on every shipped file in a process whose environment asked for
    `coretype`: (status, certificate kind, sha256 of the certificate's bytes) per problem."""
    import hashlib

    from extrembench.verify.provers.certify import certificate_json

    files = sorted(str(p.relative_to(REPO)) for p in (REPO / "data" / "problems").glob("*.yaml"))
    halves = [files[::2], files[1::2]]  # two processes, one per core
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "extrembench.cli", "check", "--json", *half],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env={**os.environ, "OPENBLAS_CORETYPE": coretype},
        )
        for half in halves
    ]
    rows = []
    for run in runs:
        out, err = run.communicate(timeout=1800)
        rows += [json.loads(line) for line in out.splitlines()]
        assert run.returncode in (0, 1), err[-2000:]
    assert len(rows) == len(files)
    return {
        row["id"]: (
            row["status"],
            (row["certificate"] or {}).get("kind"),
            hashlib.sha256(certificate_json(row["certificate"]).encode()).hexdigest() if row["certificate"] else None,
        )
        for row in rows
    }


@x86_only
@pytest.mark.slow  # the whole shipped set checked once: ~5 min on 2 cores
@pytest.mark.timeout(2400)
def test_a_cpu_that_asks_for_other_kernels_gives_the_recorded_verdicts_and_bytes_for_every_file():
    """What a cluster node of another CPU would run: its OpenBLAS would pick SkylakeX kernels (this
    machine too, left alone); `extrembench check` there gives, for every shipped file, the status,
    certificate kind and certificate bytes the whole-set record holds (measured through the
    pipeline's stage functions in the environment as it was: tests/test_readme_figures.py holds the
    record to this checkout, tests/test_shipped_certificates.py measures it again)."""
    sys.path.append(str(REPO / "benchmarks"))
    import figures

    record = figures.load_record()["whole-set"]
    expected = {
        pid: (status, kind, record["certificate_sha256"][pid]) for pid, (status, kind) in record["verdicts"].items()
    }
    found = _check_whole_set("SkylakeX")
    assert {pid: (expected[pid], found.get(pid)) for pid in expected if found.get(pid) != expected[pid]} == {}
