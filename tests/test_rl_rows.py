"""The canonical training row (issue 41) without validation: the 50-digit gold, which cheap guesses
answer the problem, the certificate's sha256, and an order of rows that does not depend on the order
they were made in."""

from __future__ import annotations

import hashlib
import json

import sympy

from extrembench.problems.problem import problem_from_dict
from extrembench.rl.rows import (
    TRAINING_ROWS,
    cheap_guesses,
    decimal,
    ground_truth_facts,
    rows_table,
    spec_of,
    training_row,
)

CERTIFICATE = json.dumps({"kind": "numeric", "note": "a stand-in: rows.py only hashes and carries it"}, sort_keys=True)


def _problem(**changes):
    data = {
        "id": "ineq-9001",
        "family": "test-2026-p1",
        "sense": "min",
        "variables": {"a": "positive", "b": "positive"},
        "constraints": ["a + b = 2"],
        "objective": "a^2 + b^2",
        "answer": "2",
        "source": {"reference": "Test Olympiad 2026 Problem 1"},
    }
    data.update(changes)
    return problem_from_dict(data, path="data/x/ineq-9001.yaml")


def _row(problem, row_id="ineq-9001", split="train"):
    return training_row(
        problem,
        row_id=row_id,
        parent=problem,
        kind="original",
        transformation=None,
        split=split,
        folder="data/x",
        certificate=CERTIFICATE,
        certificate_kind="numeric",
        certificate_verifier="1",
        validated_by="test",
        source_sha256="0" * 64,
        guesses=cheap_guesses(spec_of(problem), "1"),
    )


def test_the_decimal_has_50_significant_digits():
    assert decimal(sympy.sqrt(2)) == "1.4142135623730950488016887242096980785696718753769"
    assert decimal(-sympy.Rational(1, 3)) == "-0.33333333333333333333333333333333333333333333333333"


def test_the_row_names_the_guesses_whose_value_is_the_gold():
    row = _row(_problem())  # min of a^2 + b^2 on a + b = 2 is 2, at a = b = 1
    assert row["all_equal_guess"] == "2" and row["guessed_by"] == ["all_equal"]
    assert row["certificate_sha256"] == hashlib.sha256(CERTIFICATE.encode()).hexdigest()
    assert row["answer"] == "2" and row["answer_decimal"].startswith("2.000")
    assert row["family"] == "test-2026-p1" and row["source_reference"] == "Test Olympiad 2026 Problem 1"
    assert row["prompt"].startswith(row["statement"]) and "\\boxed{}" in row["prompt"]
    # the maximum of the same objective on the closed segment is at an end: the boundary guess, not all-equal
    edge = _row(_problem(sense="max", variables={"a": "nonnegative", "b": "nonnegative"}, answer="4"))
    assert edge["guessed_by"] == ["boundary"] and edge["boundary_guess"] == "4" and edge["all_equal_guess"] == "2"
    assert ground_truth_facts(edge)["boundary_decimal"] == edge["boundary_decimal"]


def test_rows_come_out_in_one_order_whatever_order_they_were_made_in():
    row = _row(_problem())
    rows = [row, {**row, "id": "ineq-9001~constants-1"}, {**row, "id": "ineq-9000", "split": "held_out"}]
    first, second = rows_table(rows), rows_table(list(reversed(rows)))
    assert first.schema.equals(TRAINING_ROWS) and first.equals(second)
    assert first.column("id").to_pylist() == ["ineq-9000", "ineq-9001", "ineq-9001~constants-1"]
