"""How much the generation client costs on top of the engine (issues 4 and 14, "Measured").

(a) Against a real llama.cpp server on loopback (gemma3-270m, one thread): completion tokens/s of
    the whole generate stage (planning, client, cache, Parquet rows) vs a minimal direct client
    sending the same request bodies one by one, measured alternately in the same run.
    Target: ratio ≥ 0.95.
(b) The client's own bookkeeping rate: generate_shard against a loopback responder (written here,
    used only as a load source, started and stopped by PID) that answers every request instantly;
    this process is pinned to one core and the responder to the other. Target: ≥ 1,000 requests/s.
(c) Why aiohttp: the same responder, bare library loops (no cache, no rows) — the openai SDK
    (AsyncOpenAI, its default transport and its aiohttp one) vs aiohttp vs our ChatClient.run.
    Needs `pip install openai` (the `bench` extra); skipped without it.

    .venv/bin/python benchmarks/client_overhead.py [--requests 20000] [--llama-requests 4 --rounds 8]
    .venv/bin/python benchmarks/client_overhead.py --quick

--quick: (a) one request of 8 tokens per round, one round after the warm-up (skipped, saying so, only
when llama_cpp is not installed); (b) 2,000 requests once; (c) 200 requests per library. It judges
that every part ran and answered every request; the ratio and rate targets need the full run's
sizes (and an unloaded machine), so quick mode does not judge them.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _verdict import run, verdict

from extrembench.core.artifacts import SCHEMAS, read_artifact, write_artifact
from extrembench.core.config import validate_config
from extrembench.generation.requests import plan_samples
from extrembench.generation.run import generate_shard
from extrembench.llm import llamacpp
from extrembench.llm.client import ChatClient, ChatRequest
from extrembench.llm.requests import chat_payload
from extrembench.llm.server import ManagedServer, free_port

REPO = Path(__file__).resolve().parents[1]

RESPONDER = r"""
import asyncio, json, sys
content = "Let x = y = z = 1; by AM-GM the sum is at least 3. " * 8 + "\\boxed{3}"
BODY = json.dumps({"id": "x", "object": "chat.completion", "model": "m",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": content,
                                                        "reasoning_content": None},
                                "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 120, "completion_tokens": 96, "total_tokens": 216}}).encode()
REPLY = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY

async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            writer.write(REPLY)
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()

async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", int(sys.argv[1]), backlog=4096)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()

asyncio.run(main())
"""


def problem_rows(n: int) -> list[dict]:
    """n ingested companion problems: every PROBLEMS column, null unless set here."""
    return [
        {
            **dict.fromkeys(SCHEMAS["problems"].names),
            "benchmark": "bench",
            "problem_id": f"q{i:05d}",
            "source_path": f"q{i:05d}.yaml",
            "source_sha256": "0" * 64,
            "statement": f"Let a, b, c > 0 with a + b + c = {i + 3}. Find the minimum of "
            f"a/(b+c) + b/(c+a) + c/(a+b) + {i}.",
            "answer": "3/2",
            "answer_type": "number",
            "sense": "min",
            "technique": [],
            "status": "ingested",
            "dag_node": "bench",
        }
        for i in range(n)
    ]


def openai_config(cache_dir: Path, base_url: str, *, trials: int, max_tokens: int, concurrency: int) -> dict:
    return validate_config(
        {
            "benchmarks": {"bench": {"kind": "ingested", "dataset": "x", "trials": trials}},
            "resources": {"cpu": {}},
            "evaluate": {"models": ["m"], "benchmarks": ["bench"]},
            "cache_dir": str(cache_dir),
            "models": {
                "m": {
                    "backend": "openai",
                    "hf_id": "model",
                    "context_length": 2048,
                    "concurrency": concurrency,
                    "sampling": {
                        "temperature": 0.6,
                        "top_p": 0.95,
                        "top_k": 20,
                        "min_p": 0.0,
                        "max_tokens": max_tokens,
                    },
                    "openai": {"base_url": base_url},
                }
            },
        }
    )


def run_pipeline(work: Path, config: dict) -> float:
    """Wall seconds of one generate_shard with an empty cache."""
    started = time.perf_counter()
    generate_shard(
        problems_path=work / "problems.parquet",
        output=work / "out.parquet",
        stats_path=work / "stats.json",
        benchmark="bench",
        model="m",
        config=config,
        dag_node="benchmark",
        server_log=work / "server.log",
    )
    return time.perf_counter() - started


def direct_client(port: int, bodies: list[bytes]) -> tuple[float, int]:
    """The minimal client: one keep-alive connection, the same bodies in the same order."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    tokens = 0
    started = time.perf_counter()
    for body in bodies:
        connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        tokens += json.loads(connection.getresponse().read())["usage"]["completion_tokens"]
    elapsed = time.perf_counter() - started
    connection.close()
    return elapsed, tokens


def measure_llamacpp(
    work: Path, per_round: int, rounds: int, *, trials: int = 2, max_tokens: int = 48
) -> tuple[float, int, int]:
    """Alternate direct and pipeline in short rounds, each on new problems: a shared box's load
    drifts over minutes, and fine alternation makes both sides see the same drift.
    (pipeline/direct tokens per second, tokens of the direct client, tokens of the pipeline)."""
    if per_round < trials:
        raise ValueError(f"--llama-requests {per_round} is fewer than the {trials} trials of one problem")
    model = validate_config(
        {
            "benchmarks": {"b": {"kind": "ingested", "dataset": "x"}},
            "resources": {"cpu": {}},
            "evaluate": {"models": ["m"], "benchmarks": ["b"]},
            "models": {"m": {"backend": "llamacpp", "context_length": 2048}},
        }
    ).models["m"]
    gguf = llamacpp.model_file(model, REPO / "cache")
    port = free_port()
    all_problems = problem_rows(per_round // trials * (rounds + 1))
    totals = {"direct": [0.0, 0], "pipeline": [0.0, 0]}
    with ManagedServer(
        llamacpp.server_command(model, gguf, port),
        port=port,
        ready_path="/v1/models",
        log_path=work / "llama.log",
        startup_timeout_s=300,
    ):
        base_url = f"http://127.0.0.1:{port}"
        for round_ in range(rounds + 1):
            chunk = all_problems[round_ * per_round // trials : (round_ + 1) * per_round // trials]
            write_artifact(chunk, work / "problems.parquet", "problems")
            config = openai_config(
                work / f"cache-{round_}", base_url, trials=trials, max_tokens=max_tokens, concurrency=1
            )
            planned = plan_samples(chunk, benchmark="bench", model="m", model_cfg=config.models["m"], trials=trials)
            bodies = [json.dumps(chat_payload(s.identity, "model")).encode() for s in planned]
            direct_s, direct_tokens = direct_client(port, bodies)
            pipeline_s = run_pipeline(work, config)
            rows = read_artifact(work / "out.parquet", "generations").to_pylist()
            pipeline_tokens = sum(r["completion_tokens"] or 0 for r in rows)
            if round_ == 0:
                continue  # warm-up: first-request costs belong to neither side
            totals["direct"][0] += direct_s
            totals["direct"][1] += direct_tokens
            totals["pipeline"][0] += pipeline_s
            totals["pipeline"][1] += pipeline_tokens
            print(
                f"  round {round_}: direct {direct_tokens} tok in {direct_s:.2f}s, "
                f"pipeline {pipeline_tokens} tok in {pipeline_s:.2f}s"
            )
    direct = totals["direct"][1] / totals["direct"][0]
    pipeline = totals["pipeline"][1] / totals["pipeline"][0]
    ratio = pipeline / direct
    print(
        f"(a) llama.cpp on loopback, {rounds} alternating rounds of {per_round} requests: direct client "
        f"{direct:.1f} tok/s, pipeline {pipeline:.1f} tok/s, ratio {ratio:.3f} "
        f"(target ≥ 0.95: {'met' if ratio >= 0.95 else 'NOT met'})"
    )
    return ratio, totals["direct"][1], totals["pipeline"][1]


class Responder:
    """The instant loopback responder on the last core; stopped by its PID."""

    def __enter__(self) -> Responder:
        self.port = free_port()
        self.cores = sorted(os.sched_getaffinity(0))
        responder_cores = {self.cores[-1]}
        self.process = subprocess.Popen(
            [sys.executable, "-c", RESPONDER, str(self.port)],
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: os.sched_setaffinity(0, responder_cores),
        )
        assert self.process.stdout.readline().strip() == "ready"
        os.sched_setaffinity(0, {self.cores[0]})  # the client gets one core
        return self

    def __exit__(self, *exc) -> None:
        os.sched_setaffinity(0, set(self.cores))
        os.kill(self.process.pid, 15)
        self.process.wait()
        self.process.stdout.close()


def measure_bookkeeping(work: Path, n_requests: int, concurrency: int, repeats: int) -> tuple[float, int, int]:
    """Best of `repeats` runs (a shared box's load only ever slows a run down), each on an empty cache.
    (best requests per wall second, the fewest rows a run wrote, the requests planned per run)."""
    trials = 10
    write_artifact(problem_rows(n_requests // trials), work / "problems.parquet", "problems")
    wall_rates, cpu_rates, row_counts = [], [], []
    with Responder() as responder:
        for repeat in range(repeats):
            config = openai_config(
                work / f"cache-{repeat}",
                f"http://127.0.0.1:{responder.port}",
                trials=trials,
                max_tokens=64,
                concurrency=concurrency,
            )
            cpu = time.process_time()
            elapsed = run_pipeline(work, config)
            cpu = time.process_time() - cpu
            rows = read_artifact(work / "out.parquet", "generations").num_rows
            row_counts.append(rows)
            wall_rates.append(rows / elapsed)
            cpu_rates.append(rows / cpu)
            print(f"  run {repeat + 1}: {rows} requests in {elapsed:.2f}s wall, {cpu:.2f}s CPU")
    best = max(wall_rates)
    print(
        f"(b) bookkeeping with instant responses, {rows} requests, concurrency {concurrency}, client + cache "
        f"on one core: {best:,.0f} requests/s wall (best of {repeats}), {max(cpu_rates):,.0f} per "
        f"CPU-second (target ≥ 1,000/s: {'met' if best >= 1000 else 'NOT met'})"
    )
    return best, min(row_counts), n_requests // trials * trials


BODY = {
    "model": "m",
    "messages": [{"role": "user", "content": "Find the minimum of a/(b+c)."}],
    "seed": 1,
    "temperature": 0.6,
    "top_p": 0.95,
    "max_tokens": 64,
}


async def bare_aiohttp(base_url: str, n: int, concurrency: int) -> None:
    import aiohttp

    data = json.dumps(BODY).encode()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:

        async def one() -> None:
            async with session.post(
                base_url + "/v1/chat/completions", data=data, headers={"Content-Type": "application/json"}
            ) as reply:
                json.loads(await reply.read())

        await many(one, n, concurrency)


async def bare_openai(base_url: str, n: int, concurrency: int, transport: str) -> None:
    import openai

    http_client = openai.DefaultAioHttpClient() if transport == "aiohttp" else None
    async with openai.AsyncOpenAI(
        base_url=base_url + "/v1", api_key="none", max_retries=0, http_client=http_client
    ) as client:

        async def one() -> None:
            await client.chat.completions.create(**BODY)

        await many(one, n, concurrency)


async def many(one, n: int, concurrency: int) -> None:
    pending = iter(range(n))

    async def worker() -> None:
        for _ in pending:
            await one()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def production_client(base_url: str, n: int, concurrency: int) -> None:
    requests = [ChatRequest(key=f"{i:064x}", payload=BODY) for i in range(n)]
    await ChatClient(base_url, concurrency=concurrency, max_retries=0).run(requests, lambda _r, _a: None)


def measure_libraries(n_requests: int, concurrency: int) -> bool:
    """Whether (c) ran (it needs the openai SDK)."""
    try:
        import openai  # noqa: F401
    except ImportError:
        print("(c) skipped: the openai SDK is not installed (pip install openai, or the `bench` extra)")
        return False
    candidates = {
        "openai SDK (default transport)": lambda url: bare_openai(url, n_requests, concurrency, "default"),
        "openai SDK (aiohttp transport)": lambda url: bare_openai(url, n_requests, concurrency, "aiohttp"),
        "aiohttp": lambda url: bare_aiohttp(url, n_requests, concurrency),
        "ChatClient (aiohttp + tenacity)": lambda url: production_client(url, n_requests, concurrency),
    }
    with Responder() as responder:
        base_url = f"http://127.0.0.1:{responder.port}"
        for name, run in candidates.items():
            started = time.perf_counter()
            asyncio.run(run(base_url))
            elapsed = time.perf_counter() - started
            print(
                f"(c) {name}: {n_requests / elapsed:,.0f} requests/s ({n_requests} requests, "
                f"concurrency {concurrency}, one core)"
            )
    return True


def llama_cpp_missing() -> str | None:
    """Why (a) cannot run here, or None."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        return "llama_cpp is not installed (the `cpu` extra: pip install -e '.[cpu]')"
    return None


QUICK = {"requests": 2000, "repeats": 1, "llama_requests": 1, "rounds": 1, "library_requests": 200}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=20000, help="load-source requests for (b)")
    parser.add_argument("--concurrency", type=int, default=256, help="requests in flight for (b)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of (b); the best is reported")
    parser.add_argument("--llama-requests", type=int, default=4, help="llama.cpp requests per round for (a)")
    parser.add_argument("--rounds", type=int, default=8, help="alternating direct/pipeline rounds for (a)")
    parser.add_argument("--library-requests", type=int, default=5000, help="requests per library for (c)")
    parser.add_argument("--skip-llama", action="store_true", help="skip (a)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes (" + ", ".join(f"{k} {v}" for k, v in QUICK.items()) + "): the parts run, "
        "their targets are not judged",
    )
    args = parser.parse_args()
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    failures, not_judged, parts = [], [], []
    with tempfile.TemporaryDirectory(prefix="client-overhead-") as tmp:
        (Path(tmp) / "a").mkdir()
        (Path(tmp) / "b").mkdir()
        skip_llama = "--skip-llama" if args.skip_llama else (llama_cpp_missing() if args.quick else None)
        if skip_llama:
            print(f"(a) skipped: {skip_llama}")
            not_judged.append("(a) skipped")
        else:
            # quick: one trial per problem, so one request per round; 8 tokens keep a round to seconds
            trials, max_tokens = (1, 8) if args.quick else (2, 48)
            ratio, direct_tokens, pipeline_tokens = measure_llamacpp(
                Path(tmp) / "a", args.llama_requests, args.rounds, trials=trials, max_tokens=max_tokens
            )
            if not (direct_tokens and pipeline_tokens):
                failures.append(f"(a) no completion tokens (direct {direct_tokens}, pipeline {pipeline_tokens})")
            if args.quick:
                not_judged.append("(a) ratio ≥ 0.95")
            elif ratio < 0.95:
                failures.append(f"(a) pipeline/direct ratio {ratio:.3f} (target ≥ 0.95)")
            parts.append(f"(a) ratio {ratio:.3f}")
        best, rows, planned = measure_bookkeeping(Path(tmp) / "b", args.requests, args.concurrency, args.repeats)
        if rows != planned:
            failures.append(f"(b) a run wrote {rows} rows for {planned} requests")
        if args.quick:
            not_judged.append("(b) ≥ 1,000 requests/s")
        elif best < 1000:
            failures.append(f"(b) {best:,.0f} requests/s (target ≥ 1,000)")
        parts.append(f"(b) {best:,.0f} requests/s")
        if not measure_libraries(args.library_requests, args.concurrency):
            not_judged.append("(c) skipped: no openai SDK")
        else:
            parts.append("(c) ran")
    if not args.quick and not_judged:
        parts.append("; ".join(not_judged))
    return verdict(failures, ", ".join(parts), not_judged=not_judged if args.quick else ())


if __name__ == "__main__":
    sys.exit(run(main))
