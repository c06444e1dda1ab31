"""Audit's re-check of a problems table: each row's gold answer against where it came from, and
each certificate through the trusted checker.

A problems table's sha256 only says downstream files were built from it; a gold answer edited in
the Parquet file and rerun through the pipeline has matching hashes everywhere. So each row's
answer is derived again from its source: a curated problem file (or structured inequality) is
converted again; a conversion by an LLM is compared with the conversions table (whose record of
the raw output the walk rechecks); an ingested dataset is read again from its checksum-verified
files; a variant's answer with the variants table. Then `verify-certificate`'s row check runs on
every row, so a certificate that no longer proves the row's gold fails too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from extrembench.core.artifacts import lineage_inputs, read_artifact, read_lineage
from extrembench.problems.derive import convert_problem
from extrembench.problems.problem import load_problem
from extrembench.problems.statement import gold_text
from extrembench.sources.ingest import DATASETS, load_benchmark
from extrembench.verify.checker.cli import check_row

FROM_FILE = ("curated", "inequality")  # conversions the problem file itself determines


@dataclass
class ProblemCheck:
    answers: int = 0  # rows whose answer was re-derived from a source
    certificates: int = 0
    uncertified: int = 0  # variants: confirmed by the validator, carrying no certificate
    problems: list[str] = field(default_factory=list)


def _from_conversions(conversions: Path, rows: list[dict], check: ProblemCheck) -> dict[str, tuple[str | None, str]]:
    by_id = {c["problem_id"]: c for c in read_artifact(conversions, "conversions").to_pylist()}
    expected: dict[str, tuple[str | None, str]] = {}
    for row in rows:
        conv = by_id.get(row["problem_id"])
        if conv is None:
            check.problems.append(f"{row['problem_id']}: no conversion row in {conversions}")
            continue
        answer, where = conv["answer"], f"{conversions} (converted by {conv['converted_by']})"
        if conv["converted_by"] in FROM_FILE and conv["error"] is None:
            try:
                answer = convert_problem(load_problem(conv["source_path"]))[0].answer
                where = conv["source_path"]
            except Exception as exc:  # the file no longer loads: the walk names the changed file too
                check.problems.append(f"{row['problem_id']}: {conv['source_path']} cannot be read again: {exc}")
                continue
            if answer != conv["answer"]:
                check.problems.append(
                    f"{row['problem_id']}: {conversions}: answer {conv['answer']!r} differs from its source "
                    f"{where} ({answer!r})"
                )
        expected[row["problem_id"]] = (gold_text(answer, row["status"]), where)
    return expected


def _from_dataset(path: Path, rows: list[dict]) -> dict[str, tuple[str | None, str]]:
    """The answers of an ingested table, read again from the dataset files its lineage names."""
    paths = [record["path"] for record in read_lineage(path)]
    for name, spec in DATASETS.items():
        if (
            spec.files
            and len(paths) == len(spec.files)
            and all(p.endswith("/" + f) for p, f in zip(paths, sorted(spec.files)))
        ):
            first = sorted(spec.files)[0]
            root = Path(paths[0][: -len(first) - 1])
            records = {r["problem_id"]: r for r in load_benchmark(name, root)}
            return {
                pid: (records[pid]["answer"], f"{root} ({name})")
                for pid in (row["problem_id"] for row in rows)
                if pid in records
            }
    return {}


def _from_variants(variants: Path) -> dict[str, tuple[str | None, str]]:
    return {
        v["problem_id"]: (gold_text(v["answer"], "confirmed"), str(variants))
        for v in read_artifact(variants, "variants").to_pylist()
        if v["status"] == "confirmed"
    }


def check_problem_table(path: Path) -> ProblemCheck:
    check = ProblemCheck()
    rows = read_artifact(path, "problems").to_pylist()
    tables = lineage_inputs(path)
    if "conversions" in tables:
        expected = _from_conversions(tables["conversions"], rows, check)
    elif "variants" in tables:
        expected = _from_variants(tables["variants"])
    else:
        expected = _from_dataset(path, rows)
    for row in rows:
        pid = row["problem_id"]
        if pid not in expected:
            check.problems.append(f"{pid}: no source to re-derive its answer from (lineage of {path})")
            continue
        check.answers += 1
        answer, where = expected[pid]
        if answer != row["answer"]:
            check.problems.append(f"{pid}: gold {row['answer']!r} differs from its source {where} ({answer!r})")
    for row in rows:
        if row.get("certificate") is None and "variants" in tables:
            # a variant is confirmed by the validator, not certified (sources/variants.py): nothing to re-check
            check.uncertified += 1
            continue
        ok, reason = check_row(row)
        if row.get("certificate") is not None:
            check.certificates += 1
        if not ok:
            check.problems.append(f"{row['problem_id']}: certificate: {reason}")
    check.problems = [f"{path}: {p}" for p in check.problems]
    return check
