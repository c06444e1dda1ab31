"""Gather the canonical rows: every problem file of the folders asked for, validated (taken from a
pipeline problems table when one holds this very file, else checked here with a bounded,
deterministic budget), its split, the cheap guesses, and its confirmed `constants` variants.

Only confirmed answers with a certificate become rows. The work is bounded by counts (the
validator's starts and iterations, the variant generator's attempts), never by time, so the same
files, settings and code give the same rows on any machine; `jobs` only spreads it over processes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from extrembench.core.artifacts import read_artifact, read_metadata
from extrembench.core.files import sha256_file
from extrembench.generation.constant import folder_constant
from extrembench.problems.problem import Problem, load_problem
from extrembench.rl.rows import cheap_guesses, spec_of, training_row
from extrembench.rl.splits import TRAIN, Evaluated, split_of
from extrembench.sources.variants import Settings, content_hash, variants_of
from extrembench.verify.checker.document import VERIFIER_VERSION
from extrembench.verify.numeric.search import Effort, search_extremum
from extrembench.verify.provers.certify import certificate_json
from extrembench.verify.validate import check_problem

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Budget:
    """How much the export may compute: the validator's effort (the default config's) and the
    variant generator's count of confirmed `constants` variants per problem."""

    seed: int = 0
    starts: int = 14
    iterations: int = 150
    time_cap_s: float = 1800.0  # the validator's safety net only (docs/problem-format.md)
    per_problem: int = 2
    variant_seed: int = 0

    @property
    def effort(self) -> Effort:
        return Effort(starts=self.starts, iterations=self.iterations, time_cap_s=self.time_cap_s)

    def label(self) -> str:
        return f"check:seed={self.seed},starts={self.starts},iterations={self.iterations}"


@dataclass(frozen=True)
class Validated:
    """A confirmed verdict taken from a pipeline table, or checked here."""

    certificate: str
    certificate_kind: str
    certificate_verifier: str | None
    witness: dict | None
    validated_by: str


@dataclass
class Tables:
    """Confirmed rows of pipeline tables: originals by (source path, sha256), constants variants
    by parent id (each joined from the variants table, which holds the plain answer, and the
    variant benchmark's problems table, which holds the certificate)."""

    originals: dict[tuple[str, str], tuple[dict, str]]
    variants: dict[str, list[tuple[dict, dict, str]]]

    @classmethod
    def read(cls, paths: Iterable[Path]) -> Tables:
        problems, variant_rows = [], []
        for path in sorted({Path(p) for p in paths}):
            kind = read_metadata(path).get("extrembench.kind")
            if kind == "problems":
                problems += [(row, str(path)) for row in read_artifact(path, "problems").to_pylist()]
            elif kind == "variants":
                variant_rows += read_artifact(path, "variants").to_pylist()
        confirmed = [(r, p) for r, p in problems if r["status"] == "confirmed" and r["certificate"]]
        originals = {
            (str(Path(r["source_path"]).resolve()), r["source_sha256"]): (r, p)
            for r, p in confirmed
            if "~" not in r["problem_id"]
        }
        certified = {r["problem_id"]: (r, p) for r, p in confirmed if "~" in r["problem_id"]}
        variants: dict[str, list[tuple[dict, dict, str]]] = {}
        for row in sorted(variant_rows, key=lambda r: r["problem_id"]):
            if row["kind"] == "constants" and row["status"] == "confirmed" and row["problem_id"] in certified:
                problem_row, path = certified[row["problem_id"]]
                variants.setdefault(row["parent_id"], []).append((row, problem_row, path))
        return cls(originals, variants)


def _from_table(row: dict, path: str) -> Validated:
    witness = json.loads(row["witness_json"]) if row["witness_json"] else None
    return Validated(
        row["certificate"], row["certificate_kind"], row["certificate_verifier"], witness, f"problems-table:{path}"
    )


def _checked(path: str, budget: Budget) -> tuple[Validated | None, str]:
    result = check_problem(path, seed=budget.seed, effort=budget.effort)  # as `extrembench check` reads the file
    if result.status != "confirmed" or result.certificate is None:
        return None, f"{result.status}: {result.reason}"
    return Validated(
        certificate_json(result.certificate),
        result.certificate["kind"],
        VERIFIER_VERSION,
        result.witness,
        budget.label(),
    ), ""


@dataclass(frozen=True)
class Task:
    path: str
    folder: str
    split: str
    constant: str | None
    budget: Budget
    table: tuple[dict, str] | None  # the pipeline's confirmed row of this very file
    table_variants: tuple[tuple[dict, dict, str], ...]  # the pipeline's confirmed constants variants
    vary: bool


@dataclass
class Outcome:
    path: str
    rows: list[dict]
    skipped: list[str]  # why a problem or variant gave no row


def rows_of(task: Task) -> Outcome:
    """The rows of one problem file: itself and, for a train row, its confirmed constants variants."""
    parent = load_problem(task.path)
    source_sha256 = sha256_file(task.path)
    if task.table is not None:
        validated, why = _from_table(*task.table), ""
    else:
        validated, why = _checked(task.path, task.budget)
    if validated is None:
        return Outcome(task.path, [], [f"{parent.id}: not confirmed ({why[:200]})"])
    common = {"parent": parent, "split": task.split, "folder": task.folder, "source_sha256": source_sha256}
    rows = [
        training_row(
            parent,
            row_id=parent.id,
            kind="original",
            transformation=None,
            certificate=validated.certificate,
            certificate_kind=validated.certificate_kind,
            certificate_verifier=validated.certificate_verifier,
            validated_by=validated.validated_by,
            guesses=cheap_guesses(spec_of(parent), task.constant),
            **common,
        )
    ]
    skipped: list[str] = []
    if task.split != TRAIN or not task.vary:
        return Outcome(task.path, rows, skipped)
    if task.table_variants:
        rows += _table_variant_rows(task, parent, common, skipped)
    else:
        rows += _generated_variant_rows(task, parent, validated, common, skipped)
    return Outcome(task.path, rows, skipped)


def _variant_row(
    task: Task, variant: Problem, row_id: str, transformation: str, validated: Validated, common: dict
) -> dict:
    return training_row(
        variant,
        row_id=row_id,
        kind="constants",
        transformation=transformation,
        certificate=validated.certificate,
        certificate_kind=validated.certificate_kind,
        certificate_verifier=validated.certificate_verifier,
        validated_by=validated.validated_by,
        guesses=cheap_guesses(spec_of(variant, row_id), task.constant),
        **common,
    )


def _generated_variant_rows(
    task: Task, parent: Problem, validated: Validated, common: dict, skipped: list
) -> list[dict]:
    budget = task.budget
    candidates = variants_of(
        parent,
        Settings(per_problem=budget.per_problem, seed=budget.variant_seed, kinds=("constants",)),
        check=lambda p: check_problem(p, seed=budget.seed, effort=budget.effort),
        search=lambda p: search_extremum(p, seed=budget.seed, effort=budget.effort),
        parent_witness=validated.witness,
    )
    rows = []
    for c in candidates:
        if c.status != "confirmed" or c.certificate is None:
            skipped.append(f"{c.variant_id}: {c.drop_reason or 'no certificate'}")
            continue
        certificate = Validated(
            certificate_json(c.certificate), c.certificate["kind"], VERIFIER_VERSION, c.witness, budget.label()
        )
        rows.append(_variant_row(task, c.problem, c.variant_id, c.transformation_text(), certificate, common))
    return rows


def _table_variant_rows(task: Task, parent: Problem, common: dict, skipped: list) -> list[dict]:
    rows = []
    for variant_row, problem_row, path in task.table_variants:
        spec = json.loads(variant_row["spec_json"])
        variant = replace(
            parent,
            id=variant_row["problem_id"],
            variables=spec["variables"],
            constraints=tuple(spec["constraints"]),
            objective=spec["objective"],
            answer=variant_row["answer"],
            statement=variant_row["statement"],
        )
        if (
            variant_row["parent_sha256"] != common["source_sha256"]
            or content_hash(variant) != variant_row["content_sha256"]
        ):
            skipped.append(f"{variant_row['problem_id']}: the table's variant is of another version of {parent.id}")
            continue
        rows.append(
            _variant_row(
                task,
                variant,
                variant_row["problem_id"],
                variant_row["transformation"],
                _from_table(problem_row, path),
                common,
            )
        )
    return rows


def plan(
    folders: Sequence[Path], asked: Evaluated, *, budget: Budget, tables: Tables | None = None, vary: bool = True
) -> list[Task]:
    """One task per problem file of `folders`, in a fixed order."""
    tables = tables or Tables({}, {})
    tasks = []
    for folder in folders:
        constant = folder_constant(str(folder))
        for path in sorted(Path(folder).glob("*.yaml")):
            problem = load_problem(path)
            split, _ = split_of(problem, Path(folder), asked)
            table = tables.originals.get((str(path.resolve()), sha256_file(path)))
            tasks.append(
                Task(
                    str(path),
                    str(folder),
                    split,
                    constant,
                    budget,
                    table,
                    tuple(tables.variants.get(problem.id, ())),
                    vary,
                )
            )
    return tasks


def collect(tasks: Sequence[Task], *, jobs: int = 1, progress=None) -> tuple[list[dict], list[str]]:
    """Run the tasks (on `jobs` processes); rows and skip reasons in task order."""
    rows, skipped = [], []
    if jobs <= 1:
        outcomes = map(rows_of, tasks)
    else:
        pool = ProcessPoolExecutor(max_workers=jobs)
        outcomes = pool.map(rows_of, tasks)
    try:
        for number, outcome in enumerate(outcomes, start=1):
            rows += outcome.rows
            skipped += outcome.skipped
            if progress is not None:
                progress(number, len(tasks), outcome)
    finally:
        if jobs > 1:
            pool.shutdown()
    return rows, skipped
