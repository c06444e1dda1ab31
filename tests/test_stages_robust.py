"""Build stages on a shard holding hostile files next to good ones: every bad file becomes an
`invalid` row naming file, field and reason, the good problems are confirmed, and only failures
that are not one problem's fault (the LLM endpoint) stop the job (issue 12, finding 1)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from extrembench.core.artifacts import read_artifact
from extrembench.core.config import Validation
from extrembench.llm.calls import LLMCallError
from extrembench.sources.convert import convert_shard
from extrembench.sources.translate import translate_shard
from extrembench.verify.stage import validate_shard

FIXTURES = Path(__file__).parent / "fixtures" / "pipeline"
GOOD = 'sense: min\nvariables: {x: positive}\nobjective: "x + 1/x"\nanswer: "2"\n'
BAD = {
    # (file text, field named in the invalid row)
    "source-text-list": ("id: source-text-list\n" + GOOD + "source: {language: en, text: [1, 2]}\n", "source.text"),
    "source-language-int": ("id: source-language-int\nsource: {language: 12, text: x}\n", "source.language"),
    "source-translation-map": (
        "id: source-translation-map\n" + GOOD + "source: {language: zh, text: x, translation: {a: 1}}\n",
        "source.translation",
    ),
    "source-only-text-list": ("id: source-only-text-list\nsource: {language: en, text: [1, 2]}\n", "source.text"),
    "product-of-powers": (
        "id: product-of-powers\n" + GOOD.replace("x + 1/x", "*".join(["10^999"] * 140) + " + x + 1/x"),
        "objective",
    ),
    "top-level-list": ("- 1\n- 2\n", "(top level)"),
    "alias": ("id: alias\nsense: &s min\n", "(yaml)"),
    "id-differs": ("id: other\n" + GOOD, "id"),
}


def build_shard(tmp_path: Path, caller=None) -> list[dict]:
    files = []
    for fixture in sorted(FIXTURES.glob("*.yaml")):
        files.append(str(shutil.copy(fixture, tmp_path / fixture.name)))
    for stem, (text, _) in BAD.items():
        path = tmp_path / f"{stem}.yaml"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    out = tmp_path / "out"
    translate_shard(files, out / "translate.parquet", benchmark="b", dag_node="t", caller=caller)
    convert_shard(files, out / "translate.parquet", out / "convert.parquet", benchmark="b", dag_node="c")
    validate_shard(
        files,
        out / "convert.parquet",
        out / "problems.parquet",
        benchmark="b",
        dag_node="v",
        settings=Validation(starts=6),
    )
    return read_artifact(out / "problems.parquet", "problems").to_pylist()


def test_every_bad_file_is_invalid_with_file_and_field_and_good_ones_confirmed(tmp_path):
    rows = {r["problem_id"]: r for r in build_shard(tmp_path)}
    assert set(rows) == {p.stem for p in FIXTURES.glob("*.yaml")} | set(BAD)
    for stem, (_, field) in BAD.items():
        row = rows[stem]
        assert row["status"] == "invalid", row
        assert row["reason"].startswith(f"{tmp_path / stem}.yaml: {field}: "), row["reason"]
    for fixture in FIXTURES.glob("*.yaml"):
        assert rows[fixture.stem]["status"] == "confirmed", rows[fixture.stem]


class _DeadEndpoint:
    """An LLM caller whose endpoint cannot be reached: not one problem's fault."""

    label = "llm:dead"

    def call(self, messages, *, seed):
        raise LLMCallError("endpoint http://127.0.0.1:9/v1 refused the connection")


def test_an_unreachable_endpoint_fails_the_job_instead_of_marking_problems(tmp_path):
    path = tmp_path / "needs-llm.yaml"
    path.write_text("id: needs-llm\nsource: {language: zh, text: 设a为正数}\n", encoding="utf-8")
    with pytest.raises(LLMCallError):
        translate_shard([str(path)], tmp_path / "t.parquet", benchmark="b", dag_node="t", caller=_DeadEndpoint())
    assert not (tmp_path / "t.parquet").exists()
