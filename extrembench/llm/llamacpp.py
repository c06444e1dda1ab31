"""llama.cpp on CPU: the GGUF model file and the server command line.

Measured traps (on the 2-core CI machine): one thread per server (two threads on a shared 2-core box collapse
throughput), `--interrupt_requests False`, no /health endpoint (poll /v1/models), one request at a
time.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from extrembench.config import LlamacppModel
from extrembench.files import atomic_output

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
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", SERVED_NAME,
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(model_cfg.context_length),
            "--n_threads", threads, "--n_threads_batch", threads, "--interrupt_requests", "False", "--verbose", "False"]
