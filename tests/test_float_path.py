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
