"""Shards and the `limit` sample: both depend on ids alone, so editing one problem touches one shard
and changes at most one member of a limited run."""

import pytest

from extrembench.core.shards import problem_set_check, shard_of, take

IDS = [f"ineq-{n:04d}" for n in range(1, 201)]


@pytest.mark.parametrize("limit, expected", [(None, 200), (0, 200), (48, 48), (200, 200), (500, 200)])
def test_take_size(limit, expected):
    chosen = take(IDS, limit)
    assert len(chosen) == expected and chosen == sorted(chosen)


def test_take_is_a_spread_sample_not_the_oldest_files():
    chosen = take(IDS, 48)
    assert chosen != IDS[:48]
    # every quarter of the id range is represented (a prefix would leave three quarters empty)
    assert all(any(IDS[q * 50] <= c < IDS[min(q * 50 + 49, 199)] for c in chosen) for q in range(4))


def test_take_changes_at_most_one_member_when_one_problem_is_added_or_removed():
    before = set(take(IDS, 48))
    assert len(set(take([*IDS, "ineq-9999"], 48)) ^ before) <= 2
    removed = sorted(before)[0]
    assert len(set(take([i for i in IDS if i != removed], 48)) ^ before) <= 2


def test_take_ignores_input_order():
    assert take(list(reversed(IDS)), 30) == take(IDS, 30)


def test_shard_depends_on_id_alone():
    assert [shard_of(i, 4) for i in IDS] == [shard_of(i, 4) for i in IDS]
    assert {shard_of(i, 4) for i in IDS} == {0, 1, 2, 3}


@pytest.mark.parametrize(
    "n_problems, n_shards, error, warning",
    [
        (207, 4, None, None),
        (207, 207, None, None),
        (0, 4, "benchmarks.b.problems: 'dir' holds no *.yaml problem file", None),
        (207, 10_000, None, "benchmarks.b.shards: 10000 shards for 207 problems: at least 9793 shards hold no problem"),
    ],
)
def test_problem_set_check(n_problems, n_shards, error, warning):
    """Issue 30 item 8: an empty problem set and 10,000 shards are said before any job."""
    got_error, got_warning = problem_set_check("b", "dir", n_problems, n_shards)
    assert (got_error is None) == (error is None) and (error is None or got_error.startswith(error))
    assert (got_warning is None) == (warning is None) and (warning is None or got_warning.startswith(warning))
