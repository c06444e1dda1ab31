"""The cluster path on a GPU node, in one command (issue 39): what only a GPU can check.

    # on a GPU node, in the SGLang env (envs/sglang.yaml) with extrembench installed:
    python benchmarks/gpu_smoke.py --model qwen3-1.7b --configfile experiments/paper.yaml [--requests 20]
    python benchmarks/gpu_smoke.py --quick      # CI: the script's own plumbing, no GPU

Full mode starts the server from the registry entry (extrembench.llm.sglang.server_command, the
command the generate job runs), waits for /health, sends N problems of the shipped set through our
client (ChatClient, the bodies the generate stage sends), then runs SGLang's own
`python -m sglang.bench_serving --backend sglang-oai-chat` on the same prompts against the same
server, and prints our output tokens/s, theirs and the ratio (target >= 0.95: our client adds
nothing an engine benchmark would not). Last, the reasoning split of every real reply: how many
carry a final answer, how many were cut off inside the reasoning (grading.shard.cut_off_in_reasoning),
and whether any final content still holds a think tag (a parser that did not split).

--quick swaps the GPU server for a loopback stand-in (written here, started and stopped in this
process) that answers like a reasoning server, and SGLang's bench_serving for a bare http.client
loop over the same bodies; it judges that every request was answered, both rates were measured and
every reply was classified. The ratio target needs a GPU and is not judged there.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from _verdict import run, verdict

from extrembench.core.config import SglangModel, layered_config, model_entry
from extrembench.generation.requests import render_messages
from extrembench.grading.extract import closes_thinking
from extrembench.grading.shard import cut_off_in_reasoning
from extrembench.llm.client import ChatClient, ChatRequest
from extrembench.llm.requests import chat_identity, chat_payload
from extrembench.llm.server import ManagedServer, free_port
from extrembench.llm.sglang import server_command
from extrembench.problems.problem import load_problem
from extrembench.problems.statement import render_statement

REPO = Path(__file__).resolve().parents[1]
TARGET_RATIO = 0.95


def statements(n: int) -> list[str]:
    """The first n shipped problems' statements (by file name), as the validate stage words them."""
    files = sorted((REPO / "data" / "problems").glob("*.yaml"))[:n]
    return [render_statement(load_problem(path)) for path in files]


def requests_for(name: str, model: SglangModel, texts: list[str]) -> list[ChatRequest]:
    """The requests the generate stage would send for these statements (render_messages)."""
    out = []
    for index, text in enumerate(texts):
        messages = render_messages(model, text)
        identity = chat_identity(name, model, messages, index, model.sglang.version or "unknown")
        out.append(ChatRequest(key=f"smoke-{index}", payload=chat_payload(identity, model.hf_id)))
    return out


def ours(base_url: str, requests: list[ChatRequest], concurrency: int) -> tuple[float, list[dict]]:
    """Output tokens/s of our client over `requests`, and the replies."""
    replies: list[dict] = []
    client = ChatClient(base_url, concurrency=concurrency, timeout_s=3600.0, max_retries=0)
    start = time.perf_counter()
    asyncio.run(client.run(requests, lambda _request, reply: replies.append(reply)))
    elapsed = time.perf_counter() - start
    return sum(r.get("completion_tokens") or 0 for r in replies) / elapsed, replies


def split_verdicts(replies: list[dict]) -> dict[str, int]:
    counts = {"final answer": 0, "cut off inside reasoning": 0, "think tag left in content": 0, "failed": 0}
    for reply in replies:
        if reply.get("error"):
            counts["failed"] += 1
            continue
        sample = {k: reply.get(k) for k in ("content", "reasoning_content", "finish_reason")}
        if cut_off_in_reasoning(sample) or not (sample["content"] or "").strip():
            counts["cut off inside reasoning"] += 1
        else:
            counts["final answer"] += 1
        if sample["content"] and closes_thinking(sample["content"]):
            counts["think tag left in content"] += 1
    return counts


# ---------------------------------------------------------------- full mode (a GPU node)
def bench_serving_command(model: SglangModel, port: int, n: int, dataset: Path, output: Path) -> list[str]:
    """SGLang's own serving benchmark over the same prompts, as a command."""
    command = [model.sglang.python or sys.executable, "-m", "sglang.bench_serving", "--backend", "sglang-oai-chat"]
    command += ["--base-url", f"http://127.0.0.1:{port}", "--model", model.hf_id, "--dataset-name", "custom"]
    command += ["--dataset-path", str(dataset), "--num-prompts", str(n), "--apply-chat-template"]
    return command + ["--sharegpt-output-len", str(model.sampling.max_tokens), "--output-file", str(output)]


def bench_serving(model: SglangModel, port: int, texts: list[str], work: Path) -> float:
    """bench_serving's output tokens/s on the same user prompts."""
    dataset, output = work / "prompts.jsonl", work / "bench.jsonl"
    users = [render_messages(model, t)[-1]["content"] for t in texts]
    dataset.write_text("".join(json.dumps({"conversations": [{"content": u}, {"content": ""}]}) + "\n" for u in users))
    subprocess.run(bench_serving_command(model, port, len(texts), dataset, output), check=True)
    return float(json.loads(output.read_text().splitlines()[-1])["output_throughput"])


def full(args: argparse.Namespace) -> int:
    config = layered_config(REPO / "config.yaml", [Path(p) for p in args.configfile])
    model = config.models.get(args.model)
    if not isinstance(model, SglangModel):
        sys.exit(f"gpu_smoke: models.{args.model} is not an sglang model in the given config")
    texts = statements(args.requests)
    port = free_port()
    with (
        tempfile.TemporaryDirectory() as tmp,
        ManagedServer(
            server_command(model, port),
            port=port,
            ready_path="/health",
            log_path=Path(tmp) / "server.log",
            startup_timeout_s=model.sglang.startup_timeout_s,
        ) as server,
    ):
        rate, replies = ours(server.base_url, requests_for(args.model, model, texts), len(texts))
        theirs = bench_serving(model, port, texts, Path(tmp))
    counts = split_verdicts(replies)
    ratio = rate / theirs
    print(f"ours {rate:.1f} tok/s, bench_serving {theirs:.1f} tok/s, ratio {ratio:.3f} (target >= {TARGET_RATIO})")
    print("reasoning split:", ", ".join(f"{k} {v}" for k, v in counts.items()))
    failures = [f"ratio {ratio:.3f} < {TARGET_RATIO}"] if ratio < TARGET_RATIO else []
    failures += [f"{counts['failed']} requests failed"] if counts["failed"] else []
    failures += (
        [f"{counts['think tag left in content']} replies kept a think tag"]
        if counts["think tag left in content"]
        else []
    )
    return verdict(failures, f"{args.model}: ratio {ratio:.3f}, {counts['final answer']} final answers")


# ---------------------------------------------------------------- quick mode (CI, no GPU)
class StandIn(BaseHTTPRequestHandler):
    """A reasoning server's reply: reasoning split off, a final answer, token counts."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        seed = body.get("seed", 0)
        cut = seed % 4 == 3  # every fourth reply stops inside its reasoning
        message = {
            "role": "assistant",
            "reasoning_content": "Equal values give 3. " * 20,
            "content": "" if cut else "The minimum value is $\\boxed{3}$.",
        }
        reply = json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "length" if cut else "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 120, "total_tokens": 220},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args) -> None:
        pass


def bare_loop(port: int, requests: list[ChatRequest]) -> float:
    """The baseline of quick mode: the same bodies over http.client, one by one."""
    tokens, start = 0, time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for request in requests:
        connection.request(
            "POST", "/v1/chat/completions", json.dumps(request.payload), {"Content-Type": "application/json"}
        )
        tokens += json.loads(connection.getresponse().read())["usage"]["completion_tokens"]
    connection.close()
    return tokens / (time.perf_counter() - start)


def quick(args: argparse.Namespace) -> int:
    model = model_entry({"backend": "sglang", "hf_id": "org/model", "reasons": True})
    requests = requests_for("m", model, statements(args.requests))
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        rate, replies = ours(f"http://127.0.0.1:{port}", requests, 4)
        baseline = bare_loop(port, requests)
    finally:
        server.shutdown()
        server.server_close()
    counts = split_verdicts(replies)
    print(f"ours {rate:.0f} tok/s, bare loop {baseline:.0f} tok/s, ratio {rate / baseline:.3f} (stand-in, not judged)")
    print("reasoning split:", ", ".join(f"{k} {v}" for k, v in counts.items()))
    failures = [f"{len(replies)} of {len(requests)} answered"] if len(replies) != len(requests) else []
    expected_cut = sum(1 for r in requests if r.payload["seed"] % 4 == 3)
    if counts["cut off inside reasoning"] != expected_cut or counts["failed"]:
        failures.append(f"split verdicts {counts}, expected {expected_cut} cut off")
    return verdict(failures, f"{len(replies)} replies classified", not_judged=["ratio against bench_serving (GPU)"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="registry name of an sglang model (full mode)")
    parser.add_argument("--configfile", action="append", default=[], help="experiment file(s) layered on config.yaml")
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        return quick(args)
    if not args.model:
        parser.error("--model is required outside --quick")
    return full(args)


if __name__ == "__main__":
    sys.exit(run(main))
