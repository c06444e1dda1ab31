"""Pinned weights (issue 39): an sglang model without a Hub commit serves whatever the Hub holds on
the day under the same cache key, so the run refuses it unless the experiment says
`evaluate.unpinned_weights: true`; a branch or tag is not a pin."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from extrembench.core.config import ConfigError, validate_config

REPO = Path(__file__).resolve().parents[1]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _raw_paper() -> dict:
    from snakemake.utils import update_config

    merged: dict = {}
    for path in (REPO / "config.yaml", REPO / "experiments" / "paper.yaml"):
        update_config(merged, yaml.safe_load(path.read_text()))
    return merged


def test_the_paper_grid_runs_unpinned_only_because_it_says_so():
    raw = _raw_paper()
    assert raw["evaluate"]["unpinned_weights"] is True
    validate_config(raw)
    del raw["evaluate"]["unpinned_weights"]
    with pytest.raises(ConfigError) as caught:
        validate_config(raw)
    message = str(caught.value)
    sglang = [name for name, model in raw["models"].items() if model["backend"] == "sglang"]
    assert len(sglang) == 13
    for name in sglang:  # every used sglang model named, with the fix
        assert f"models.{name}.revision: not set" in message
    assert "evaluate.unpinned_weights: true" in message


def test_a_pinned_grid_needs_no_permission():
    raw = _raw_paper()
    del raw["evaluate"]["unpinned_weights"]
    for model in raw["models"].values():
        if model["backend"] == "sglang":
            model["revision"] = COMMIT
    config = validate_config(raw)
    assert {m.revision for m in config.models.values() if m.backend == "sglang"} == {COMMIT}


@pytest.mark.parametrize("revision", ["main", "v1.0", COMMIT.upper(), COMMIT[:12]])
def test_a_branch_tag_or_short_hash_is_not_a_pin(revision):
    raw = _raw_paper()
    raw["models"]["qwen3-8b"]["revision"] = revision
    with pytest.raises(ConfigError, match=r"models\.qwen3-8b\.revision: .* is not a commit"):
        validate_config(raw)


def test_an_unused_unpinned_model_is_not_refused():
    raw = _raw_paper()
    del raw["evaluate"]["unpinned_weights"]
    raw["evaluate"]["models"] = ["reference-solver"]
    validate_config(raw)


def test_the_default_run_has_no_sglang_model_to_pin():
    raw = yaml.safe_load((REPO / "config.yaml").read_text())
    assert validate_config(copy.deepcopy(raw)).evaluate.unpinned_weights is False
