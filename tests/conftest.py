"""Fixtures shared by the test modules.

The official datasets (AIME 2025, MATH-500, AMO-Bench) are not in the repository: tests that read
them find the local copies under EXTREMBENCH_SHARED_DATA (or ../shared/data beside the checkout).
Where they are absent those tests skip, naming the variable; CI sets
EXTREMBENCH_REQUIRE_SHARED_DATA=1 so that there a missing copy fails instead of skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from extrembench.sources.ingest import shared_data_root

SHARED_DATASETS = ("aime2025", "math500", "amo-bench")


def missing_shared_data(names=SHARED_DATASETS) -> str | None:
    """Why the shared datasets `names` cannot be read, or None when they all can."""
    root = shared_data_root()
    missing = [name for name in names if not (root / name).is_dir()]
    if not missing:
        return None
    return (
        f"shared datasets {', '.join(missing)} not found under {root}: set EXTREMBENCH_SHARED_DATA "
        "to the folder holding the local copies (see docs/datasets.md)"
    )


def require_shared_data(names=SHARED_DATASETS) -> Path:
    """The shared data root; skip the calling test when a dataset is missing, or fail under
    EXTREMBENCH_REQUIRE_SHARED_DATA=1 (CI), where every such test must run."""
    reason = missing_shared_data(names)
    if reason is not None:
        if os.environ.get("EXTREMBENCH_REQUIRE_SHARED_DATA") == "1":
            pytest.fail(reason + " (EXTREMBENCH_REQUIRE_SHARED_DATA=1)", pytrace=False)
        pytest.skip(reason)
    return shared_data_root()


@pytest.fixture
def shared_datasets() -> Path:
    return require_shared_data()


# The longest files start first (longest-processing-time-first packing on the two workers): the
# SLURM pipeline (~20 min, mostly waiting on the cluster) and the whole-set runs. Left to xdist they
# were handed out last, as files of few tests, and one worker ran them alone at the end.
# pyproject.toml's --no-loadscope-reorder keeps this order; within a file the order is unchanged.
LONGEST_FIRST = (
    "test_slurm.py",
    "test_shipped_certificates.py",
    "test_perturbed_answers.py",
    "test_plan.py",
    "test_pipeline.py",
    "test_fresh.py",
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))
