"""export-rl (issue 41): the canonical rows and each trainer layout, on two shipped problems and
their confirmed constants variants; pipeline problem tables are taken instead of validating again
when they hold the very file."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import sympy

from extrembench.cli import main
from extrembench.core.artifacts import write_artifact
from extrembench.core.files import sha256_file
from extrembench.problems.expr import parse_expression
from extrembench.problems.problem import load_problem
from extrembench.rl.formats import TRL, VERL
from extrembench.rl.rows import GUESSES, TRAINING_ROWS
from extrembench.sources.variants import content_hash
from extrembench.verify.checker.cli import check_row

REPO = Path(__file__).resolve().parents[1]
# cheap to validate and vary (seconds): one of data/guessable, one of data/unnumbered
FILES = ("data/guessable/ineq-0004.yaml", "data/unnumbered/ineq-0111.yaml")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("rl")
    folder = root / "problems"
    folder.mkdir()
    for name in FILES:
        shutil.copy(REPO / name, folder)
    out = root / "verl"
    argv = ["export-rl", "--format", "verl", "--out", str(out), "--directory", str(REPO), "--problems", str(folder)]
    assert main([*argv, "--per-problem", "1"]) == 0
    return root, folder, out


def _rows(out: Path) -> list[dict]:
    table = pq.read_table(out / "rows.parquet")
    assert table.schema.remove_metadata().equals(TRAINING_ROWS)
    return table.to_pylist()


@pytest.mark.slow
def test_rows_carry_a_verifying_certificate_the_gold_and_the_guesses(exported):
    _, _, out = exported
    rows = _rows(out)
    assert {r["kind"] for r in rows} == {"original", "constants"}
    assert {r["parent_id"] for r in rows} == {"ineq-0004", "ineq-0111"}
    for row in rows:
        assert row["split"] == "train"
        assert row["certificate_sha256"] == hashlib.sha256(row["certificate"].encode()).hexdigest()
        ok, why = check_row(row)
        assert ok, (row["id"], why)
        gold = parse_expression(row["answer_text"], [])
        assert abs(sympy.Float(row["answer_decimal"], 50) - sympy.N(gold, 60)) < sympy.Float("1e-45")
        assert len(row["answer_decimal"].replace("-", "").replace(".", "").lstrip("0")) >= 49
        for name in GUESSES:
            decimal = row[f"{name}_decimal"]
            same = decimal is not None and abs(sympy.Float(decimal, 50) - sympy.N(gold, 50)) < sympy.Float("1e-20")
            assert (name in row["guessed_by"]) == same, (row["id"], name)
        assert row["source_reference"] and row["source_sha256"] == sha256_file(
            REPO / [f for f in FILES if row["parent_id"] in f][0]
        )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rows"] == len(rows) and "extrem" in manifest["evaluated_benchmarks"]


@pytest.mark.slow
def test_every_layout_is_written_from_the_rows(exported):
    root, _, out = exported
    rows = {r["id"]: r for r in _rows(out)}
    verl = pq.read_table(out / "train.parquet")
    assert verl.schema.remove_metadata().equals(VERL)
    for record in verl.to_pylist():
        row = rows[record["extra_info"]["id"]]
        assert record["prompt"] == [{"role": "user", "content": row["prompt"]}]
        assert record["reward_model"] == {"style": "rule", "ground_truth": row["answer"]}
        assert record["data_source"] == "extrembench" and record["ability"] == "math"
        assert json.loads(record["extra_info"]["facts"])["answer_decimal"] == row["answer_decimal"]
    for fmt in ("trl", "openrlhf", "verifiers"):
        argv = ["export-rl", "--format", fmt, "--out", str(root / fmt), "--from-rows", str(out / "rows.parquet")]
        assert main(argv) == 0
    trl = pq.read_table(root / "trl" / "train.parquet")
    assert trl.schema.remove_metadata().equals(TRL)
    assert sorted(r["answer"] for r in trl.to_pylist()) == sorted(r["answer"] for r in rows.values())
    lines = [json.loads(line) for line in (root / "openrlhf" / "train.jsonl").read_text().splitlines()]
    assert {(line["input"], line["label"]) for line in lines} == {(r["prompt"], r["answer"]) for r in rows.values()}
    records = [json.loads(line) for line in (root / "verifiers" / "train.jsonl").read_text().splitlines()]
    assert {r["info"]["id"] for r in records} == set(rows)
    # the reward files the trainers are pointed at load as they load them (by file path)
    verl_reward = _load(out / "extrembench_reward.py").compute_score
    record = verl.to_pylist()[0]
    truth = record["reward_model"]["ground_truth"]
    assert verl_reward("extrembench", f"</think>\\boxed{{{truth}}}", truth, record["extra_info"])["score"] == 1.0
    openrlhf_reward = _load(root / "openrlhf" / "extrembench_reward.py").reward_func
    scores = openrlhf_reward(
        [line["input"] + "\\boxed{0.123}" for line in lines],
        [line["input"] for line in lines],
        [line["label"] for line in lines],
    )
    assert list(scores["rewards"]) == [0.0] * len(lines)
    module = ast.parse((root / "verifiers" / "extrembench_env.py").read_text())
    assert "load_environment" in {node.name for node in module.body if isinstance(node, ast.FunctionDef)}


def _load(path: Path):
    spec = importlib.util.spec_from_file_location("reward_file", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _problems_table(rows: list[dict], path: Path) -> Path:
    """A pipeline problems table holding the originals' verdicts (as the validate job writes them)."""
    table = [
        {
            "benchmark": "b",
            "problem_id": r["id"],
            "source_path": str(Path(r["source_path"]).resolve()),
            "source_sha256": r["source_sha256"],
            "statement": r["statement"],
            "answer": r["answer"],
            "answer_type": "number",
            "sense": r["sense"],
            "technique": r["technique"],
            "difficulty": r["difficulty"],
            "spec_json": r["spec_json"],
            "status": "confirmed",
            "reason": "",
            "best_value": None,
            "witness_json": None,
            "certificate": r["certificate"],
            "certificate_kind": r["certificate_kind"],
            "certificate_verifier": r["certificate_verifier"],
            "dag_node": "test",
        }
        for r in rows
        if r["kind"] == "original"
    ]
    return write_artifact(table, path, "problems")


@pytest.mark.slow
def test_a_problems_table_of_the_very_file_is_taken_and_a_stale_one_is_not(exported):
    root, folder, out = exported
    rows = _rows(out)
    table = _problems_table(rows, root / "tables" / "shard-0.parquet")
    # the table's rows were made from these files: taken as they are, nothing validated again
    again = root / "again"
    argv = ["export-rl", "--format", "verl", "--out", str(again), "--directory", str(REPO), "--problems", str(folder)]
    assert main([*argv, "--per-problem", "0", "--tables", str(table.parent)]) == 0
    taken = {r["id"]: r for r in _rows(again)}
    assert set(taken) == {"ineq-0004", "ineq-0111"}
    assert all(r["validated_by"] == f"problems-table:{table}" for r in taken.values())
    assert all(taken[r["id"]]["certificate_sha256"] == r["certificate_sha256"] for r in rows if r["kind"] == "original")
    # an edited file no longer matches the table's sha256: it is validated again
    path = folder / "ineq-0004.yaml"
    path.write_text(path.read_text() + "\n# edited\n")
    assert main([*argv, "--per-problem", "0", "--tables", str(table.parent), "--out", str(root / "stale")]) == 0
    stale = {r["id"]: r for r in _rows(root / "stale")}
    assert stale["ineq-0004"]["validated_by"].startswith("check:")
    assert stale["ineq-0111"]["validated_by"].startswith("problems-table:")


def _variant_tables(rows: list[dict], folder: Path) -> None:
    """The vary job's two tables for the constants variants: the variants table (plain answer,
    parent sha256, content sha256) and the variant benchmark's problems table (the certificate)."""
    variants, problems = [], []
    for r in rows:
        if r["kind"] != "constants":
            continue
        spec = json.loads(r["spec_json"])
        parent = load_problem(r["source_path"])
        variant = replace(
            parent,
            id=r["id"],
            variables=spec["variables"],
            constraints=tuple(spec["constraints"]),
            objective=spec["objective"],
            answer=r["answer_text"],
            statement=r["statement"],
        )
        variants.append(
            {
                "benchmark": "b",
                "variant_benchmark": "b-variants",
                "problem_id": r["id"],
                "parent_id": r["parent_id"],
                "parent_source_path": r["source_path"],
                "parent_sha256": r["source_sha256"],
                "kind": "constants",
                "technique": "stationary",
                "transformation": r["transformation"],
                "transformation_json": "[]",
                "content_sha256": content_hash(variant),
                "statement": r["statement"],
                "answer": r["answer_text"],
                "sense": r["sense"],
                "spec_json": r["spec_json"],
                "status": "confirmed",
                "drop_reason": None,
                "validation_status": "confirmed",
                "validation_reason": "",
                "best_value": None,
                "witness_json": None,
                "seed": 0,
                "dag_node": "test",
            }
        )
        problems.append({**r, "id": r["id"], "kind": "original"})
    write_artifact(variants, folder / "variants" / "shard-0.parquet", "variants")
    _problems_table(problems, folder / "problems-variants" / "shard-0.parquet")


@pytest.mark.slow
def test_confirmed_variants_of_a_pipeline_table_are_taken_without_generating_again(exported, tmp_path):
    _, _, out = exported
    rows = _rows(out)
    folder = tmp_path / "problems"
    folder.mkdir()
    for name in FILES:
        shutil.copy(REPO / name, folder)
    _problems_table(rows, tmp_path / "tables" / "problems" / "shard-0.parquet")
    _variant_tables(rows, tmp_path / "tables")
    argv = ["export-rl", "--format", "verl", "--out", str(tmp_path / "out"), "--directory", str(REPO)]
    assert main([*argv, "--problems", str(folder), "--per-problem", "1", "--tables", str(tmp_path / "tables")]) == 0
    taken = {r["id"]: r for r in _rows(tmp_path / "out")}
    variants = {r["id"]: r for r in rows if r["kind"] == "constants"}
    assert variants and {i for i, r in taken.items() if r["kind"] == "constants"} == set(variants)
    for variant_id, row in variants.items():
        assert taken[variant_id]["validated_by"].startswith("problems-table:")
        assert taken[variant_id]["certificate_sha256"] == row["certificate_sha256"]
        assert taken[variant_id]["content_sha256"] == row["content_sha256"]
