"""Ids are unique per benchmark, whatever the source (issue 42): two lines of a `formalized`
statements file under one id were both asked under that id and graded against the last gold (a
right answer graded wrong, rc 0). A duplicate now stops the stage, naming both lines."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from extrembench.core.errors import InputError
from extrembench.core.files import sha256_file
from extrembench.sources import ingest
from extrembench.sources.formalize_stage import formalize_shard
from extrembench.sources.ingest import DatasetError, DatasetSpec, load_benchmark, read_amo_bench, read_math500

CIRCLE = {
    "statement": "Let $x, y$ be real numbers with $x^2 + y^2 = 1$. Find the maximum of $x + y$.",
    "answer": "\\sqrt{2}",
}
OTHER = {"statement": "Let $a, b$ be positive reals with $a + b = 2$. Find the minimum of $a^2 + b^2$.", "answer": "2"}


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _formalize(statements: Path, output: Path) -> None:
    formalize_shard(statements, output, benchmark="b", shard=0, n_shards=1, limit=None, dag_node="test")


@pytest.mark.parametrize("second_id", ["same", 7])
def test_formalized_duplicate_id_stops_the_stage_naming_both_lines(tmp_path, second_id):
    first_id = "same" if second_id == "same" else "7"  # 7 and "7" are one id once read as text
    statements = _jsonl(
        tmp_path / "statements.jsonl",
        [{"id": first_id, **CIRCLE}, {"id": "other", **OTHER}, {"id": second_id, **OTHER}],
    )
    output = tmp_path / "convert.parquet"
    with pytest.raises(InputError) as error:
        _formalize(statements, output)
    message = str(error.value)
    assert f"{statements}:3: id {first_id!r} is also the id of line 1" in message and "unique" in message
    assert not output.exists()


def test_formalized_unique_ids_are_all_kept(tmp_path):
    statements = _jsonl(tmp_path / "statements.jsonl", [{"id": "circle", **CIRCLE}, {"id": "other", **OTHER}])
    _formalize(statements, tmp_path / "convert.parquet")
    rows = pq.read_table(tmp_path / "convert.parquet").to_pylist()
    assert sorted(r["problem_id"] for r in rows) == ["circle", "other"]


def _math500_row(unique_id: str, answer: str) -> dict:
    return {"problem": "What is $1+1$?", "answer": answer, "subject": "Algebra", "level": 1, "unique_id": unique_id}


def test_math500_duplicate_id_names_both_lines(tmp_path):
    _jsonl(
        tmp_path / "test.jsonl",
        [_math500_row("test/algebra/1.json", "2"), _math500_row("test/algebra/2.json", "3"),
         _math500_row("test/algebra/1.json", "4")],
    )  # fmt: skip
    with pytest.raises(DatasetError) as error:
        read_math500(tmp_path)
    path = tmp_path / "test.jsonl"
    assert f"{path}#line=3: problem id 'math500-algebra-1' is also the id of {path}#line=1" in str(error.value)


PROMPT = "Find $x$. Put your answer in \\boxed{<your answer>}."


def _amo(root: Path, prompts: list[dict], gold: list[dict]) -> Path:
    (root / "partial_prompts_only").mkdir(parents=True)
    _jsonl(root / ingest.AMO_PROMPTS, prompts)
    _jsonl(root / ingest.AMO_GOLD, gold)
    return root


def test_amo_duplicate_gold_question_names_both_lines(tmp_path):
    gold = [{"question_id": 1, "answer_type": "number", "answer": a} for a in ("2", "3")]
    root = _amo(tmp_path, [{"id": 1, "problem": PROMPT}], gold)
    with pytest.raises(DatasetError, match=r"gold_from_reference_solutions.jsonl:2: question_id 1 is also on line 1"):
        read_amo_bench(root)


def test_amo_duplicate_prompt_id_names_both_lines(tmp_path):
    gold = [{"question_id": 1, "answer_type": "number", "answer": "2"}]
    root = _amo(tmp_path, [{"id": 1, "problem": PROMPT}, {"id": 1, "problem": PROMPT}], gold)
    with pytest.raises(DatasetError, match=r"test.jsonl:2: id 1 is also on line 1; one prompt per id"):
        read_amo_bench(root)


def test_load_benchmark_refuses_any_reader_giving_one_id_twice(tmp_path, monkeypatch):
    """Whatever the reader, the loaded records carry each id once."""
    data = _jsonl(tmp_path / "data.jsonl", [{"q": 1}, {"q": 2}])
    spec = DatasetSpec(name="toy", hub_id=None, revision=None, files={"data.jsonl": sha256_file(data)},
                       license="test", citation="test")  # fmt: skip

    def reader(root: Path) -> list[dict]:
        return [
            {"problem_id": "toy-1", "source_path": f"{root}/data.jsonl#line={n}", "statement": "s", "answer": "1"}
            for n in (1, 2)
        ]

    monkeypatch.setitem(ingest.DATASETS, "toy", spec)
    monkeypatch.setitem(ingest._READERS, "toy", reader)
    with pytest.raises(DatasetError, match=r"data.jsonl#line=2: problem id 'toy-1' is also the id of .*#line=1"):
        load_benchmark("toy", tmp_path)


@pytest.mark.slow  # ~15 s: one Snakemake run that stops at the formalize job
def test_formalized_duplicate_id_stops_the_run(tmp_path):
    from support.workflow import run_snakemake

    _jsonl(tmp_path / "statements.jsonl", [{"id": "twice", **CIRCLE}, {"id": "twice", **OTHER}])
    config = {
        "benchmarks": {"imported": {"kind": "formalized", "statements": "statements.jsonl", "shards": 1}},
        "models": {"reference-solver": {"backend": "reference-solver", "reference": {"starts": 2}}},
        "evaluate": {"models": ["reference-solver"], "benchmarks": ["imported"]},
        "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
        "cache_dir": "cache",
    }
    (tmp_path / "config.yaml").write_text(json.dumps(config))
    result = run_snakemake(tmp_path, cwd=tmp_path, timeout=600)
    assert result.returncode != 0
    log = (tmp_path / "results/logs/formalize/imported/shard-0.log").read_text()
    assert "statements.jsonl:2: id 'twice' is also the id of line 1" in result.stderr + log
    assert not (tmp_path / "results" / "leaderboard.csv").exists()
