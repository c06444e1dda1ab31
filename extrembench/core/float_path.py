"""The environment that pins the validator's float path, set before numpy loads.

OpenBLAS reads OPENBLAS_CORETYPE and numpy reads NPY_DISABLE_CPU_FEATURES once, when each loads, so
they are set here, by `import extrembench` (extrembench/__init__.py), which the console script,
scripts/*.py, the Snakemake jobs and the tests all do before numpy. Why this path:
extrembench/verify/blas.py, which also checks that the process really runs it.
"""

from __future__ import annotations

import os
import platform
import sys

PINNED_CORETYPE = "Haswell"
# numpy 2.4's dispatch targets above x86-64-v3 (numpy._core._multiarray_umath.__cpu_dispatch__);
# numpy warns about, and ignores, a name its build does not dispatch to
NUMPY_DISABLED = "X86_V4 AVX512_ICL AVX512_SPR"
X86_64 = ("x86_64", "amd64")


class FloatPathError(RuntimeError):
    """The process loaded numpy or OpenBLAS on another float path than the validator's."""


def coretype() -> str:
    return os.environ.get("EXTREMBENCH_BLAS_CORETYPE", PINNED_CORETYPE)


def pin_float_path() -> None:
    """Set the environment the libraries read when they load; a no-op off x86-64 and once numpy is
    loaded (check_float_path reports that case)."""
    if platform.machine().lower() not in X86_64 or "numpy" in sys.modules:
        return
    os.environ["OPENBLAS_CORETYPE"] = coretype()
    os.environ["NPY_DISABLE_CPU_FEATURES"] = NUMPY_DISABLED
