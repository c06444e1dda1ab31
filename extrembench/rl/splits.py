"""Splits that cannot leak: a `train` row never shares a family with a problem an evaluation
benchmark of the same config asks.

"The same config" is the one a run would use: config.yaml with any --configfile overlays layered
on it as Snakemake layers them (docs/rl.md). Its evaluation benchmarks are `evaluate.benchmarks`;
an extremal benchmark is its whole problem folder (the `limit` sample is a run-size knob, and
experiments/full.yaml and paper.yaml take every file, so the folder is what counts), a variants
benchmark is its parent's folder (a variant shares its parent's family), and a formalized benchmark
is its statements file, whose specs carry no family: its ids are held out. Every other row of an
evaluated family, wherever its file lives (data/instances/ holds other instances of headline
families), is `held_out`, never `train`; so are its variants.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from extrembench.core.config import Config, ExtremalBenchmark, FormalizedBenchmark, VariantsBenchmark
from extrembench.core.files import read_jsonl
from extrembench.problems.problem import Problem, load_problem

TRAIN, HELD_OUT = "train", "held_out"
SPLITS = (TRAIN, HELD_OUT)


def family_of(problem: Problem) -> str:
    """A file without a `family` is a family of its own (its id)."""
    return problem.family or problem.id


@dataclass
class Evaluated:
    """What the config's evaluation benchmarks ask: families (-> the benchmark that asks each),
    the folders they come from, and ids without a family (formalized statements)."""

    families: dict[str, str] = field(default_factory=dict)
    folders: dict[str, str] = field(default_factory=dict)  # resolved folder -> benchmark
    ids: dict[str, str] = field(default_factory=dict)

    def benchmark_of(self, family: str, problem_id: str) -> str | None:
        return self.families.get(family) or self.ids.get(problem_id)


def evaluated(config: Config, workdir: Path = Path(".")) -> Evaluated:
    """The families, folders and ids that `config`'s evaluation benchmarks ask."""
    found = Evaluated()
    for name in config.evaluate.benchmarks:
        bench = config.benchmarks[name]
        if isinstance(bench, VariantsBenchmark):
            bench = config.benchmarks[bench.parent]
        if isinstance(bench, ExtremalBenchmark):
            folder = (workdir / bench.problems).resolve()
            found.folders.setdefault(str(folder), name)
            for path in sorted(folder.glob("*.yaml")):
                found.families.setdefault(family_of(load_problem(path)), name)
        elif isinstance(bench, FormalizedBenchmark):
            for _, record in read_jsonl(workdir / bench.statements):
                if isinstance(record, dict) and isinstance(record.get("id"), str):
                    found.ids.setdefault(record["id"], name)
    return found


def split_of(problem: Problem, folder: Path, asked: Evaluated) -> tuple[str, str | None]:
    """(split, why held out) of a problem file and so of every variant of it."""
    benchmark = asked.folders.get(str(folder.resolve()))
    if benchmark is not None:
        return HELD_OUT, f"its folder is evaluated by benchmark {benchmark!r}"
    benchmark = asked.benchmark_of(family_of(problem), problem.id)
    if benchmark is not None:
        return HELD_OUT, f"family {family_of(problem)!r} is evaluated by benchmark {benchmark!r}"
    return TRAIN, None


def leaks(rows: Iterable[dict], asked: Evaluated) -> list[str]:
    """Every `train` row whose family (or id) an evaluation benchmark asks, or whose folder one
    evaluates: empty when the split holds."""
    found = []
    for row in rows:
        if row["split"] != TRAIN:
            continue
        benchmark = asked.benchmark_of(row["family"], row["parent_id"])
        if benchmark is None and row.get("folder") is not None:
            benchmark = asked.folders.get(str(Path(row["folder"]).resolve()))
        if benchmark is not None:
            found.append(f"{row['id']} (family {row['family']}) is in train but benchmark {benchmark!r} evaluates it")
    return found
