"""The review rule's job: the table a curator reads, every built problem not confirmed, with why."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from extrembench.core.artifacts import read_artifact, write_csv

log = logging.getLogger(__name__)

# A cell starting with one of these is read as a formula by spreadsheet programs (OWASP "CSV
# injection"): a problem file named `=HYPERLINK(...).yaml` would become a live link in review.csv.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """`value` for a CSV cell a curator opens in a spreadsheet: text that would start a formula gets
    a leading apostrophe (shown, never evaluated), and a carriage return is written as `\\r` (the CSV
    writer leaves it unquoted, so a reader would split the row there); anything else, and the
    Parquet tables, unchanged."""
    if not isinstance(value, str):
        return value
    return ("'" if value.startswith(FORMULA_STARTS) else "") + value.replace("\r", "\\r")


def review_table(problem_tables: Sequence[str], output: Path) -> None:
    """Every built problem the validator did not confirm, with why: what a curator reviews."""
    import pandas as pd  # deferred: pandas costs start-up time and only this path needs it

    columns = ["benchmark", "problem_id", "status", "reason", "source_path", "best_value", "witness_json"]
    frames = [read_artifact(p, "problems").to_pandas()[columns] for p in problem_tables]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    flagged = table[table["status"] != "confirmed"].sort_values(["benchmark", "problem_id"], kind="stable")
    text = ["benchmark", "problem_id", "status", "reason", "source_path", "witness_json"]
    write_csv(flagged.assign(**{c: flagged[c].map(spreadsheet_safe) for c in text}), output)
    log.info("review: %d of %d problems not confirmed", len(flagged), len(table))
