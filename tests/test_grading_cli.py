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
    path = _write(
        tmp_path,
        [
            json.dumps({"id": "a", "gold": "3", "response": "</think>\\boxed{3}"}),
            json.dumps({"gold": "3", "response": "\\boxed{4}"}),
            json.dumps({"id": "d", "gold": "many", "response": "many", "answer_type": "description"}),
        ],
    )
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


def test_compare_modes_marks_and_counts_disagreement(tmp_path, capsys):
    path = _write(
        tmp_path,
        [
            json.dumps({"id": "agree", "gold": "3", "response": "\\boxed{3}"}),
            # 4 decimal places: accepted by ours and AMO's rules, rejected at Math-Verify's default 6.
            json.dumps({"id": "split", "gold": "\\frac{1}{3}", "response": "\\boxed{0.3333}"}),
        ],
    )
    assert main(["grade", "--input", str(path), "--compare-modes", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    rows = {r["id"]: r for r in map(json.loads, captured.out.splitlines())}
    assert rows["agree"]["modes_disagree"] is False
    assert rows["split"]["modes"] == {"default": True, "math-verify": False, "amo-official": True}
    assert rows["split"]["modes_disagree"] is True
    assert "modes disagree on 1 of 2 cases" in captured.err
