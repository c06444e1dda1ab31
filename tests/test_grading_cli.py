"""`extrembench grade` (grading/cli.py)."""

from __future__ import annotations

import json

import pytest

from extrembench.cli import main


def _write(tmp_path, lines):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("mode", ["default", "math-verify", "amo-official"])
def test_grade_prints_one_line_per_case(tmp_path, capsys, mode):
    path = _write(tmp_path, [
        json.dumps({"id": "a", "gold": "3", "response": "</think>\\boxed{3}"}),
        json.dumps({"gold": "3", "response": "\\boxed{4}"}),
        json.dumps({"id": "d", "gold": "many", "response": "many", "answer_type": "description"}),
    ])
    assert main(["grade", "--input", str(path), "--mode", mode, "--workers", "1"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["correct"]) for r in rows] == [("a", True), (2, False), ("d", None)]
    assert all({"extracted", "status", "reason"} <= set(r) for r in rows)


@pytest.mark.parametrize(
    ("line", "message"),
    [("{not json", "cases.jsonl:1: not valid JSON"), (json.dumps({"gold": "1"}), "field 'response' is missing")],
)
def test_bad_input_names_file_line_and_field(tmp_path, capsys, line, message):
    assert main(["grade", "--input", str(_write(tmp_path, [line]))]) == 2
    assert message in capsys.readouterr().err
