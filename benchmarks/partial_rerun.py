"""Partial rerun cost: a full run of the default pipeline vs the rerun after editing one problem.

Runs in a fresh temporary workdir with its own (empty) cache, so both figures are measured in
the same run on the same machine. Prints full-run wall time, rerun wall time, their ratio, and
the requests sent vs served from cache by the rerun.

    .venv/bin/python benchmarks/partial_rerun.py [--problems N] [--keep] [--quick]

Verdict: the rerun sends exactly LLM models x trials requests (the edited problem's), the rest comes
from the cache. --quick runs the same two snakemake runs on a smaller default: two cheap problems
in one shard, one trial, no variants benchmark, the LLM models only (gemma3-270m) answering in at
most 8 tokens; the wall-time ratio is printed, as always, and has no target.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from _verdict import run, verdict

from extrembench.generation.solvers import SOLVERS

REPO = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(
    r"(\d+) LLM request\(s\) sent, (\d+) reference-solver answer\(s\) computed, "
    r"(\d+) served from cache"
)
# --quick: two problems whose validation (with certificates) takes a second or two; the edited one is the
# second (ineq-0131, a bound certificate), whose doubled objective and answer stay confirmed
QUICK_PROBLEMS = ("ineq-0079", "ineq-0131")


def run_snakemake(workdir: Path) -> tuple[float, tuple[int, int, int]]:
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--profile",
        str(REPO / "profiles" / "local"),
    ]
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"snakemake failed:\n{result.stderr[-4000:]}")
    match = SUMMARY.search(result.stderr)
    counts = tuple(int(g) for g in match.groups()) if match else (0, 0, 0)
    return elapsed, counts


def edit_one_problem(problems: Path) -> Path:
    """Double one problem's objective and answer: a real change of the problem (and so of its
    rendered statement and prompt) that stays confirmed. Its source inequality is dropped, since
    the doubled objective no longer matches it term for term."""
    path = sorted(problems.glob("*.yaml"))[len(list(problems.glob("*.yaml"))) // 2]
    data = yaml.safe_load(path.read_text())
    data["objective"] = f"2*({data['objective']})"
    data["answer"] = f"2*({data['answer']})"
    data.pop("statement", None)
    if isinstance(data.get("source"), dict):
        data["source"].pop("inequality", None)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return path


def quick_config(config: dict) -> dict:
    """The default config made small; every stage still runs."""
    extrem = config["benchmarks"]["extrem"]
    extrem.update(shards=1, trials=1)
    extrem.pop("variants", None)
    config["evaluate"]["benchmarks"] = ["extrem"]
    # the LLM models only: theirs are the requests the figure counts; each solver model would add a
    # generate and a grade job (seconds of start-up each) to both runs
    config["evaluate"]["models"] = [
        m for m in config["evaluate"]["models"] if config["models"][m]["backend"] not in SOLVERS
    ]
    for name in config["evaluate"]["models"]:
        config["models"][name].setdefault("sampling", {})["max_tokens"] = 8
    return config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=None, help="use only the first N problems")
    parser.add_argument("--keep", action="store_true", help="keep the temporary workdir")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"problems {', '.join(QUICK_PROBLEMS)}, one shard, one trial, no variants, LLM models only, 8 tokens",
    )
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="extrembench-rerun-"))
    try:
        problems = workdir / "problems"
        problems.mkdir()
        files = sorted((REPO / "data" / "problems").glob("*.yaml"))[: args.problems]
        if args.quick:
            files = [path for path in files if path.stem in QUICK_PROBLEMS]
        if not files:
            return verdict(["no problem files to run on"], "")
        for path in files:
            shutil.copy(path, problems / path.name)
        config = yaml.safe_load((REPO / "config.yaml").read_text())
        config["benchmarks"]["extrem"]["problems"] = "problems"
        config["cache_dir"] = "cache"
        if args.quick:
            config = quick_config(config)
        (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

        full_s, full_counts = run_snakemake(workdir)
        edited = edit_one_problem(problems)
        rerun_s, (sent, computed, cached) = run_snakemake(workdir)
        trials = config["benchmarks"]["extrem"]["trials"]
        llm_models = sum(config["models"][m]["backend"] not in SOLVERS for m in config["evaluate"]["models"])
        print(f"problems: {len(files)}, trials: {trials}, LLM models: {llm_models}")
        print(f"full run:             {full_s:8.1f} s  ({full_counts[0]} LLM requests sent)")
        print(f"rerun after one edit: {rerun_s:8.1f} s  (edited {edited.name})")
        print(f"ratio rerun / full:   {rerun_s / full_s:8.3f}")
        print(
            f"rerun requests: {sent} sent (expected {llm_models * trials} = LLM models × trials), "
            f"{computed} computed by the non-LLM solvers, {cached} served from cache"
        )
        failures = (
            []
            if sent == llm_models * trials
            else [f"the rerun sent {sent} LLM requests, expected {llm_models * trials} (LLM models × trials)"]
        )
        if not full_counts[0]:
            failures.append("the full run sent no LLM request: the rerun figure measures nothing")
        return verdict(
            failures,
            f"the rerun after one edit sent only the edited problem's {sent} LLM requests, "
            f"{cached} served from cache (rerun/full time {rerun_s / full_s:.3f}, no target)",
        )
    finally:
        if args.keep:
            print(f"workdir kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(run(main))
