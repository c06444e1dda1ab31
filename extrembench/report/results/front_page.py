"""The HTML report's first screen: this run's leaderboard as a table (reStructuredText, which
`snakemake --report` renders as the workflow description beside the rule graph), with the interval
method and n, and where the full tables are. Written by aggregate beside the leaderboard files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from extrembench.core.files import write_bytes_atomic
from extrembench.report.results.leaderboard import percent_text

TITLE = "Results of this run"


def _cell(text: str) -> str:
    # names are identifiers (core.config); escaping keeps a stray backslash or asterisk literal,
    # and a brace never reaches the Jinja pass snakemake runs over this text
    return "".join("\\" + c if c in "\\*`|_" else c for c in text).replace("{", "(").replace("}", ")")


def front_page(leaderboard: pd.DataFrame) -> str:
    rows = [("benchmark", "model", "accuracy %", "95 % CI", "n (problems × trials)")]
    for r in leaderboard.sort_values(["benchmark", "accuracy_mean"], ascending=[True, False]).to_dict("records"):
        rows.append(
            (
                _cell(str(r["benchmark"])),
                _cell(str(r["model"])),
                f"{percent_text(r['accuracy_mean'])} ± {percent_text(r['accuracy_std'])}",
                f"[{percent_text(r['ci_low'])}, {percent_text(r['ci_high'])}]",
                f"{int(r['n_problems'])} × {int(r['n_trials'])}",
            )
        )
    table = [".. list-table:: Leaderboard", "   :header-rows: 1", "   :class: leaderboard", ""]
    for row in rows:
        table += [f"   * - {row[0]}"] + [f"     - {cell}" for cell in row[1:]]
    if leaderboard.empty:
        table = ["No benchmark of this run had a problem to ask (the end-of-run summary names why)."]
    body = [
        TITLE,
        "=" * len(TITLE),
        "",
        *table,
        "",
        "Accuracy: mean over trials of the per-trial accuracy, ± the standard deviation across trials. "
        "The 95 % interval is a two-level bootstrap (problems, then trials within a problem). "
        "Ungraded samples are scored wrong unless the run sets ``grading.ungraded: exclude``; "
        "definitions in docs/metrics.md.",
        "",
        "Every column: the Leaderboard category below (leaderboard.csv) and results/leaderboard.md. "
        "Trace a row to its samples, problems and code with ``extrembench audit --benchmark B --model M``.",
        "",
    ]
    return "\n".join(body)


def write_front_page(leaderboard: pd.DataFrame, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, front_page(leaderboard).encode())
    return path
