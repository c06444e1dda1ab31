"""What a chat request is: its identity (what the cache key is computed over), the JSON body sent,
and the record of where an answer was produced. Shared by the generate stage and the LLM calls of
translate, convert and the grading judge.

Everything that determines a response goes into the identity: the rendered messages, model id +
revision, every sampling parameter, the seed, the clamped max_tokens, and the engine with its
version. The served model name and the port do not: they change between runs without changing
the answer.
"""

from __future__ import annotations

import math
import os
import socket
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from extrembench.cluster.ledger import job_uid
from extrembench.core.config import Model


def chat_engine_version(model_cfg: Model) -> str:
    backend = model_cfg.backend
    package = {"llamacpp": "llama-cpp-python", "sglang": "sglang"}.get(backend)
    if backend == "sglang" and model_cfg.sglang.version:
        # The pin, not the local install: the CPU host that counts cached requests has no sglang.
        return model_cfg.sglang.version
    if package is None:
        return "api"
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def estimate_prompt_tokens(messages: list[dict[str, str]]) -> int:
    """Upper estimate (≈ 1 token per 2 bytes + template overhead): only used to clamp max_tokens;
    an underestimate is caught by the server's 400, which becomes an error row."""
    size = sum(len(m["content"].encode()) for m in messages)
    return math.ceil(size / 2) + 16 * len(messages)


def clamp_max_tokens(max_tokens: int, context_length: int, prompt_tokens: int) -> int:
    return max(1, min(max_tokens, context_length - prompt_tokens))


def chat_identity(
    model: str, model_cfg: Model, messages: list[dict[str, str]], seed: int, version: str
) -> dict[str, Any]:
    """What a chat request's cache key is computed over (generate requests and the LLM steps' calls)."""
    sampling = model_cfg.sampling.model_dump(mode="json")
    sampling["max_tokens"] = clamp_max_tokens(
        sampling["max_tokens"], model_cfg.context_length, estimate_prompt_tokens(messages)
    )
    if sampling.get("reasoning_effort") is None:
        sampling.pop("reasoning_effort", None)
    return {
        "engine": model_cfg.backend,
        "engine_version": version,
        "model_id": model_cfg.hf_id or model,
        "revision": model_cfg.revision,
        "messages": messages,
        "sampling": sampling,
        "seed": seed,
    }


def chat_payload(identity: dict[str, Any], served_model: str) -> dict[str, Any]:
    """The JSON body sent: every sampling parameter explicit, so no server default leaks in."""
    return {"model": served_model, "messages": identity["messages"], "seed": identity["seed"], **identity["sampling"]}


def produced_by(engine: str, version: str) -> dict[str, Any]:
    return {
        # SLURM's node name where it differs from the host name; both survive the job step
        # (snakemake-executor-plugin-slurm-jobstep 0.6.1, checked on a real cluster).
        "host": os.environ.get("SLURMD_NODENAME") or socket.gethostname(),
        "slurm_job_id": os.environ.get("SLURM_JOB_ID"),
        "job_uid": job_uid(),  # this attempt's cost ledger entry (ledger.py)
        "engine": engine,
        "engine_version": version,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
