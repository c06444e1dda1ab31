"""Glue between a Snakemake `script:` job and the library: logging to the rule's log file and
the job's DAG node name (rule + wildcards), recorded on every row it writes."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from pathlib import Path

from extrembench.core.provenance import dag_node


def start_job(smk) -> str:
    """Log to the job's log file and stderr; return its DAG node name."""
    log_file = smk.log.get("job") if hasattr(smk.log, "get") and smk.log.get("job") else smk.log[0]
    handlers = [logging.FileHandler(log_file, mode="w", encoding="utf-8"), logging.StreamHandler(sys.stderr)]
    node = dag_node(smk.rule, dict(smk.wildcards.items()))
    # the job's name on every line: jobs run side by side and their lines interleave on the console
    logging.basicConfig(
        level=logging.INFO,
        handlers=handlers,
        force=True,
        format=f"%(asctime)s %(levelname)s [{node.replace('%', '%%')}] %(name)s: %(message)s",
    )
    # httpx logs every request at INFO: too much for thousands of requests.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    _log_uncaught_exceptions()
    return node


def _log_uncaught_exceptions() -> None:
    """A job that dies on an exception leaves its traceback in the rule's log file (Snakemake
    prints only its own wrapper's error to the console)."""
    previous = sys.excepthook

    def hook(kind, value, traceback):
        if not issubclass(kind, KeyboardInterrupt):
            logging.getLogger("extrembench.job").critical("job failed", exc_info=(kind, value, traceback))
            for handler in logging.getLogger().handlers:
                handler.flush()
        previous(kind, value, traceback)

    sys.excepthook = hook


def remove_stale_results(paths: Iterable[str], started: float) -> list[str]:
    """After a failed run: remove the result files (leaderboard, tables, figures and their PDF
    twins) this run did not rewrite. A job upstream of them failed, so they describe inputs that
    no longer exist; left in place they would look current. The next successful run rebuilds
    them. Returns the removed paths."""
    removed = []
    for path in paths:
        for candidate in (Path(path), Path(path).with_suffix(".pdf")):
            try:
                if candidate.stat().st_mtime < started:
                    candidate.unlink()
                    removed.append(str(candidate))
            except FileNotFoundError:
                continue
    return removed
