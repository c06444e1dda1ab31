"""The formalize stage: `extrembench formalize` (JSONL lines of statement + answer to problem specs)
and the shard job of the pipeline's formalize rule; the rules themselves are in extrembench.sources.formalize.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from pathlib import Path

from extrembench.core.artifacts import write_artifact
from extrembench.core.errors import InputError
from extrembench.core.files import read_jsonl, sha256_file
from extrembench.core.shards import shard_of, take
from extrembench.problems.latex import FormalizeError
from extrembench.sources.formalize import formalize_statement
from extrembench.sources.llm_convert import conversion_columns, formalize_with_fallback

log = logging.getLogger(__name__)


class DuplicateIdError(InputError, ValueError):
    """Two problems of one benchmark share an id; the message names both places."""


# --- the `extrembench formalize` subcommand -------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input", required=True, help="JSONL file, one {id, statement, answer} per line ('-' = stdin)")


def formalize_line(line: str, line_number: int) -> dict:
    """One input line -> the spec, or {'id': ..., 'error': reason}."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as error:
        return {"id": None, "error": f"line {line_number}: not valid JSON ({error})"}
    if not isinstance(item, dict):
        return {"id": None, "error": f"line {line_number}: expected a JSON object"}
    missing = [key for key in ("id", "statement", "answer") if key not in item]
    if missing:
        return {"id": item.get("id"), "error": f"line {line_number}: missing field(s) {', '.join(missing)}"}
    try:
        return formalize_statement(str(item["id"]), item["statement"], item["answer"])
    except FormalizeError as error:
        return {"id": item["id"], "error": str(error)}


def run(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as stack:
        try:
            # stdin is the caller's to close; a file we open closes with the stack
            handle = sys.stdin if args.input == "-" else stack.enter_context(open(args.input, encoding="utf-8"))
        except OSError as error:
            print(f"extrembench formalize: cannot read --input {args.input}: {error}", file=sys.stderr)
            return 2
        for line_number, line in enumerate(handle, start=1):
            if line.strip():
                print(json.dumps(formalize_line(line, line_number), ensure_ascii=False), flush=True)
    return 0


# --- the rule's job: read artifacts, run this stage per problem, write its artifact
def _statement_records(statements: Path) -> list[tuple[int, str, object, object]]:
    """(line number, id, statement, answer) of every line, in file order; ids must be unique."""
    records = []
    first_line: dict[str, int] = {}
    for number, record in read_jsonl(statements):
        try:
            records.append((number, str(record["id"]), record["statement"], record["answer"]))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{statements}:{number}: need a JSON object with id, statement, answer ({exc})") from exc
        problem_id = records[-1][1]
        if problem_id in first_line:
            # both would be asked under one id and graded against the last gold: a right answer graded wrong
            raise DuplicateIdError(
                f"{statements}:{number}: id {problem_id!r} is also the id of line {first_line[problem_id]}; "
                "ids must be unique within a benchmark: give one of the two lines another id (or delete one)"
            )
        first_line[problem_id] = number
    return records


def formalized_row(
    problem_id: str, statement, outcome, *, source_path: str, source_sha256: str, benchmark: str, dag_node: str
) -> dict:
    """The `conversions` row of one formalized statement."""
    row = {
        "benchmark": benchmark,
        "problem_id": problem_id,
        "source_path": source_path,
        "source_sha256": source_sha256,
        "technique": [],
        "difficulty": None,
        "date": None,
        "dag_node": dag_node,
        **conversion_columns(outcome),
    }
    if outcome.spec is not None and row["statement"] is None:
        row["statement"] = statement
    if outcome.spec is None:
        row["error_field"] = "statement"
    return row


def formalize_shard(
    statements: Path,
    output: Path,
    *,
    benchmark: str,
    shard: int,
    n_shards: int,
    limit: int | None,
    dag_node: str,
    caller=None,
    max_attempts: int = 3,
) -> None:
    """Extremal problems given as statement + answer (ExtremBench's release format) → specs: the
    rule-based formalizer first, the configured LLM (`caller`) when the rules cannot read one."""

    digest = sha256_file(statements)
    records = _statement_records(statements)
    kept = set(take([r[1] for r in records], limit))
    records = sorted((r for r in records if r[1] in kept), key=lambda r: r[1])
    rows = []
    for number, problem_id, statement, answer in records:
        if shard_of(problem_id, n_shards) != shard:
            continue
        outcome = formalize_with_fallback(problem_id, statement, answer, caller, max_attempts=max_attempts)
        rows.append(
            formalized_row(
                problem_id,
                statement,
                outcome,
                source_path=f"{statements}#line={number}",
                source_sha256=digest,
                benchmark=benchmark,
                dag_node=dag_node,
            )
        )
    write_artifact(rows, output, "conversions", inputs=[statements])
    log.info(
        "formalized %d problems: %d by rules, %d failed",
        len(rows),
        sum(r["converted_by"] == "rules" for r in rows),
        sum(r["error"] is not None for r in rows),
    )
