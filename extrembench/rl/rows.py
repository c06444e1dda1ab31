"""The canonical training row: one per problem and per confirmed variant, with its schema.

Every trainer layout (formats.py) is written from these rows and nothing else, so what a trainer
sees is what this table holds: the statement, the gold (LaTeX as the grader reads it, the plain
text of the problem file and a 50-digit decimal), the certificate that proves it (kind and sha256
of its canonical JSON), where the problem comes from, and the values of the three cheap guesses
(all variables equal, one variable at an edge, the set's constant) with which of them equal the
gold, so a trainer can leave out, or watch, what a guess answers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import sympy

from extrembench.core.config import ModelBase
from extrembench.generation.boundary import boundary_guess
from extrembench.generation.constant import constant_guess
from extrembench.generation.symmetric import symmetric_guess
from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import Problem
from extrembench.problems.statement import gold_text, render_statement

ROWS_VERSION = "1"
DIGITS = 50
# A guess "answers" the problem when its value is the gold's to this relative precision: the
# guesses' numeric roots are refined to 30 digits, far inside it, and no distinct answer is this close.
GUESS_MATCH = sympy.Float("1e-20", DIGITS)
GUESSES = ("all_equal", "boundary", "constant")
# The pipeline's own prompt (every model's default prompt_template), so a trained model is asked
# the way the benchmark asks it.
PROMPT_TEMPLATE: str = ModelBase.model_fields["prompt_template"].default

_s = pa.string()
TRAINING_ROWS = pa.schema(
    [
        ("id", _s),  # the problem id, or <parent>~constants-<n> for a variant
        ("parent_id", _s),  # the problem file's id (itself for an original)
        ("family", _s),  # the source problem; every row of a family shares one split
        ("kind", _s),  # original | constants
        ("transformation", _s),  # constants: what changed ("field: old → new; ..."), else null
        ("split", _s),  # train | held_out (splits.py)
        ("folder", _s),  # the problem folder the row comes from
        ("sense", _s),  # min | max
        ("statement", _s),  # LaTeX statement as the benchmark asks it
        ("prompt", _s),  # the user message: statement + the pipeline's answer instruction
        ("answer", _s),  # the gold as the grader reads it (LaTeX)
        ("answer_text", _s),  # the gold as the problem file (or variant) writes it
        ("answer_decimal", _s),  # the gold to 50 significant digits
        ("answer_type", _s),  # number
        ("spec_json", _s),  # the machine-checkable spec, without the answer
        ("technique", pa.list_(_s)),
        ("difficulty", _s),
        ("certificate_kind", _s),  # bound | sos | numeric
        ("certificate_sha256", _s),  # sha256 of the certificate's canonical JSON
        ("certificate_verifier", _s),
        ("certificate", _s),  # the canonical JSON itself: `extrembench verify-certificate` re-checks it
        ("validated_by", _s),  # problems-table:<path> | check:seed=<s>,starts=<n>,iterations=<m>
        ("source_reference", _s),  # the competition and problem the file cites
        ("source_path", _s),  # the problem file (a variant: its parent's)
        ("source_sha256", _s),  # sha256 of that file
        ("content_sha256", _s),  # sha256 of this row's spec, answer and statement
        ("all_equal_guess", _s),  # the cheap guesses' values (null: the guess abstains)
        ("all_equal_decimal", _s),
        ("boundary_guess", _s),
        ("boundary_decimal", _s),
        ("constant_guess", _s),
        ("constant_decimal", _s),
        ("guessed_by", pa.list_(_s)),  # the guesses whose value is the gold
        ("rows_version", _s),
    ]
)


def decimal(value: sympy.Expr, digits: int = DIGITS) -> str:
    """`value` to `digits` significant digits, as text (sympy's evaluation, digit-exact)."""
    return str(sympy.Float(sympy.N(value, digits + 10), digits))


def spec_of(problem: Problem, row_id: str | None = None) -> dict[str, Any]:
    """The machine-checkable spec without the answer (as the problems table holds it)."""
    return {
        "id": row_id or problem.id,
        "sense": problem.sense,
        "variables": dict(problem.variables),
        "constraints": list(problem.constraints),
        "objective": problem.objective,
    }


def content_sha256(spec: dict, answer: str, statement: str) -> str:
    payload = {key: spec[key] for key in ("sense", "variables", "constraints", "objective")}
    payload.update(answer=answer, statement=statement)
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class GuessValue:
    text: str | None  # exact sympy text when exact, else a 30-digit decimal; None: abstains
    value: sympy.Expr | None


def _guess(function, *arguments) -> GuessValue:
    try:
        guess = function(*arguments)
    except (ValueError, TypeError, ArithmeticError, sympy.PolynomialError, RecursionError):
        guess = None  # the baselines abstain on the same errors (generation/symmetric.py)
    if guess is None:
        return GuessValue(None, None)
    exact = not guess.value.atoms(sympy.Float)
    return GuessValue(sympy.sstr(guess.value) if exact else str(guess.numeric), guess.value)


def cheap_guesses(spec: dict, constant: str | None) -> dict[str, GuessValue]:
    """The three baselines' answers to a spec (the same functions the guess models answer with)."""
    return {
        "all_equal": _guess(symmetric_guess, spec),
        "boundary": _guess(boundary_guess, spec),
        "constant": _guess(constant_guess, spec, constant),
    }


def same_value(a: sympy.Expr, b: sympy.Expr) -> bool:
    a_n, b_n = sympy.N(a, DIGITS), sympy.N(b, DIGITS)
    return bool(abs(a_n - b_n) <= GUESS_MATCH * (1 + abs(b_n)))


def training_row(
    problem: Problem,
    *,
    row_id: str,
    parent: Problem,
    kind: str,
    transformation: str | None,
    split: str,
    folder: str,
    certificate: str,
    certificate_kind: str,
    certificate_verifier: str | None,
    validated_by: str,
    source_sha256: str,
    guesses: dict[str, GuessValue],
) -> dict[str, Any]:
    """One row of TRAINING_ROWS. `problem` holds the row's spec and answer (a variant's own),
    `parent` the problem file it comes from; `certificate` is canonical JSON."""
    statement = problem.statement or render_statement(problem)
    spec = spec_of(problem, row_id)
    answer = parse_expression(problem.answer, [])
    guessed = [name for name in GUESSES if guesses[name].value is not None and same_value(guesses[name].value, answer)]
    return {
        "id": row_id,
        "parent_id": parent.id,
        "family": parent.family or parent.id,  # a file without a family is a family of its own
        "kind": kind,
        "transformation": transformation,
        "split": split,
        "folder": folder,
        "sense": problem.sense,
        "statement": statement,
        "prompt": PROMPT_TEMPLATE.replace("{statement}", statement),
        "answer": gold_text(problem.answer, "confirmed"),
        "answer_text": problem.answer,
        "answer_decimal": decimal(answer),
        "answer_type": "number",
        "spec_json": json.dumps(spec, sort_keys=True),
        "technique": list(parent.technique),
        "difficulty": parent.difficulty,
        **_certificate_columns(certificate, certificate_kind, certificate_verifier),
        "validated_by": validated_by,
        "source_reference": (parent.source or {}).get("reference"),
        "source_path": parent.path,
        "source_sha256": source_sha256,
        "content_sha256": content_sha256(spec, problem.answer, statement),
        **_guess_columns(guesses),
        "guessed_by": guessed,
        "rows_version": ROWS_VERSION,
    }


def _certificate_columns(certificate: str, kind: str, verifier: str | None) -> dict[str, Any]:
    return {
        "certificate_kind": kind,
        "certificate_sha256": hashlib.sha256(certificate.encode()).hexdigest(),
        "certificate_verifier": verifier,
        "certificate": certificate,
    }


def _guess_columns(guesses: dict[str, GuessValue]) -> dict[str, Any]:
    """<guess>_guess and <guess>_decimal of each cheap guess, in GUESSES order (None: it abstains)."""
    return {
        column: value
        for name in GUESSES
        for column, value in (
            (f"{name}_guess", guesses[name].text),
            (f"{name}_decimal", decimal(guesses[name].value) if guesses[name].value is not None else None),
        )
    }


def rows_table(rows: list[dict]) -> pa.Table:
    """Rows in a fixed order (split, id), so equal content gives equal bytes."""
    ordered = sorted(rows, key=lambda r: (r["split"], r["id"]))
    return pa.Table.from_pylist(ordered, schema=TRAINING_ROWS)


def ground_truth_facts(row: dict) -> dict[str, Any]:
    """What the reward needs beside the gold to name a miss (reward.py): sense, the gold's
    decimal, its certificate kind, the variables, and the cheap guesses' decimals."""
    spec = json.loads(row["spec_json"])
    return {
        "id": row["id"],
        "answer": row["answer"],
        "answer_decimal": row["answer_decimal"],
        "sense": row["sense"],
        "variables": list(spec["variables"]),
        "certificate_kind": row["certificate_kind"],
        **{f"{name}_decimal": row[f"{name}_decimal"] for name in GUESSES},
        "guessed_by": list(row["guessed_by"]),
    }
