"""One BLAS thread and one x86-64 float path for every numeric step a verdict or certificate rests on.

Threads: a multithreaded BLAS splits its sums by thread, so their rounding depends on the thread
count: with two threads the 'sos, ordered' SDP of ineq-0159 rounded to no exact certificate, with one
it did, and a direct `extrembench check` on a 2-core machine shipped another certificate than the
Snakemake job (one thread per job). threadpoolctl sets the limit on the BLAS libraries numpy and
scipy loaded, for the duration of the call.

Kernels (issue 35): one thread does not pin the code that runs. OpenBLAS picks its kernels by CPU
(SkylakeX on an AVX-512 Intel host, Zen or SkylakeX here, Haswell elsewhere) and numpy dispatches its
float64 exp, log, power and trigonometric loops to AVX-512 code where the CPU has it; their last bits
differ, the searches follow other paths, and one Intel host gave ineq-0541 inconclusive and 0157 and
0455 other certificates. Every certificate is checked exactly, so no proof is wrong, but a benchmark's
content would differ by cluster node. So the validator runs one float path on every x86-64 CPU with
AVX2 and FMA (x86-64-v3: every server CPU since 2013-2015): OpenBLAS forced to its Haswell kernels,
numpy's dispatch capped below AVX-512, and glibc then takes its FMA code paths on all of them. Both
settings are read once, when the libraries load, so `pin_float_path` runs when the extrembench
package is imported (before numpy, in the console script, scripts/*.py and the tests), and
`check_float_path` (once per process, on the first check) fails loudly when numpy or OpenBLAS had
already been loaded another way: a verdict from another path is not the benchmark's verdict. Kept
for that measure rather than an AVX-512 path because every CPU that runs AVX-512 also runs this one,
and the other way round does not hold. EXTREMBENCH_BLAS_CORETYPE names another OpenBLAS kernel, for
the experiments that show the dependence (tests/test_float_path.py); the check then expects that one.
"""

from __future__ import annotations

import functools
import platform
from importlib.metadata import PackageNotFoundError, version

import numpy  # noqa: F401  (the libraries whose float path is checked: numpy's and scipy's OpenBLAS)
import scipy.linalg  # noqa: F401
from threadpoolctl import threadpool_info, threadpool_limits

try:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__  # numpy >= 2
except ImportError:
    from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__  # numpy < 2 kept them here

from extrembench.core.float_path import NUMPY_DISABLED, X86_64, FloatPathError, coretype

_one_thread = threadpool_limits.wrap(limits=1, user_api="blas")


def one_blas_thread(func):
    """A decorator: the float path checked (check_float_path), then one BLAS thread while the
    wrapped call runs (restored after it)."""
    limited = _one_thread(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        check_float_path()
        return limited(*args, **kwargs)

    return wrapper


_checked: str | None = None


def float_path_problems() -> list[str]:
    """What differs from the pinned float path in this process (empty when it is the pinned one)."""
    if platform.machine().lower() not in X86_64:
        return []
    dispatched, features = __cpu_dispatch__, __cpu_features__
    problems = []
    for feature in ("AVX2", "FMA3"):
        if not features.get(feature):
            problems.append(f"this CPU lacks {feature}, which the pinned float path (x86-64-v3) needs")
    if any(features.get(f) for f in dispatched if "512" in f or f == "X86_V4"):
        problems.append("numpy was loaded with its AVX-512 loops enabled (it was imported before extrembench)")
    for library in threadpool_info():
        if library.get("internal_api") != "openblas":
            continue
        arch = str(library.get("architecture") or "")
        if arch.lower() != coretype().lower():
            problems.append(f"{library.get('filepath')} runs {arch or 'unknown'} kernels, not {coretype()}")
    return problems


def check_float_path() -> None:
    """Raise FloatPathError naming what differs, with the fix; checked once per process."""
    global _checked
    if _checked == coretype():
        return
    problems = float_path_problems()
    if problems:
        raise FloatPathError(
            "the validator's verdicts are reproducible only on one float path (extrembench/verify/blas.py): "
            + "; ".join(problems)
            + f". Import extrembench before numpy, or set OPENBLAS_CORETYPE={coretype()} and "
            f'NPY_DISABLE_CPU_FEATURES="{NUMPY_DISABLED}" in the environment before Python starts.'
        )
    _checked = coretype()


NUMERIC_PACKAGES = ("numpy", "scipy", "sympy", "mpmath", "gmpy2", "clarabel", "threadpoolctl")


def numeric_stack() -> dict:
    """What produced a verdict's floats, for a table's provenance: the numeric packages' versions
    (envs/numeric-constraints.txt pins them), each OpenBLAS's version and kernel, and numpy's
    enabled dispatch targets. Another release of any of them can change which proof is found."""
    dispatched, features = __cpu_dispatch__, __cpu_features__
    packages = {}
    for name in NUMERIC_PACKAGES:
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    blas = sorted(
        (str(lib.get("version")), str(lib.get("architecture")), str(lib.get("prefix")))
        for lib in threadpool_info()
        if lib.get("user_api") == "blas"
    )
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "packages": packages,
        "blas": [{"version": v, "kernel": k, "library": p} for v, k, p in blas],
        "numpy_dispatch": [f for f in dispatched if features.get(f)],
    }
