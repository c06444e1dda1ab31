"""GenerationCache: content-addressed, atomic, and torn or foreign files are never served."""

from __future__ import annotations

from extrembench.generation.cache import GenerationCache, cache_key


def test_key_depends_on_every_field_and_not_on_order():
    base = {"messages": [{"role": "user", "content": "hi"}], "seed": 1, "sampling": {"temperature": 0.6, "top_p": 0.95}}
    reordered = {"sampling": {"top_p": 0.95, "temperature": 0.6}, "seed": 1, "messages": base["messages"]}
    assert cache_key(base) == cache_key(reordered)
    assert cache_key(base) != cache_key({**base, "seed": 2})
    assert cache_key(base) != cache_key({**base, "sampling": {"temperature": 0.7, "top_p": 0.95}})


def test_put_get_and_no_temp_files_left(tmp_path):
    cache = GenerationCache(tmp_path)
    key = cache_key({"seed": 1})
    assert cache.get(key) is None and key not in cache
    cache.put(key, {"seed": 1}, {"content": "\\boxed{2}"}, {"host": "h"})
    assert cache.get(key)["response"] == {"content": "\\boxed{2}"}
    assert [p.name for p in cache.path(key).parent.iterdir()] == [f"{key}.json"]


def test_torn_or_mismatched_entries_are_absent(tmp_path):
    cache = GenerationCache(tmp_path)
    key = cache_key({"seed": 1})
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text('{"key": "')
    assert cache.get(key) is None
    cache.path(key).write_text('{"key": "another", "response": {}}')
    assert cache.get(key) is None
