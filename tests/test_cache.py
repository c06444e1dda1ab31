"""GenerationCache: content-addressed, atomic, self-verifying; torn, edited or foreign files are
never served; two writer processes at once and a writer killed mid-write leave only whole entries."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from extrembench.llm.cache import GenerationCache, cache_key, canonical_json, entry_digest

REQUEST = {"messages": [{"role": "user", "content": "x ∈ ℝ"}], "seed": 1}


def test_key_depends_on_every_field_and_not_on_order():
    base = {"messages": [{"role": "user", "content": "hi"}], "seed": 1, "sampling": {"temperature": 0.6, "top_p": 0.95}}
    reordered = {"sampling": {"top_p": 0.95, "temperature": 0.6}, "seed": 1, "messages": base["messages"]}
    assert cache_key(base) == cache_key(reordered)
    assert cache_key(base) != cache_key({**base, "seed": 2})
    assert cache_key(base) != cache_key({**base, "sampling": {"temperature": 0.7, "top_p": 0.95}})


def test_put_get_and_no_temp_files_left(tmp_path):
    cache = GenerationCache(tmp_path)
    key = cache_key(REQUEST)
    assert cache.get(key) is None and key not in cache and cache.load(key) == (None, "missing")
    entry = cache.put(key, REQUEST, {"content": "\\boxed{2}", "completion_tokens": 3}, {"host": "h"})
    assert cache.get(key) == entry and entry["response"] == {"content": "\\boxed{2}", "completion_tokens": 3}
    assert entry["sha256"] == entry_digest(entry)
    assert cache.path(key).read_text(encoding="utf-8") == canonical_json(entry)
    assert [p.name for p in cache.path(key).parent.iterdir()] == [f"{key}.json"]


def tamper(cache: GenerationCache, key: str, edit) -> None:
    entry = json.loads(cache.path(key).read_text(encoding="utf-8"))
    edit(entry)
    cache.path(key).write_text(json.dumps(entry), encoding="utf-8")


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda e: e["response"].update(completion_tokens=4), "sha256 does not match"),
        (lambda e: e["response"].update(content="\\boxed{3}"), "sha256 does not match"),
        (lambda e: e["produced_by"].update(host="elsewhere"), "sha256 does not match"),
        (lambda e: e.pop("sha256"), "no sha256"),
        # the request edited and the hash recomputed: the key no longer matches the request
        (lambda e: (e["request"].update(seed=2), e.update(sha256=entry_digest(e))), "key does not match"),
        (lambda e: e.update(key="0" * 64), "not its file name's"),
    ],
)
def test_edited_entries_are_absent_and_named(tmp_path, edit, problem):
    cache = GenerationCache(tmp_path)
    key = cache_key(REQUEST)
    cache.put(key, REQUEST, {"content": "\\boxed{2}", "completion_tokens": 3}, {"host": "h"})
    tamper(cache, key, edit)
    entry, reason = cache.load(key)
    assert entry is None and problem in reason
    assert cache.get(key) is None and key not in cache
    assert [(k, e, p) for k, e, p in cache.iter_entries()] == [(key, None, reason)]


@pytest.mark.parametrize(
    "text, problem",
    [
        ('{"key": "', "not valid JSON"),
        ("[1, 2]", "not a cache entry"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
def test_torn_or_foreign_files_are_absent(tmp_path, text, problem):
    cache = GenerationCache(tmp_path)
    key = cache_key(REQUEST)
    cache.path(key).parent.mkdir(parents=True)
    if isinstance(text, bytes):
        cache.path(key).write_bytes(text)
    else:
        cache.path(key).write_text(text)
    assert cache.get(key) is None and problem in cache.load(key)[1]


def test_iter_entries_lists_every_entry_sorted_and_skips_temp_files(tmp_path):
    cache = GenerationCache(tmp_path)
    keys = []
    for seed in range(5):
        request = {**REQUEST, "seed": seed}
        keys.append(cache_key(request))
        cache.put(keys[-1], request, {"content": str(seed)}, {"host": "h"})
    (cache.path(keys[0]).parent / f".{keys[0][:8]}.abc.tmp").write_text("{partial")
    listed = list(cache.iter_entries())
    assert [k for k, _, _ in listed] == sorted(keys)
    assert all(entry is not None and problem is None for _, entry, problem in listed)
    assert list(GenerationCache(tmp_path / "nothing").iter_entries()) == []


WRITER = """
import sys
from extrembench.llm.cache import GenerationCache, cache_key
cache = GenerationCache(sys.argv[1])
tag, count = sys.argv[2], int(sys.argv[3])
print("ready", flush=True)
for i in range(count):
    request = {"seed": i % 50}  # both writers write the same 50 keys, over and over
    cache.put(cache_key(request), request, {"content": tag + "x" * 20000, "n": i}, {"writer": tag})
"""


def test_two_writer_processes_on_the_same_keys_leave_only_valid_entries(tmp_path):
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), tag, "400"], stdout=subprocess.PIPE, text=True)
        for tag in ("A", "B")
    ]
    cache = GenerationCache(tmp_path)
    seen_while_writing = 0
    while any(w.poll() is None for w in writers):
        for key, _entry, problem in cache.iter_entries():
            assert problem is None, (key, problem)  # a reader never sees a half-written entry
            seen_while_writing += 1
    assert [w.wait() for w in writers] == [0, 0]
    for w in writers:
        w.stdout.close()
    listed = list(cache.iter_entries())
    assert len(listed) == 50 and all(problem is None for _, _, problem in listed)
    assert {entry["produced_by"]["writer"] for _, entry, _ in listed} <= {"A", "B"}
    assert seen_while_writing > 0


def test_writer_killed_mid_write_leaves_whole_entries_or_none(tmp_path):
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER.replace("i % 50", "i"), str(tmp_path), "A", "100000"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout.readline().strip() == "ready"
    cache = GenerationCache(tmp_path)
    deadline = time.monotonic() + 30
    while not cache.root.is_dir() or sum(1 for _ in cache.root.glob("??/*.json")) < 200:
        assert time.monotonic() < deadline and writer.poll() is None
        time.sleep(0.01)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    writer.stdout.close()
    listed = list(cache.iter_entries())
    assert len(listed) >= 200 and all(problem is None for _, _, problem in listed)


@pytest.mark.parametrize(
    "response",
    [{"content": 5}, {"content": "x", "finish_reason": 1}, {"completion_tokens": "ten"}, {"prompt_tokens": -5}],
)
def test_a_malformed_response_is_never_stored_and_an_old_one_reads_as_absent(tmp_path, response):
    """Issue 30 item 1: put refuses it; an entry written before replies were typed (sha256 and
    all) reads as absent, so it is requested again instead of poisoning every rerun."""
    cache = GenerationCache(tmp_path)
    key = cache_key(REQUEST)
    with pytest.raises(ValueError, match="malformed response"):
        cache.put(key, REQUEST, response, {"host": "h"})
    assert not cache.path(key).exists()
    entry = {"key": key, "request": REQUEST, "response": response, "produced_by": {"host": "h"}}
    entry["sha256"] = entry_digest(entry)
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text(json.dumps(entry))
    assert cache.get(key) is None and cache.load(key)[1].startswith("malformed response")
