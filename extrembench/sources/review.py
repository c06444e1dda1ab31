"""The review rule's job: the table a curator reads, every built problem not confirmed, with why."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from extrembench.core.artifacts import read_artifact, write_csv

log = logging.getLogger(__name__)


def review_table(problem_tables: Sequence[str], output: Path) -> None:
    """Every built problem the validator did not confirm, with why: what a curator reviews."""
    import pandas as pd  # deferred: pandas costs start-up time and only this path needs it

    columns = ["benchmark", "problem_id", "status", "reason", "source_path", "best_value", "witness_json"]
    frames = [read_artifact(p, "problems").to_pandas()[columns] for p in problem_tables]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    flagged = table[table["status"] != "confirmed"].sort_values(["benchmark", "problem_id"], kind="stable")
    write_csv(flagged, output)
    log.info("review: %d of %d problems not confirmed", len(flagged), len(table))
