"""The figures docs/scaling.md states about the paper grid are the code's: its plan table is what
`extrembench plan` prints for experiments/paper.yaml, and its job and request counts are what
`snakemake -n` and the plan count now. Edit the grid, the problems or the plan and this fails,
naming the stale line, instead of the page quietly going out of date (it said 5,070 requests and
146 jobs while the code planned 9,243 and 148)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_shared_data

REPO = Path(__file__).resolve().parents[1]
SCALING = REPO / "docs" / "scaling.md"
PAPER = REPO / "experiments" / "paper.yaml"
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def _workdir(tmp_path: Path) -> Path:
    for name in ("config.yaml", "data"):
        (tmp_path / name).symlink_to(REPO / name)
    require_shared_data(("aime2025",))  # the paper grid reads the AIME 2025 local copy
    return tmp_path


def _plan(workdir: Path, *options: str) -> str:
    command = [sys.executable, "-m", "extrembench.cli", "plan", "--directory", str(workdir), "--configfile", str(PAPER)]
    result = subprocess.run([*command, *options], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _row(text: str, first_cell: str) -> list[str]:
    """The cells of the Markdown table row of `text` whose first cell is `first_cell`."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            return cells
    raise AssertionError(f"docs/scaling.md: no table row starting with {first_cell!r}")


def _number(cell: str) -> int:
    return int(re.sub(r"[~,]", "", cell))


@pytest.mark.slow  # ~2 s: one plan run
def test_scaling_plan_table_and_request_counts_are_what_the_plan_prints(tmp_path):
    import json

    workdir = _workdir(tmp_path)
    doc = SCALING.read_text()
    table = [line for line in _plan(workdir).splitlines() if line.startswith("|")]
    stale = [line for line in table if line not in doc.splitlines()]
    assert not stale, "docs/scaling.md's plan table differs from `extrembench plan`; now:\n" + "\n".join(stale)
    totals = json.loads(_plan(workdir, "--json"))["totals"]
    storage = _row(doc, "paper")  # | paper | requests | Parquet | cache | cache files |
    assert (_number(storage[1]), _number(storage[4])) == (totals["requests"], totals["requests"]), storage
    assert _number(_row(doc, "**total**")[6]) == totals["requests"]


@pytest.mark.slow  # ~6 s: a dry run of the paper grid
def test_scaling_job_count_is_what_snakemake_plans(tmp_path):
    workdir = _workdir(tmp_path)
    command = [str(SNAKEMAKE), "-n", "--quiet", "rules", "--snakefile", str(REPO / "Snakefile")]
    command += ["--directory", str(workdir), "--configfile", str(PAPER)]
    result = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    counts = {
        m.group(1): int(m.group(2))
        for line in (result.stdout + result.stderr).splitlines()
        if (m := re.fullmatch(r"(\w+)\s+(\d+)", line.strip()))
    }
    doc = SCALING.read_text()
    row = _row(doc, "paper (`experiments/paper.yaml`)")  # | grid | size | shards | jobs | generate jobs | …
    assert _number(row[3]) == counts.get("total", sum(counts.values())), row
    assert _number(row[4]) == counts["generate"], row
    # the per-rule table: one job per shard for the build rules, 5 single jobs
    singles = _row(doc, "aggregate, plot, compare, review, misses_report, all")
    assert _number(singles[1]) == sum(
        counts[r] for r in ("aggregate", "plot", "compare", "review", "misses_report", "all")
    )
    names = {r for r in counts if r != "total"}
    listed = set(
        re.findall(
            r"\b([a-z_]+)\b", " ".join(line for line in doc.split("## Job counts")[1].split("| grid |")[0].splitlines())
        )
    )
    assert names <= listed, f"rules missing from docs/scaling.md's job table: {sorted(names - listed)}"
