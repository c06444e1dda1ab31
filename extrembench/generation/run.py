"""The generate stage for one (benchmark, model, shard): plan, serve from cache, send the rest.

Only requests missing from the cache reach a backend; each answer is cached the moment it
arrives, and the output Parquet is written (atomically) only after every planned sample has an
outcome, so a killed job leaves no partial output and loses no finished request.

A failed request (client error, retries exhausted) is never cached. The job fails, with the
server's scrubbed message, as soon as failures pass the model's threshold (`fail_on_client_error`,
`max_failure_rate`); below it the failed samples are rows with `finish_reason: failed`, which
grading marks `failed` and the leaderboard leaves out of accuracy (counted in `n_failed`). Either
way the next run of the job sends exactly the requests that have no cached answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from extrembench.cluster.ledger import JobMeter, response_cost, shares
from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.config import Config, Model
from extrembench.core.files import write_bytes_atomic
from extrembench.core.progress import eta_text
from extrembench.generation import constant
from extrembench.generation.requests import PlannedSample, plan_samples, sampling_json
from extrembench.generation.solvers import SOLVERS
from extrembench.llm.backends import Endpoint, chat_client, open_endpoint
from extrembench.llm.cache import GenerationCache
from extrembench.llm.client import ChatRequest, is_client_error
from extrembench.llm.requests import chat_payload, produced_by

log = logging.getLogger(__name__)

CACHE_WRITERS = 4  # threads creating cache files (I/O wait, not CPU)
CLAIM_POLL_S = 0.05  # how often a request another run is asking is looked at again (latency only)


@dataclass
class Progress:
    """Done / cached / failed counts and tokens/s, logged at most every few seconds."""

    total: int
    cached: int = 0
    sent: int = 0
    failed: int = 0
    client_errors: int = 0
    tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    last_report: float = 0.0

    def record(self, response: dict[str, Any]) -> None:
        self.sent += 1
        self.failed += response.get("finish_reason") == "failed"
        self.client_errors += is_client_error(response)
        self.tokens += response.get("completion_tokens") or 0
        now = time.monotonic()
        if now - self.last_report > 5 or self.sent + self.cached == self.total:
            self.last_report = now
            elapsed = max(now - self.started, 1e-9)
            # the pace of sent requests: cached ones cost nothing and say nothing about the rest
            eta = eta_text(self.sent, self.total - self.cached, elapsed)
            log.info(
                "progress %d/%d done (cached %d, sent %d, failed %d) %.1f tok/s%s",
                self.cached + self.sent,
                self.total,
                self.cached,
                self.sent,
                self.failed,
                self.tokens / elapsed,
                f", {eta}" if eta else "",
            )


class GenerationFailed(RuntimeError):
    """Too many requests of a generate job failed; every answer received so far stays cached."""


def must_fail(
    failed: int, client_errors: int, requests: int, *, max_failure_rate: float, fail_on_client_error: bool
) -> bool:
    """Whether a job with these failures out of `requests` sent fails. Also used while sending:
    once it is true it stays true, so the job stops at once instead of sending the rest."""
    return (fail_on_client_error and client_errors > 0) or failed > max_failure_rate * requests


def _failure_message(model: str, model_cfg: Model, progress: Progress, requests: int, first_error: str) -> str:
    if model_cfg.fail_on_client_error and progress.client_errors:
        why = (
            f"the server rejected a request (a client error: resending will not help; set "
            f"models.{model}.fail_on_client_error to false to keep such samples as failed rows)"
        )
    else:
        why = (
            f"{progress.failed} of {requests} requests failed, over models.{model}.max_failure_rate = "
            f"{model_cfg.max_failure_rate:g}"
        )
    return (
        f"models.{model}: {why}. First error: {first_error}\nEvery answer received is cached; "
        f"fix the endpoint and rerun: only requests without an answer are sent."
    )


def _record_failure(
    sample: PlannedSample,
    response: dict[str, Any],
    errors: list[str],
    progress: Progress,
    requests: int,
    model: str,
    model_cfg: Model,
) -> None:
    """Log one failed request; fail the job once failures pass the model's threshold."""
    # named by what a reader can find (problem, trial, cache key), never by anything secret
    where = f"{sample.problem['problem_id']} trial {sample.trial} (cache key {sample.key[:16]})"
    errors.append(f"{where}: {response['error']}")
    log.warning("%s failed: %s", where, response["error"])
    if must_fail(
        progress.failed,
        progress.client_errors,
        requests,
        max_failure_rate=model_cfg.max_failure_rate,
        fail_on_client_error=model_cfg.fail_on_client_error,
    ):
        message = _failure_message(model, model_cfg, progress, requests, errors[0])
        log.error("%s", message)  # into the rule's log too, not only the traceback on stderr
        raise GenerationFailed(message)


def _send_chat(
    missing: list[PlannedSample],
    model: str,
    model_cfg: Model,
    cache: GenerationCache,
    progress: Progress,
    outcomes: dict[str, dict[str, Any]],
    endpoint: Endpoint,
) -> None:
    by_key = {s.key: s for s in missing}
    client = chat_client(endpoint, model_cfg, concurrency=model_cfg.concurrency)
    requests = [ChatRequest(key=s.key, payload=chat_payload(s.identity, endpoint.served_model)) for s in missing]
    origin = produced_by(missing[0].identity["engine"], missing[0].identity["engine_version"])
    errors: list[str] = []

    async def on_response(request: ChatRequest, response: dict[str, Any]) -> None:
        sample = by_key[request.key]
        progress.record(response)
        if response["finish_reason"] != "failed":
            # Creating a file is mostly I/O wait (0.1-0.5 ms here): in a thread, so the event loop
            # keeps serving the other requests meanwhile; awaited, so an answer is on disk before
            # its worker takes the next request.
            outcomes[sample.key] = await asyncio.get_running_loop().run_in_executor(
                writers, cache.put, sample.key, sample.identity, response, origin
            )
            return
        outcomes[sample.key] = {"response": response, "produced_by": origin}
        _record_failure(sample, response, errors, progress, len(requests), model, model_cfg)

    @contextlib.asynccontextmanager
    async def claim(request: ChatRequest) -> AsyncIterator[bool]:
        # Another run sharing the cache may be asking the same key: wait for its claim, then use
        # its answer instead of paying for the request again (llm/cache.py, KeyClaim).
        handle = cache.claim(request.key)
        while not handle.try_acquire():
            await asyncio.sleep(CLAIM_POLL_S)
        try:
            entry = cache.get(request.key)
            if entry is not None:
                outcomes[request.key] = entry
                progress.cached += 1
            yield entry is None
        finally:
            handle.release()

    # a dead endpoint fails the job in seconds, naming the address, before any request is sent
    asyncio.run(client.probe())
    with ThreadPoolExecutor(CACHE_WRITERS, thread_name_prefix="cache-writer") as writers:
        asyncio.run(client.run(requests, on_response, claim=claim))


def _serve_missing(
    missing: list[PlannedSample],
    model: str,
    model_cfg: Model,
    cache: GenerationCache,
    progress: Progress,
    outcomes: dict[str, dict[str, Any]],
    *,
    cache_dir: Path,
    server_log: Path,
) -> None:
    """Answer every missing sample; each answer is cached the moment it arrives and also lands in
    `outcomes` (with the failures), so the rows need not read it back."""
    if model_cfg.backend in SOLVERS:
        solver = SOLVERS[model_cfg.backend]
        for sample in missing:
            response = solver.answer(sample.identity)
            outcomes[sample.key] = cache.put(
                sample.key, sample.identity, response, produced_by(model_cfg.backend, sample.identity["engine_version"])
            )
            progress.record(response)
        return
    with open_endpoint(model, model_cfg, cache_dir=cache_dir, server_log=server_log) as endpoint:
        _send_chat(missing, model, model_cfg, cache, progress, outcomes, endpoint)


def generation_row(
    sample: PlannedSample,
    entry: dict[str, Any],
    *,
    benchmark: str,
    model: str,
    model_cfg: Model,
    dag_node: str,
    costs: dict[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    response, origin = entry["response"], entry["produced_by"]
    gpu_seconds, wall_seconds = response_cost(origin, costs or {})
    return {
        "benchmark": benchmark,
        "model": model,
        "problem_id": sample.problem["problem_id"],
        "trial": sample.trial,
        "source_sha256": sample.problem["source_sha256"],
        "cache_key": sample.key,
        "model_id": model_cfg.hf_id or model,
        "model_revision": model_cfg.revision,
        "engine": origin["engine"],
        "engine_version": origin["engine_version"],
        "sampling_json": sampling_json(sample),
        "seed": sample.seed,
        "content": response.get("content"),
        "reasoning_content": response.get("reasoning_content"),
        "finish_reason": response.get("finish_reason"),
        "error": response.get("error"),
        "prompt_tokens": response.get("prompt_tokens"),
        "completion_tokens": response.get("completion_tokens"),
        "latency_s": response.get("latency_s"),
        "host": origin.get("host"),
        "slurm_job_id": origin.get("slurm_job_id"),
        "dag_node": dag_node,
        "gpu_seconds": gpu_seconds,
        "wall_seconds": wall_seconds,
    }


def plan_job_samples(problems_path: Path, *, benchmark: str, model: str, config: Config) -> list[PlannedSample]:
    """The samples of one generate job: every asked problem of the shard × the benchmark's trials."""
    problems = read_artifact(problems_path, "problems").to_pylist()
    model_cfg = config.models[model]
    return plan_samples(
        problems,
        benchmark=benchmark,
        model=model,
        model_cfg=model_cfg,
        trials=config.benchmarks[benchmark].trials,
        # the whole set's answer, not this shard's: the shards are a meaningless split
        constant=constant.benchmark_constant(config, benchmark) if model_cfg.backend == constant.NAME else None,
    )


def count_missing(problems_path: Path, *, benchmark: str, model: str, config: Config) -> int:
    """How many of this job's requests the cache cannot serve (0 → the job needs no GPU)."""
    planned = plan_job_samples(problems_path, benchmark=benchmark, model=model, config=config)
    cache = GenerationCache(Path(config.cache_dir))
    return sum(s.key not in cache for s in planned)


def _serve_metered(
    missing: list[PlannedSample],
    model: str,
    model_cfg: Model,
    cache: GenerationCache,
    progress: Progress,
    *,
    config: Config,
    benchmark: str,
    shard: str,
    server_log: Path,
) -> dict[str, dict[str, Any]]:
    """`_serve_missing` with the job's GPU time metered, also when it is preempted or fails."""
    cache_dir = Path(config.cache_dir)
    outcomes: dict[str, dict[str, Any]] = {}
    meter = JobMeter(cache_dir, benchmark=benchmark, model=model, shard=shard)
    gpus = config.resources[model_cfg.size_class].gpu  # a fully cached shard held none
    interrupted = True  # until _serve_missing returns: preempted or failed, the attempt still cost GPU time
    try:
        _serve_missing(missing, model, model_cfg, cache, progress, outcomes, cache_dir=cache_dir, server_log=server_log)
        interrupted = False
    finally:
        meter.close(
            gpus=gpus,
            produced=progress.sent,
            completion_tokens=progress.tokens,
            interrupted=interrupted,
            failed=progress.failed,
        )
    return outcomes


def generation_rows(
    planned: list[PlannedSample],
    entries: dict[str, dict[str, Any] | None],
    *,
    benchmark: str,
    model: str,
    model_cfg: Model,
    dag_node: str,
    costs: dict[str, tuple[float, float]],
) -> list[dict[str, Any]]:
    """The `generations` rows of a job, in planned order; every sample must have an outcome by now."""
    rows = []
    for sample in planned:
        entry = entries.get(sample.key)
        if entry is None:
            raise RuntimeError(
                f"no response for {sample.problem['problem_id']} trial {sample.trial} "
                f"(cache key {sample.key}) after generation; rerun the job"
            )
        rows.append(
            generation_row(
                sample, entry, benchmark=benchmark, model=model, model_cfg=model_cfg, dag_node=dag_node, costs=costs
            )
        )
    return rows


def shard_stats(
    planned: list[PlannedSample], progress: Progress, *, benchmark: str, model: str, model_cfg: Model, shard: str
) -> dict[str, int]:
    """The job's stats file: a baseline solver's answers are computed, an LLM's sent."""
    is_llm = model_cfg.backend not in SOLVERS
    return {
        "benchmark": benchmark,
        "model": model,
        "shard": shard,
        "planned": len(planned),
        "cached": progress.cached,
        "sent": progress.sent if is_llm else 0,
        "computed": 0 if is_llm else progress.sent,
        "failed": progress.failed,
    }


def _write_stats(stats_path: Path, stats: dict[str, int], model: str) -> None:
    """The stats file, and a warning naming the failed requests a rerun sends again."""
    write_bytes_atomic(stats_path, (json.dumps(stats, sort_keys=True) + "\n").encode())
    if stats["failed"]:
        log.warning(
            "%d request(s) failed, within models.%s.max_failure_rate: their rows are marked failed "
            "and left out of accuracy; `snakemake --forcerun generate` sends exactly those again",
            stats["failed"],
            model,
        )
    log.info("done: %s", stats)


def generate_shard(
    *,
    problems_path: Path,
    output: Path,
    stats_path: Path,
    benchmark: str,
    model: str,
    config: Config,
    dag_node: str,
    server_log: Path,
) -> dict[str, int]:
    model_cfg = config.models[model]
    planned = plan_job_samples(problems_path, benchmark=benchmark, model=model, config=config)
    cache_dir = Path(config.cache_dir)
    cache = GenerationCache(cache_dir)
    entries = {s.key: cache.get(s.key) for s in planned}
    missing = [s for s in planned if entries[s.key] is None]
    progress = Progress(total=len(planned), cached=len(planned) - len(missing))
    log.info(
        "%s / %s / %s: %d samples planned, %d cached, %d to request",
        benchmark,
        model,
        problems_path.name,
        len(planned),
        progress.cached,
        len(missing),
    )
    if missing:
        entries.update(
            _serve_metered(
                missing,
                model,
                model_cfg,
                cache,
                progress,
                config=config,
                benchmark=benchmark,
                shard=output.stem,
                server_log=server_log,
            )
        )
    costs = shares(cache_dir, {e["produced_by"].get("job_uid") for e in entries.values() if e})
    rows = generation_rows(
        planned, entries, benchmark=benchmark, model=model, model_cfg=model_cfg, dag_node=dag_node, costs=costs
    )
    write_artifact(rows, output, "generations", inputs=[problems_path])
    stats = shard_stats(planned, progress, benchmark=benchmark, model=model, model_cfg=model_cfg, shard=output.stem)
    _write_stats(stats_path, stats, model)
    return stats
