"""Plan the requests of one generate job: one per (problem, trial), each with its own seed and key.

Everything that determines a response goes into the request identity (and so the cache key):
the rendered messages, model id + revision, every sampling parameter, the seed, the clamped
max_tokens, and the engine with its version. The served model name and the port do not: they
change between runs without changing the answer.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extrembench import __version__
from extrembench.core.config import Model
from extrembench.core.provenance import stage_code_hash
from extrembench.core.seeds import name_digest
from extrembench.generation.solvers import SOLVERS
from extrembench.llm.cache import cache_key
from extrembench.llm.requests import chat_engine_version, chat_identity

ASKED_STATUSES = ("confirmed", "ingested")


@dataclass(frozen=True)
class PlannedSample:
    problem: dict[str, Any]  # a row of the problems table
    trial: int
    seed: int
    identity: dict[str, Any]  # what the cache key is computed over
    key: str


def sample_seed(model: str, benchmark: str, problem_id: str, trial: int) -> int:
    """Distinct, deterministic seed per sample (SGLang's default seed is the same for all)."""
    digest = name_digest(model, benchmark, problem_id, trial)
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@functools.cache  # the code cannot change within one process; the Snakefile asks once per job
def solver_version(backend: str) -> str:
    """The package version + the code hash of everything a baseline's module imports (computed from
    its import statements): editing the solver or its answer formatting invalidates cached answers."""
    root = Path(__file__).resolve().parents[2]
    return f"{__version__}+{stage_code_hash([SOLVERS[backend].path], base=root)}"


def engine_version(model_cfg: Model) -> str:
    if model_cfg.backend in SOLVERS:
        return solver_version(model_cfg.backend)
    return chat_engine_version(model_cfg)


def render_messages(model_cfg: Model, statement: str) -> list[dict[str, str]]:
    # str.replace, not str.format: templates contain literal braces such as \boxed{}.
    prompt = model_cfg.prompt_template.replace("{statement}", statement)
    messages = []
    if model_cfg.system_prompt:
        messages.append({"role": "system", "content": model_cfg.system_prompt})
    messages.append({"role": "user", "content": prompt})
    return messages


def plan_samples(
    problems: list[dict[str, Any]],
    *,
    benchmark: str,
    model: str,
    model_cfg: Model,
    trials: int,
    constant: str | None = None,
) -> list[PlannedSample]:
    """One sample per asked problem and trial. `constant`: constant-guess only, the benchmark's most
    frequent answer (extrembench.generation.constant.benchmark_constant), part of every identity."""
    version = engine_version(model_cfg)
    planned = []
    for problem in sorted(problems, key=lambda p: p["problem_id"]):
        if problem["status"] not in ASKED_STATUSES:
            continue
        for trial in range(trials):
            seed = sample_seed(model, benchmark, problem["problem_id"], trial)
            if model_cfg.backend in SOLVERS:
                known = {
                    "starts": model_cfg.reference.starts,
                    "digits": model_cfg.reference.digits,
                    "constant": constant,
                }
                identity = {
                    "engine": model_cfg.backend,
                    "engine_version": version,
                    "spec_json": problem["spec_json"],
                    "seed": seed,
                    **{name: known[name] for name in SOLVERS[model_cfg.backend].settings},
                }
            else:
                identity = chat_identity(
                    model, model_cfg, render_messages(model_cfg, problem["statement"]), seed, version
                )
            planned.append(
                PlannedSample(problem=problem, trial=trial, seed=seed, identity=identity, key=cache_key(identity))
            )
    return planned


def sampling_json(sample: PlannedSample) -> str:
    identity = sample.identity
    if identity["engine"] in SOLVERS:
        fields = {k: identity[k] for k in ("seed", *SOLVERS[identity["engine"]].settings)}
    else:
        fields = {**identity["sampling"], "seed": identity["seed"]}
    return json.dumps(fields, sort_keys=True)
