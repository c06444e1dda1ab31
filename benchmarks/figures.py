"""The run figures README and docs state, measured by running what produces them, written into the
pages from one file, and checked: a page whose figure was edited by hand, or a figure measured on
other code or data than the checkout's, fails `--quick` (tests/test_readme_figures.py runs it).

    python benchmarks/figures.py measure [--default-run] [--whole-set] [--problem-set]   # run, record, render
    python benchmarks/figures.py render    # rewrite the marked blocks of the pages from the record
    python benchmarks/figures.py --quick   # check only: the blocks and the record's fingerprints

`measure --default-run` runs README's command 1 pipeline (`snakemake --profile profiles/local` in
the checkout, timed) and reads its leaderboard, problem table and variants; `measure --whole-set`
validates every shipped problem file through the pipeline's own stage functions (translate, convert,
validate) in two processes, timed, and counts statuses and certificate kinds; `measure --problem-set`
describes the headline set as benchmarks/problem_set.py does (guesses, difficulty, families, citations,
near-duplicates) and counts the folders beside it. Each measurement is
stored in docs/figures/measured.json with the fingerprint of what it depends on (code, rules,
config, problem files); a page's figures live between `<!-- measured:NAME -->` and
`<!-- /measured -->` and are rendered from that record only, so a figure is never typed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _verdict import run, verdict

REPO = Path(__file__).resolve().parents[1]
RECORD = REPO / "docs" / "figures" / "measured.json"
PAGES = ("README.md", "docs/problem-format.md")
BLOCK = re.compile(r"<!-- measured:(?P<name>[\w-]+) -->\n(?P<body>.*?)<!-- /measured -->", re.S)
# What a figure depends on: the code that computes it, the workflow, the config and the problem files.
FINGERPRINTED = ("extrembench/**/*.py", "scripts/*.py", "rules/*.smk", "Snakefile", "config.yaml", "data/**/*.yaml")
# The set is validated as PARTS shards (every PARTS-th file) handed one at a time to WORKERS spawned
# processes, one per core: with two fixed halves one core sat idle for minutes while the other
# finished its half's slow files. Per-file work and bytes do not depend on the split.
PARTS = 12
WORKERS = 2


def fingerprint(root: Path = REPO) -> str:
    """sha256 over the path and bytes of every file a figure depends on, in a fixed order."""
    digest = hashlib.sha256()
    files = sorted({p for pattern in FINGERPRINTED for p in root.glob(pattern) if p.is_file()})
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# ---------------------------------------------------------------- measuring
def measure_default_run() -> dict:
    snakemake = Path(sys.executable).with_name("snakemake")
    started = time.perf_counter()
    subprocess.run([str(snakemake), "--profile", "profiles/local"], cwd=REPO, check=True)
    minutes = (time.perf_counter() - started) / 60
    return {"wall_minutes": round(minutes, 1), **read_default_run(REPO / "results")}


def read_default_run(results: Path) -> dict:
    import pandas as pd

    board = pd.read_parquet(results / "leaderboard.parquet")
    rows = {}
    for row in board.itertuples():
        rows.setdefault(row.benchmark, {})[row.model] = {
            "accuracy": round(100 * row.accuracy_mean, 1),
            "ci": [round(100 * row.ci_low, 1), round(100 * row.ci_high, 1)],
            "n_problems": int(row.n_problems),
            "n_trials": int(row.n_trials),
            "no_answer": round(row.no_answer_rate * row.n_samples),
        }
    problems = pd.concat(pd.read_parquet(p) for p in sorted((results / "extrem" / "problems").glob("*.parquet")))
    variants = pd.concat(
        pd.read_parquet(p) for p in sorted((results / "extrem-variants" / "problems").glob("*.parquet"))
    )
    confirmed = variants[variants["status"] == "confirmed"]
    parents = confirmed["problem_id"].map(lambda pid: pid.split("~")[0] if "~" in pid else pid)
    fresh = pd.concat(pd.read_parquet(p) for p in sorted((results / "extrem-fresh" / "problems").glob("*.parquet")))
    split = pd.read_parquet(results / "tables" / "date_split.parquet")
    pooled = split[(split["benchmark"] == "all benchmarks") & split["split_date"].notna()]
    return {
        "leaderboard": rows,
        "problems": len(problems),
        "statuses": dict(sorted(Counter(problems["status"]).items())),
        "certificates": _certificates(problems),
        "variants": {"confirmed": len(confirmed), "parents": int(parents.nunique())},
        "fresh": {"problems": len(fresh), "certificates": _certificates(fresh)},
        "date_split": {
            row.model: {
                "split_date": row.split_date,
                "before": [int(row.n_before), round(100 * row.accuracy_before, 1)],
                "after": [int(row.n_after), round(100 * row.accuracy_after, 1)],
            }
            for row in pooled.itertuples()
        },
    }


def _certificates(problems) -> dict:
    return dict(sorted(Counter(problems.loc[problems["status"] == "confirmed", "certificate_kind"]).items()))


def _validate_part(part: int, out: str) -> str:
    from extrembench.core.config import Validation
    from extrembench.sources.convert import convert_shard
    from extrembench.sources.translate import translate_shard
    from extrembench.verify.stage import validate_shard

    files = sorted(str(p.relative_to(REPO)) for p in (REPO / "data" / "problems").glob("*.yaml"))[part::PARTS]
    folder = Path(out) / f"part-{part}"
    translate_shard(files, folder / "translate.parquet", benchmark="extrem", dag_node="t")
    convert_shard(files, folder / "translate.parquet", folder / "convert.parquet", benchmark="extrem", dag_node="c")
    validate_shard(
        files,
        folder / "convert.parquet",
        folder / "problems.parquet",
        benchmark="extrem",
        dag_node="v",
        settings=Validation(),
    )
    return str(folder / "problems.parquet")


def validate_whole_set(out: str) -> list[str]:
    """The problems tables of every shipped file, PARTS of them validated in WORKERS spawned
    processes (spawn, not fork: a test process may hold threads, and a forked child can wait on a
    lock one of them held); run from the checkout, which the stage functions record paths relative to."""
    with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(_validate_part, range(PARTS), [out] * PARTS))


def measure_whole_set() -> dict:
    import pandas as pd

    os.chdir(REPO)  # the stage functions record problem paths relative to the checkout
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        tables = validate_whole_set(out)
        seconds = time.perf_counter() - started
        problems = pd.concat(pd.read_parquet(t) for t in tables)
    return {"seconds": round(seconds), **whole_set_counts(problems)}


def whole_set_counts(problems) -> dict:
    """Statuses and certificate kinds of a problem table, counted and per file: what
    tests/test_shipped_certificates.py computes again and compares with the record, and what
    tests/test_metamorphic.py compares each changed file's verdict with."""
    confirmed = problems[problems["status"] == "confirmed"]
    kinds = problems["certificate_kind"].where(problems["status"] == "confirmed", None)
    return {
        "problems": len(problems),
        "statuses": dict(sorted(Counter(problems["status"]).items())),
        "certificates": dict(sorted(Counter(confirmed["certificate_kind"]).items())),
        "verdicts": {
            pid: [status, kind] for pid, status, kind in sorted(zip(problems["problem_id"], problems["status"], kinds))
        },
        # each certificate's bytes, so a run on another CPU or path can be held to the same ones
        "certificate_sha256": {
            pid: hashlib.sha256(text.encode()).hexdigest() if isinstance(text, str) else None
            for pid, text in sorted(zip(problems["problem_id"], problems["certificate"]))
        },
    }


def measure_problem_set(root: Path = REPO) -> dict:
    """The shipped set's description (benchmarks/problem_set.py's rows, guesses included, no
    equality-case search) and the sizes of the folders beside it."""
    import problem_set

    from extrembench.problems.duplicates import find_duplicates
    from extrembench.problems.problem import load_problem

    files = sorted(str(p) for p in (root / "data" / "problems").glob("*.yaml"))
    constant, rows = problem_set.describe_files(files, files, None)

    def count(predicate) -> int:
        return sum(1 for row in rows if predicate(row))

    def folder(name: str) -> dict:
        paths = sorted((root / "data" / name).glob("*.yaml"))
        if name == "rejected":  # conversion mistakes: some do not load, by design
            return {"files": len(paths)}
        return {"files": len(paths), "families": len({load_problem(p).family or p.stem for p in paths})}

    competition = [row for row in rows if row["competition"]]
    return {
        "problems": len(rows),
        "families": len({row["family"] for row in rows}),
        "difficulty": dict(sorted(Counter(row["declared"] for row in rows).items())),
        "four_or_more_variables": count(lambda r: r["variables"] >= 4),
        "guessed": {
            "symmetric": count(lambda r: r["at_symmetric_point"]),
            "boundary": count(lambda r: r["at_boundary_point"]),
            "constant": count(lambda r: r["at_constant"]),
            "any": count(problem_set._guessed),
        },
        "constant_answer": str(constant),
        "competition_references": len(competition),
        "competition_references_complete": sum(1 for row in competition if row["citation_complete"]),
        "near_duplicate_pairs": len(find_duplicates([load_problem(p) for p in files])),
        "folders": {name: folder(name) for name in ("instances", "guessable", "unnumbered", "rejected", "fresh")},
        "dated": sum(load_problem(p).date is not None for p in files),
    }


# ---------------------------------------------------------------- rendering
def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %"


def _default_run_text(m: dict) -> str:
    board = m["leaderboard"]["extrem"]
    first = next(iter(board.values()))
    models = ", ".join(
        f"{name} {row['accuracy']} % ({row['ci'][0]}–{row['ci'][1]} %)" for name, row in sorted(board.items())
    )
    certs = m["certificates"]
    variants = m["leaderboard"].get("extrem-variants", {}).get("reference-solver")
    lines = [
        f"*The default run ({first['n_problems']} problems × {first['n_trials']} trials; accuracy with its 95 %",
        f"bootstrap interval over problems): {models}.",
        f"Of the {m['problems']} problems, {m['statuses'].get('confirmed', 0)} are confirmed:",
        ", ".join(f"{n} `{kind}`" for kind, n in certs.items()) + " certificates.",
        f"Variants: {m['variants']['confirmed']} confirmed variants of {m['variants']['parents']} problems"
        + (f", where the reference solver scores {variants['accuracy']} %." if variants else "."),
        *_fresh_lines(m),
        f"The whole run took {m['wall_minutes']} min on the 2-core machine the record was made on.*",
    ]
    return "\n".join(lines) + "\n"


def _fresh_lines(m: dict) -> list[str]:
    """The fresh slice's accuracies and each dated model's accuracy before and after its date."""
    board = m["leaderboard"].get("extrem-fresh", {})
    if not board:
        return []
    models = ", ".join(f"{name} {row['accuracy']} %" for name, row in sorted(board.items()))
    certs = ", ".join(f"{n} `{kind}`" for kind, n in m["fresh"]["certificates"].items())
    split = "; ".join(
        f"{name} (cut-off {row['split_date']}) {row['before'][1]} % on {row['before'][0]} problems dated before it, "
        f"{row['after'][1]} % on {row['after'][0]} after"
        for name, row in sorted(m["date_split"].items())
    )
    return [
        f"Fresh slice (`extrem-fresh`, {m['fresh']['problems']} problems from 2025-2026 contests; {certs}):",
        f"{models}. By date: {split}." if split else f"{models}.",
    ]


def _whole_set_text(m: dict) -> str:
    certs, n = m["certificates"], m["problems"]
    proven = certs.get("bound", 0) + certs.get("sos", 0)
    statuses = ", ".join(f"{k} {v}" for k, v in m["statuses"].items())
    return (
        f"The whole shipped set ({n} files) validated through the pipeline's stage functions in two\n"
        f"processes took {m['seconds']} s on the 2-core machine the record was made on: {statuses};\n"
        f"certificates " + ", ".join(f"`{k}` {v}" for k, v in certs.items()) + f", so {_pct(proven, n)} are proven\n"
        f"(`bound` or `sos`).\n"
    )


def _problem_set_text(m: dict) -> str:
    n, guessed, folders = m["problems"], m["guessed"], m["folders"]
    difficulty = ", ".join(f"{k} {v} ({_pct(v, n)})" for k, v in m["difficulty"].items())
    return (
        f"`data/problems/` holds {n} problems of {m['families']} families, and "
        f"{m['near_duplicate_pairs']} near-duplicate pairs by `extrembench.problems.duplicates`.\n"
        f"Difficulty (the technique a solution needs, judged per file): {difficulty}.\n"
        f"{_pct(m['four_or_more_variables'], n)} have 4 or more variables. The cheap guesses answer:\n"
        f"`symmetric-guess` {_pct(guessed['symmetric'], n)}, `boundary-guess` {_pct(guessed['boundary'], n)},\n"
        f"`constant-guess` {_pct(guessed['constant'], n)} (the set's most frequent answer is "
        f"{m['constant_answer']}), any of them {_pct(guessed['any'], n)}.\n"
        f"{m['competition_references_complete']} of {m['competition_references']} competition references "
        f"carry their year and problem number.\n"
        f"Beside it: `data/instances/` {folders['instances']['files']} files of "
        f"{folders['instances']['families']} families, `data/guessable/` {folders['guessable']['files']},\n"
        f"`data/unnumbered/` {folders['unnumbered']['files']}, `data/rejected/` {folders['rejected']['files']} "
        f"conversion mistakes, `data/fresh/` {folders['fresh']['files']} problems from 2025-2026 contests.\n"
        f"{m['dated']} of the {n} headline files are dated (the year their citation gives).\n"
    )


RENDERERS = {"default-run": _default_run_text, "whole-set": _whole_set_text, "problem-set": _problem_set_text}


def render_page(text: str, record: dict) -> str:
    def block(match: re.Match) -> str:
        name = match["name"]
        body = RENDERERS[name](record[name]) if name in record else match["body"]
        return f"<!-- measured:{name} -->\n{body}<!-- /measured -->"

    return BLOCK.sub(block, text)


def load_record() -> dict:
    return json.loads(RECORD.read_text()) if RECORD.exists() else {}


def render(record: dict) -> None:
    for page in PAGES:
        path = REPO / page
        path.write_text(render_page(path.read_text(), record))


# ---------------------------------------------------------------- checking
def stale_blocks(text: str, page: str, record: dict) -> list[str]:
    """Each marked block of a page whose text is not what its measurement renders, named."""
    found = []
    for match in BLOCK.finditer(text):
        name = match["name"]
        if name not in record:
            found.append(f"{page}: block {name!r} has no measurement in {RECORD.relative_to(REPO)}")
        elif match["body"] != RENDERERS[name](record[name]):
            found.append(f"{page}: block {name!r} differs from its measurement (edited by hand?); run render")
    return found


def problems(record: dict) -> list[str]:
    """Each stale thing, named: a block whose text differs from its rendering, a block with no
    measurement, a measurement made on other code or data than the checkout's."""
    found, current, used = [], fingerprint(), set()
    for page in PAGES:
        text = (REPO / page).read_text()
        found += stale_blocks(text, page, record)
        used |= {match["name"] for match in BLOCK.finditer(text)}
    for name in sorted(used & set(record)):
        if record[name]["fingerprint"] != current:
            found.append(
                f"{name}: measured on other code, rules, config or problem files than this checkout's; "
                f"run `python benchmarks/figures.py measure --{name}`"
            )
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", nargs="?", choices=("measure", "render", "check"), default="check")
    parser.add_argument("--default-run", action="store_true")
    parser.add_argument("--whole-set", action="store_true")
    parser.add_argument("--problem-set", action="store_true")
    parser.add_argument("--quick", action="store_true", help="check only (what CI runs)")
    args = parser.parse_args()
    record = load_record()
    if args.action == "measure" and not args.quick:
        for name, wanted, measure in (
            ("default-run", args.default_run, measure_default_run),
            ("whole-set", args.whole_set, measure_whole_set),
            ("problem-set", args.problem_set, measure_problem_set),
        ):
            if wanted:
                record[name] = {**measure(), "fingerprint": fingerprint()}
                RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    if args.action in ("measure", "render") and not args.quick:
        render(record)
    for name, measured in sorted(record.items()):
        print(f"{name}: " + json.dumps({k: v for k, v in measured.items() if k != "fingerprint"}, sort_keys=True))
    stale = problems(record)
    for line in stale:
        print(line)
    return verdict(stale, f"{len(record)} measurements, every marked block of {', '.join(PAGES)} rendered from them")


if __name__ == "__main__":
    sys.exit(run(main))
