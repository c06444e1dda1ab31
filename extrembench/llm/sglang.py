"""SGLang on GPU nodes: the server command line from a registry entry, and the version check.

SGLang is a cluster-side dependency (envs/sglang.yaml): it may live in another Python than the
pipeline's, named by `sglang.python`. With dp > 1 the router front end
(`sglang_router.launch_server`) starts the replicas and spreads requests over them; it serves the
same OpenAI-compatible API and /health on the one port we give it.
"""

from __future__ import annotations

import subprocess
import sys

from extrembench.core.config import SglangModel

VERSION_PROBE = "import importlib.metadata as m; print(m.version('sglang'))"


def python_executable(model_cfg: SglangModel) -> str:
    return model_cfg.sglang.python or sys.executable


def server_command(model_cfg: SglangModel, port: int) -> list[str]:
    settings = model_cfg.sglang
    module = "sglang_router.launch_server" if settings.dp > 1 else "sglang.launch_server"
    command = [python_executable(model_cfg), "-m", module, "--model-path", model_cfg.hf_id]
    if model_cfg.revision:
        command += ["--revision", model_cfg.revision]
    command += [
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--tp-size",
        str(settings.tp),
        "--dp-size",
        str(settings.dp),
        "--context-length",
        str(model_cfg.context_length),
    ]
    if settings.mem_fraction_static is not None:
        command += ["--mem-fraction-static", str(settings.mem_fraction_static)]
    if settings.reasoning_parser:
        command += ["--reasoning-parser", settings.reasoning_parser]
    if settings.enable_metrics:
        command += ["--enable-metrics"]
    return command + list(settings.extra_args)


def installed_version(model_cfg: SglangModel) -> str | None:
    """The sglang version importable by the configured Python, or None when it has none."""
    probe = subprocess.run(
        [python_executable(model_cfg), "-c", VERSION_PROBE], capture_output=True, text=True, timeout=120
    )
    return probe.stdout.strip() if probe.returncode == 0 and probe.stdout.strip() else None


def check_version(model_cfg: SglangModel, model: str) -> None:
    """The pinned version is part of every cache key (so a CPU host without SGLang computes the
    same keys); serving with another version would file its answers under the wrong one."""
    pinned = model_cfg.sglang.version
    if pinned is None:
        return
    found = installed_version(model_cfg)
    if found != pinned:
        raise RuntimeError(
            f"models.{model}.sglang.version pins sglang {pinned}, but {python_executable(model_cfg)} has "
            f"{found or 'no sglang'}; install sglang=={pinned} (envs/sglang.yaml) or change the pin"
        )
