"""Issue 12, findings 2 and 7, at the generate stage against real loopback HTTP servers: failed
requests are never cached, the job fails with the server's scrubbed message above the threshold,
failed samples are rows marked `failed`, a rerun sends exactly the failed requests, and an error
body echoing the key never reaches a log, a cache entry or a Parquet file."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from support.generation import run_shard
from support.loopback import LoopbackServer, Reply, Request
from support.rows import problem_row as problem_row_of

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.config import validate_config
from extrembench.generation.run import GenerationFailed, count_missing, must_fail
from extrembench.llm.cache import GenerationCache

SECRET = "sk-test-ECHOED-KEY-0123456789abcdef"


class StandIn(LoopbackServer):
    """An OpenAI-style endpoint on 127.0.0.1 whose answer is decided per request by `decide(seed)`
    -> (status, body dict); it records every seed it was sent."""

    def __init__(self, decide) -> None:
        self.decide = decide
        self.seeds: list[int] = []
        super().__init__(self.answer)

    def answer(self, request: Request) -> Reply:
        seed = request.json()["seed"]
        self.seeds.append(seed)
        return Reply(*self.decide(seed, request.headers))


def answer(seed: int) -> dict:
    return {
        "choices": [{"message": {"content": f"\\boxed{{{seed}}}"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3},
    }


def echo_authorization(seed: int, headers: dict) -> tuple[int, dict]:
    return 401, {"error": {"message": "invalid key", "received": {"Authorization": headers.get("Authorization")}}}


def problem_row(problem_id: str) -> dict:
    return problem_row_of(problem_id)


def make_config(tmp_path: Path, base_url: str, **model) -> dict:
    return validate_config(
        {
            "benchmarks": {"t": {"kind": "ingested", "dataset": "x", "trials": 2}},
            "evaluate": {"models": ["m"], "benchmarks": ["t"]},
            "resources": {"cpu": {}},
            "cache_dir": str(tmp_path / "cache"),
            "models": {
                "m": {
                    "backend": "openai",
                    "hf_id": "vendor/model",
                    "concurrency": 2,
                    "max_retries": 1,
                    "retry_initial_backoff_s": 0.01,
                    "openai": {"base_url": base_url, "api_key_env": "EXTREMBENCH_TEST_KEY"},
                    **model,
                }
            },
        }
    )


@pytest.fixture
def problems(tmp_path, monkeypatch):
    monkeypatch.setenv("EXTREMBENCH_TEST_KEY", SECRET)
    write_artifact([problem_row(f"p{i}") for i in range(5)], tmp_path / "problems.parquet", "problems")
    return tmp_path / "problems.parquet"


@pytest.mark.parametrize(
    "failed, client_errors, requests, rate, on_client, expected",
    [
        (0, 0, 100, 0.05, True, False),
        (5, 0, 100, 0.05, True, False),  # exactly 5 %: allowed
        (6, 0, 100, 0.05, True, True),
        (1, 1, 100, 0.05, True, True),  # any client error, by default
        (1, 1, 100, 0.05, False, False),
        (1, 0, 1, 0.05, True, True),
        (3, 0, 10, 0.5, True, False),
        (0, 0, 0, 0.0, True, False),
    ],
)
def test_must_fail(failed, client_errors, requests, rate, on_client, expected):
    assert must_fail(failed, client_errors, requests, max_failure_rate=rate, fail_on_client_error=on_client) is expected


def test_401_fails_the_job_with_the_scrubbed_server_message_and_caches_nothing(tmp_path, problems, caplog):
    caplog.set_level(logging.DEBUG)
    with StandIn(echo_authorization) as endpoint:
        config = make_config(tmp_path, endpoint.base_url)
        with pytest.raises(GenerationFailed, match=r"models\.m: the server rejected a request") as failed:
            run_shard(tmp_path, config)
    message = str(failed.value)
    assert "HTTP 401" in message and "invalid key" in message and "[redacted]" in message
    assert SECRET not in message and SECRET not in caplog.text
    assert len(endpoint.seeds) <= 2  # stopped at the first client error (2 in flight), not 10 sent
    assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "stats.json").exists()
    assert list(GenerationCache(tmp_path / "cache").iter_entries()) == []
    assert count_missing(problems, benchmark="t", model="m", config=config) == 10


def test_client_errors_kept_as_failed_rows_hold_no_key(tmp_path, problems, caplog):
    caplog.set_level(logging.DEBUG)
    rejected = set()

    def decide(seed, headers):
        if len(rejected) < 1 or seed in rejected:
            rejected.add(seed)
            return echo_authorization(seed, headers)
        return 200, answer(seed)

    with StandIn(decide) as endpoint:
        config = make_config(
            tmp_path, endpoint.base_url, fail_on_client_error=False, max_failure_rate=0.2, concurrency=1
        )
        stats = run_shard(tmp_path, config)
    assert (stats["sent"], stats["failed"]) == (10, 1)
    rows = read_artifact(tmp_path / "out.parquet", "generations").to_pylist()
    [failed] = [r for r in rows if r["finish_reason"] == "failed"]
    assert failed["content"] is None and failed["error"].startswith("HTTP 401") and "[redacted]" in failed["error"]
    assert failed["cache_key"] not in GenerationCache(tmp_path / "cache")
    assert SECRET not in caplog.text
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_500_then_200_rerun_sends_exactly_the_failed_requests(tmp_path, problems):
    healthy = False
    flaky = {None}

    def decide(seed, headers):
        if flaky == {None}:
            flaky.clear()
            flaky.add(seed)  # the first seed asked fails until the endpoint is fixed
        if seed in flaky and not healthy:
            return 500, {"error": {"message": "upstream overloaded"}}
        return 200, answer(seed)

    with StandIn(decide) as endpoint:
        config = make_config(tmp_path, endpoint.base_url, max_failure_rate=0.1, concurrency=1)
        first = run_shard(tmp_path, config)
        assert (first["sent"], first["failed"]) == (10, 1)
        rows = read_artifact(tmp_path / "out.parquet", "generations").to_pylist()
        failed = [r for r in rows if r["finish_reason"] == "failed"]
        assert [r["seed"] for r in failed] == list(flaky)
        assert "HTTP 500" in failed[0]["error"] and "(after 2 attempts)" in failed[0]["error"]
        assert count_missing(problems, benchmark="t", model="m", config=config) == 1

        healthy = True
        endpoint.seeds.clear()
        again = run_shard(tmp_path, config)
    assert endpoint.seeds == list(flaky)
    assert (again["sent"], again["cached"], again["failed"]) == (1, 9, 0)
    rows = read_artifact(tmp_path / "out.parquet", "generations").to_pylist()
    assert all(r["finish_reason"] == "stop" for r in rows)


def test_too_many_exhausted_retries_fail_the_job_but_keep_the_answers(tmp_path, problems):
    def decide(seed, headers):
        return (503, {"error": {"message": "busy"}}) if seed % 2 else (200, answer(seed))

    with StandIn(decide) as endpoint:
        config = make_config(tmp_path, endpoint.base_url, concurrency=1)
        with pytest.raises(
            GenerationFailed,
            match=r"over models\.m\.max_failure_rate = 0\.05\. First error: p\d trial \d \(cache key [0-9a-f]{16}\): HTTP 503",
        ):
            run_shard(tmp_path, config)
    answered = [entry for _, entry, _ in GenerationCache(tmp_path / "cache").iter_entries()]
    assert answered and all(entry["request"]["seed"] % 2 == 0 for entry in answered)
    assert count_missing(problems, benchmark="t", model="m", config=config) == 10 - len(answered)


def test_failed_samples_are_graded_failed_and_left_out_of_accuracy(tmp_path, problems):
    from extrembench.grading.shard import grade_shard
    from extrembench.report.results.leaderboard import build_leaderboard

    def decide(seed, headers):  # every answer is right ("1"), except the failing requests
        if seed % 3 == 0:
            return 503, {"error": {"message": "busy"}}
        return 200, {
            "choices": [{"message": {"content": "\\boxed{1}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 3},
        }

    with StandIn(decide) as endpoint:
        config = make_config(tmp_path, endpoint.base_url, max_failure_rate=0.9, max_retries=0, concurrency=1)
        stats = run_shard(tmp_path, config)
    assert 0 < stats["failed"] < 10
    grade_shard(
        tmp_path / "out.parquet",
        problems,
        tmp_path / "grades.parquet",
        dag_node="grade[t]",
        mode="default",
        timeout_s=5,
    )
    grades = read_artifact(tmp_path / "grades.parquet", "grades").to_pandas()
    failed = grades[grades["status"] == "failed"]
    assert len(failed) == stats["failed"] and failed["correct"].isna().all()
    assert failed["reason"].str.startswith("HTTP 503").all()
    [row] = build_leaderboard(grades).to_dict("records")
    assert row["n_failed"] == stats["failed"] and row["n_samples"] == 10 - stats["failed"]
    assert row["accuracy_mean"] == 1.0 and row["ungraded_rate"] == 0.0  # failures are not wrong answers


def malformed(seed: int, *, content: str = '"\\\\boxed{1}"', finish: str = '"stop"', tokens: str = "3") -> bytes:
    """A 200 body, as raw JSON text so NaN and lone surrogates go over the wire as a server sends them."""
    return (
        f'{{"choices": [{{"message": {{"content": {content}}}, "finish_reason": {finish}}}], '
        f'"usage": {{"prompt_tokens": 7, "completion_tokens": {tokens}}}}}'
    ).encode()


MALFORMED = {
    "content int": {"content": "5"},
    "content dict": {"content": '{"text": "x"}'},
    "content list": {"content": '["x"]'},
    "finish_reason int": {"finish": "1"},
    "tokens ten": {"tokens": '"ten"'},
    "tokens negative": {"tokens": "-5"},
    "tokens 1e308": {"tokens": "1e308"},
    "tokens NaN": {"tokens": "NaN"},
    "lone surrogate": {"content": '"\\\\boxed{1} \\ud800"'},
}


@pytest.mark.parametrize("fields", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_200_is_a_failed_request_never_cached_and_the_rerun_sends_exactly_it(tmp_path, problems, fields):
    """Issue 30 item 1: a 200 with wrong types is counted as a failure (not cached, not a crash);
    once the server is fixed the rerun sends that one request and nothing else."""
    bad: set[int] = set()
    healthy = False

    def decide(seed, headers):
        if not bad:
            bad.add(seed)  # the first request asked gets the malformed reply
        if seed in bad and not healthy:
            return 200, malformed(seed, **fields)
        return 200, answer(seed)

    with StandIn(decide) as endpoint:
        config = make_config(tmp_path, endpoint.base_url, max_failure_rate=0.1, concurrency=1)
        first = run_shard(tmp_path, config)
        assert (first["sent"], first["failed"]) == (10, 1)
        [failed] = [r for r in read_artifact(tmp_path / "out.parquet", "generations").to_pylist() if r["error"]]
        assert failed["seed"] in bad and "malformed reply" in failed["error"]
        cached = [entry["request"]["seed"] for _, entry, _ in GenerationCache(tmp_path / "cache").iter_entries()]
        assert len(cached) == 9 and not bad & set(cached)

        healthy = True
        endpoint.seeds.clear()
        again = run_shard(tmp_path, config)
    assert endpoint.seeds == list(bad)
    assert (again["sent"], again["cached"], again["failed"]) == (1, 9, 0)


def test_malformed_replies_over_the_threshold_fail_the_job_naming_the_request(tmp_path, problems):
    with StandIn(lambda seed, headers: (200, malformed(seed, content='"a \\ud800"'))) as endpoint:
        config = make_config(tmp_path, endpoint.base_url, concurrency=1)
        with pytest.raises(GenerationFailed, match=r"First error: p\d trial \d \(cache key [0-9a-f]{16}\): HTTP 200 "):
            run_shard(tmp_path, config)
    assert not list(GenerationCache(tmp_path / "cache").iter_entries())


RUN_ONE = """
import json, sys
from pathlib import Path
from extrembench.core.config import validate_config
from extrembench.generation.run import generate_shard
config = validate_config(json.loads(Path(sys.argv[1]).read_text()))
out = Path(sys.argv[2])
stats = generate_shard(problems_path=Path(sys.argv[3]), output=out / "out.parquet", stats_path=out / "stats.json",
    benchmark="t", model="m", config=config, dag_node="generate[t]", server_log=out / "server.log")
print(json.dumps(stats))
"""


@pytest.mark.slow  # ~3 s: two interpreter start-ups
def test_two_runs_sharing_one_cache_send_each_request_once(tmp_path, problems):
    """Issue 30 item 5: two generate processes on one cache at once (each reply slow enough that
    they overlap): every request reaches the server once, the second run reuses the first's
    answers, and both outputs hold the same answers."""
    import json
    import subprocess
    import sys
    import threading
    import time

    lock = threading.Lock()

    def decide(seed, headers):
        time.sleep(0.2)
        return 200, answer(seed)

    with StandIn(decide) as endpoint:
        config = make_config(tmp_path, endpoint.base_url, concurrency=2)
        config_file = tmp_path / "config.json"
        config_file.write_text(json.dumps(config.model_dump(mode="json")))
        runs = []
        for name in ("a", "b"):
            (tmp_path / name).mkdir()
            runs.append(
                subprocess.Popen(
                    [sys.executable, "-c", RUN_ONE, str(config_file), str(tmp_path / name), str(problems)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        outputs = [run.communicate(timeout=120) for run in runs]
    with lock:
        seeds = list(endpoint.seeds)
    assert all(run.returncode == 0 for run in runs), [err[-2000:] for _, err in outputs]
    assert sorted(seeds) == sorted(set(seeds)) and len(seeds) == 10, seeds
    stats = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    assert sum(s["sent"] for s in stats) == 10 and all(s["sent"] + s["cached"] == 10 for s in stats), stats
    contents = [
        [r["content"] for r in read_artifact(tmp_path / name / "out.parquet", "generations").to_pylist()]
        for name in ("a", "b")
    ]
    assert contents[0] == contents[1]


def test_a_claim_held_by_a_killed_process_is_released(tmp_path):
    """The claim survives nothing of its holder: kill -9 frees it at once."""
    import subprocess
    import sys

    cache = GenerationCache(tmp_path)
    key = "ab" + "0" * 62
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom extrembench.llm.cache import GenerationCache\n"
            f"c = GenerationCache({str(tmp_path)!r}).claim({key!r})\nassert c.try_acquire()\nprint('held', flush=True)\n"
            "time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        claim = cache.claim(key)
        assert not claim.try_acquire()
    finally:
        holder.kill()
        holder.wait()
    assert claim.try_acquire()
    claim.release()
