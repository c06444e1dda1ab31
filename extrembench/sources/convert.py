"""The convert stage: each problem file to its extremal spec (curated fields or the structured source
inequality, deterministic; a source-only file goes to the configured LLM), one row per problem."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

from extrembench.core.artifacts import SCHEMAS, read_artifact, write_artifact
from extrembench.problems.derive import convert_problem
from extrembench.problems.failures import file_sha256_or_none, problem_failure, read_problem_yaml, stage_stopping_errors
from extrembench.problems.problem import ProblemError, check_source, file_id_error, load_problem
from extrembench.sources.llm_convert import conversion_columns, convert_with_llm

log = logging.getLogger(__name__)


def convert_shard(
    problem_files: Sequence[str],
    translations: Path,
    output: Path,
    *,
    benchmark: str,
    dag_node: str,
    caller=None,
    max_attempts: int = 3,
    refused: Sequence[Sequence[str]] = (),
) -> None:
    """Curated fields or the structured source inequality (deterministic); a source-only file
    (no `objective`) goes to the configured LLM, whose spec is checked like any problem file.
    `refused`: [id, path, reason] of folder entries that are not problem files (never read here),
    each an error row that validate marks invalid."""

    english = {r["problem_id"]: r["translation"] for r in read_artifact(translations, "translations").to_pylist()}
    infrastructure = stage_stopping_errors()
    rows = []
    for path in sorted(map(Path, problem_files)):
        row = conversion_row(path, benchmark=benchmark, dag_node=dag_node)
        try:
            row.update(_spec_columns(path, english, caller, max_attempts))
        except infrastructure:
            raise
        except Exception as exc:  # this problem's fault: recorded, validate marks it invalid
            field, reason = problem_failure(exc, "convert")
            row.update(error=reason, error_field=field)
            log.warning("convert: %s: %s: %s", path, field, reason)
        rows.append(row)
    for problem_id, path, reason in refused:
        rows.append(refused_row(problem_id, path, reason, benchmark=benchmark, dag_node=dag_node))
        log.warning("convert: %s: refused: %s", path, reason)
    rows.sort(key=lambda r: r["problem_id"])
    write_artifact(rows, output, "conversions", inputs=[*problem_files, translations])


def conversion_row(path: Path, *, benchmark: str, dag_node: str) -> dict:
    """A `conversions` row for one problem file before conversion: every spec column empty."""
    return {
        "benchmark": benchmark,
        "problem_id": path.stem,
        "source_path": str(path),
        "source_sha256": file_sha256_or_none(path),
        "sense": None,
        "variables_json": None,
        "constraints_json": None,
        "objective": None,
        "answer": None,
        "statement": None,
        "technique": [],
        "difficulty": None,
        "date": None,
        "converted_by": None,
        "error": None,
        "error_field": None,
        "llm_attempts": None,
        "llm_raw_outputs_json": None,
        "llm_call_keys": [],
        "dag_node": dag_node,
    }


def refused_row(problem_id: str, path: str, reason: str, *, benchmark: str, dag_node: str) -> dict:
    """The error row of a folder entry that is not a problem file (validate marks it invalid)."""
    row = dict.fromkeys(SCHEMAS["conversions"].names)
    row.update(benchmark=benchmark, problem_id=problem_id, source_path=path, technique=[], llm_call_keys=[])
    row.update(error=reason, error_field="(file)", dag_node=dag_node)
    return row


def _spec_columns(path: Path, english: dict, caller, max_attempts: int) -> dict:
    """The spec columns of one problem file; raises on the problem's own fault."""
    data = read_problem_yaml(path)
    if isinstance(data, dict) and "objective" not in data and "source" in data:
        # source-only: the statement is converted by the LLM, the spec checked by validate
        return _llm_spec_columns(data, path, english, caller, max_attempts)
    problem = load_problem(path)  # schema, id = file name, every expression parsed
    spec, origin = convert_problem(problem)
    return dict(
        sense=spec.sense,
        variables_json=json.dumps(spec.variables),
        constraints_json=json.dumps(list(spec.constraints)),
        objective=spec.objective,
        answer=spec.answer,
        statement=spec.statement,
        technique=list(problem.technique),
        difficulty=problem.difficulty,
        date=problem.date,
        converted_by=origin,
    )


def _llm_spec_columns(data: dict, path: Path, english: dict, caller, max_attempts: int) -> dict:
    """A source-only file: its English text converted by the LLM, once the file itself checks out."""
    check_source(data, path=path)
    mismatch = file_id_error(data["id"], path) if "id" in data else None
    if mismatch:
        raise ProblemError(str(path), "id", mismatch)
    if caller is None:
        raise ProblemError(
            str(path),
            "objective",
            "no curated extremal fields and no convert.model configured; add sense/"
            "variables/objective/answer (or source.inequality) or set convert.model",
        )
    if not english.get(path.stem):
        raise ProblemError(
            str(path),
            "source.translation",
            "no English text to convert (see the translate stage's translation_error)",
        )
    return conversion_columns(convert_with_llm(path.stem, english[path.stem], caller, max_attempts=max_attempts))
