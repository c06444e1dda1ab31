"""llama.cpp on CPU: the GGUF model file, the server command line, and why a server died on a signal.

Measured traps (on the 2-core CI machine): one thread per server (two threads on a shared 2-core box collapse
throughput), `--interrupt_requests False`, no /health endpoint (poll /v1/models), one request at a
time.
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from extrembench.core.config import LlamacppModel
from extrembench.core.files import atomic_output

SERVED_NAME = "model"


def model_file(model_cfg: LlamacppModel, cache_dir: Path) -> Path:
    """The GGUF file: a configured path, or assembled (sha256-checked) by its Python package."""
    settings = model_cfg.llamacpp
    if settings.model_path:
        path = Path(settings.model_path)
        if not path.is_file():
            raise FileNotFoundError(f"llamacpp.model_path: {path} does not exist")
        return path
    package = importlib.import_module(settings.gguf_package)
    target = cache_dir / "models" / package.MODEL_NAME
    if not target.exists():
        # The package writes its target in place: two generate jobs starting together (one per
        # core) would see each other's half-written file and fail its checksum. Assemble privately,
        # then rename: the shared name only ever holds a whole file.
        with atomic_output(target) as private:
            package.assemble(private, overwrite=True)
    return Path(package.assemble(target))  # checks the sha256 of the file at the shared name


def server_command(model_cfg: LlamacppModel, gguf: Path, port: int) -> list[str]:
    threads = str(model_cfg.llamacpp.n_threads)
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        SERVED_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(model_cfg.context_length),
        "--n_threads",
        threads,
        "--n_threads_batch",
        threads,
        "--interrupt_requests",
        "False",
        "--verbose",
        "False",
    ]


# What envs/install.sh writes into the venv once it has built llama-cpp-python with its AVX2 flags.
BUILD_MARKER = "extrembench-llama-cpp-build.txt"
_CPU_FAULTS = {signal.SIGSEGV, signal.SIGILL, signal.SIGBUS}


def ggml_cpu_library() -> Path | None:
    """llama-cpp-python's CPU kernels (found without importing the package, which loads them)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for name in ("libggml-cpu.so", "libggml-cpu.dylib"):
            candidate = Path(folder, "lib", name)
            if candidate.is_file():
                return candidate
    return None


def avx512_instruction_count(library: Path) -> int | None:
    """How many instructions of `library` use a zmm (AVX-512) register; None when objdump is missing."""
    objdump = shutil.which("objdump")
    if objdump is None:
        return None
    try:
        listing = subprocess.run(
            [objdump, "-d", "--no-show-raw-insn", str(library)], capture_output=True, text=True, timeout=120, check=True
        ).stdout
    except (subprocess.SubprocessError, OSError):
        return None
    return sum("%zmm" in line for line in listing.splitlines())


def crash_hint(signum: int) -> str | None:
    """The diagnosis of a llama.cpp server killed by a CPU fault: cause, the check, the fix."""
    if signum not in _CPU_FAULTS:
        return None
    library = ggml_cpu_library()
    venv = Path(sys.prefix)
    marker = venv / BUILD_MARKER
    check = f"objdump -d {library or '<site-packages>/llama_cpp/lib/libggml-cpu.so'} | grep -c zmm"
    count = avx512_instruction_count(library) if library is not None else None
    found = "" if count is None else f" (here: {count:,} instructions use zmm registers)"
    built = (
        f"{marker} says envs/install.sh built it with AVX2 flags"
        + (", and it holds no AVX-512 code: look for another cause in the log below" if count == 0 else "")
        if marker.is_file()
        else f"{marker} is missing: this llama-cpp-python was not built by envs/install.sh, e.g. pip reused a wheel "
        f"built natively elsewhere from its cache, whatever CMAKE_ARGS said"
    )
    return (
        f"Likely cause: a llama-cpp-python build for CPU features this machine does not run (e.g. AVX-512 "
        f"from a native build); {built}.\n"
        f"Check: `{check}` counts AVX-512 instructions; more than 0 means a native AVX-512 build{found}.\n"
        f"Fix (from the checkout): `{venv}/bin/pip uninstall -y llama-cpp-python && rm -f {marker} && "
        f"EXTREMBENCH_VENV={venv} sh envs/install.sh cpu` (rebuilds it for AVX2 in a pip cache of its own)"
    )
