"""The response journal: per-response append, materialization into the cache by the helper
process, recovery of a killed job's journal, and failure of the helper surfaced, journal kept."""

from __future__ import annotations

import fcntl
import os

import pytest

from extrembench.generation.cache import GenerationCache, canonical_json
from extrembench.generation.journal import (ResponseJournal, fold_journal, journal_dir, journal_keys,
                                            line_key, recover_journals)

KEY_A = "a" * 64
KEY_B = "0123456789abcdef" * 4


def entry(key: str, seed: int) -> dict:
    return {"key": key, "request": {"messages": [{"role": "user", "content": "x ∈ ℝ"}], "seed": seed},
            "response": {"content": "\\boxed{1}", "finish_reason": "stop"},
            "produced_by": {"host": "h", "engine": "sglang"}}


@pytest.mark.parametrize("line, key", [
    (canonical_json(entry(KEY_A, 1)).encode(), KEY_A),
    (canonical_json(entry(KEY_B, 2)).encode(), KEY_B),
    (b'{"key":"' + b"g" * 64 + b'","x":1}', None),  # not hex
    (b'{"key":"abc","x":1}', None),  # too short
    (b'{"other":1}', None),
    (b"", None),
])
def test_line_key(line, key):
    assert line_key(line) == key


def test_recorded_entries_become_cache_files_identical_to_put(tmp_path):
    cache = GenerationCache(tmp_path / "cache")
    entries = [entry(f"{i:064x}", i) for i in range(200)]
    with ResponseJournal(cache, sync_interval_s=0.05) as journal:
        for e in entries:
            returned = journal.record(e["key"], e["request"], e["response"], e["produced_by"])
            assert returned == e
        assert journal.path.exists()
    assert not journal.path.exists()
    reference = GenerationCache(tmp_path / "reference")
    for e in entries:
        reference.put(e["key"], e["request"], e["response"], e["produced_by"])
        assert cache.path(e["key"]).read_bytes() == reference.path(e["key"]).read_bytes()
        assert cache.get(e["key"]) == e


def test_fold_skips_a_torn_last_line_and_foreign_lines(tmp_path):
    cache = GenerationCache(tmp_path / "cache")
    journal = tmp_path / "j.jsonl"
    whole = canonical_json(entry(KEY_A, 1))
    torn = canonical_json(entry(KEY_B, 2))[:50]
    journal.write_text(whole + "\n" + '{"note":"not an entry"}\n' + torn, encoding="utf-8")
    assert fold_journal(cache, journal) == 1
    assert cache.get(KEY_A) == entry(KEY_A, 1) and cache.get(KEY_B) is None
    assert fold_journal(cache, journal) == 0  # idempotent


def test_recovery_folds_dead_writers_journals_and_leaves_live_ones(tmp_path):
    cache = GenerationCache(tmp_path / "cache")
    directory = journal_dir(cache)
    directory.mkdir(parents=True)
    dead = directory / "host-1-1.jsonl"
    dead.write_text(canonical_json(entry(KEY_A, 1)) + "\n", encoding="utf-8")
    live = directory / "host-2-2.jsonl"
    live.write_text(canonical_json(entry(KEY_B, 2)) + "\n", encoding="utf-8")
    fd = os.open(live, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a running job holds its journal
    try:
        assert recover_journals(cache) == 1
    finally:
        os.close(fd)
    assert not dead.exists() and live.exists()
    assert cache.get(KEY_A) == entry(KEY_A, 1) and cache.get(KEY_B) is None
    assert recover_journals(cache) == 1  # the lock is gone: now it is a dead writer's too
    assert cache.get(KEY_B) == entry(KEY_B, 2) and not live.exists()


def test_failed_cache_writer_raises_and_keeps_the_journal(tmp_path):
    cache = GenerationCache(tmp_path / "cache")
    cache.root.parent.mkdir(parents=True)
    cache.root.write_text("a file where the cache directory should be")
    journal = ResponseJournal(cache)
    with pytest.raises(RuntimeError, match="cache writer failed"):
        with journal:
            journal.record(KEY_A, entry(KEY_A, 1)["request"], {"content": "x"}, {"host": "h"})
    assert journal.path.exists()  # every response is still there for the next run


def test_journal_keys_lists_complete_lines_of_every_journal(tmp_path):
    cache = GenerationCache(tmp_path / "cache")
    assert journal_keys(cache) == set()
    directory = journal_dir(cache)
    directory.mkdir(parents=True)
    (directory / "h-1-1.jsonl").write_text(canonical_json(entry(KEY_A, 1)) + "\n", encoding="utf-8")
    (directory / "h-2-2.jsonl").write_text(canonical_json(entry(KEY_B, 2))[:90], encoding="utf-8")  # torn
    assert journal_keys(cache) == {KEY_A}
