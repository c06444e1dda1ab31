"""The validate stage's shard job: every conversion row checked (extrembench.verify.validate), one
problems row each, with its verdict, witness and certificate."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.config import Validation
from extrembench.core.progress import eta_text
from extrembench.problems.failures import problem_failure, stage_stopping_errors
from extrembench.problems.statement import gold_text, render_statement
from extrembench.verify.blas import numeric_stack
from extrembench.verify.checker.document import VERIFIER_VERSION
from extrembench.verify.provers.certify import certificate_json
from extrembench.verify.validate import Effort, check_problem

log = logging.getLogger(__name__)


def _validate_one(conv: dict, *, effort, seed: int) -> tuple:
    """(status, reason, best value, witness, answerless spec, certificate) of one conversion row; fills in
    conv["statement"] when the spec came without one."""
    if conv["error"] is not None:
        return "invalid", f"{conv['source_path']}: {conv['error_field']}: {conv['error']}", None, None, None, None
    # The machine-checkable spec, without the answer (what the reference solver is given).
    spec = {
        "id": conv["problem_id"],
        "sense": conv["sense"],
        "variables": json.loads(conv["variables_json"]),
        "constraints": json.loads(conv["constraints_json"]),
        "objective": conv["objective"],
    }
    if conv["converted_by"] in ("curated", "inequality"):
        target = conv["source_path"]  # the problem file itself, checked as `extrembench check` does
    else:
        # No problem file holds this spec (an LLM or the formalizer wrote it): check it like
        # one, including its statement against the spec when there is a statement.
        from extrembench.problems.problem import problem_from_dict

        claimed = {**spec, "answer": conv["answer"]}
        if conv["statement"]:
            claimed["statement"] = conv["statement"]
        target = problem_from_dict(claimed, path=conv["source_path"])
    result = check_problem(target, seed=seed, effort=effort)
    if conv["statement"] is None and not isinstance(target, str):
        conv["statement"] = render_statement(target)
    return result.status, result.reason, result.best_value, result.witness, spec, result.certificate


def validate_shard(
    problem_files: Sequence[str],
    conversions: Path,
    output: Path,
    *,
    benchmark: str,
    dag_node: str,
    settings: Validation,
) -> None:
    """settings: the config's `validation` block (seed, starts, iterations, time_cap_s)."""

    seed = settings.seed
    effort = Effort.from_settings(settings)
    infrastructure = stage_stopping_errors()
    rows = []
    conversions_rows = read_artifact(conversions, "conversions").to_pylist()
    started = time.monotonic()
    for number, conv in enumerate(conversions_rows, 1):
        spec, certificate = None, None
        try:
            status, reason, best, witness, spec, certificate = _validate_one(conv, effort=effort, seed=seed)
            gold = gold_text(conv["answer"], status)
        except infrastructure:
            raise
        except Exception as exc:  # this problem's fault: invalid, with file, field and reason
            field, why = problem_failure(exc, "validate")
            status, reason, best, witness, gold = (
                "invalid",
                f"{conv['source_path']}: {field}: {why}",
                None,
                None,
                conv["answer"],
            )
            certificate = None
        eta = eta_text(number, len(conversions_rows), time.monotonic() - started)
        log.info(
            "[%d/%d] %s: %s%s%s",
            number,
            len(conversions_rows),
            conv["problem_id"],
            status,
            "" if status == "confirmed" else f" {reason}",
            f" ({eta})" if eta else "",
        )
        rows.append(
            {
                "benchmark": benchmark,
                "problem_id": conv["problem_id"],
                "source_path": conv["source_path"],
                "source_sha256": conv["source_sha256"],
                "statement": conv["statement"],
                "answer": gold,
                "answer_type": "number",
                "sense": conv["sense"],
                "technique": conv["technique"],
                "difficulty": conv["difficulty"],
                "spec_json": json.dumps(spec, sort_keys=True) if spec else None,
                "status": status,
                "reason": reason,
                "best_value": best,
                "witness_json": json.dumps(witness, sort_keys=True) if witness is not None else None,
                "certificate": certificate_json(certificate),
                "certificate_kind": certificate["kind"] if certificate else None,
                "certificate_verifier": VERIFIER_VERSION if certificate else None,
                "dag_node": dag_node,
            }
        )
    # which releases and kernels produced these verdicts: another numpy, scipy, sympy, clarabel or
    # OpenBLAS can find another proof, so a table says what made it (read with read_numeric_stack)
    write_artifact(
        rows,
        output,
        "problems",
        inputs=[*problem_files, conversions],
        extra_metadata={NUMERIC_STACK_KEY: json.dumps(numeric_stack(), sort_keys=True)},
    )


NUMERIC_STACK_KEY = "numeric_stack"


def read_numeric_stack(path: Path) -> dict | None:
    """The numeric stack a problems table records (None for a table written before it did)."""
    raw = (pq.read_schema(path).metadata or {}).get(f"extrembench.{NUMERIC_STACK_KEY}".encode())
    return json.loads(raw) if raw is not None else None
