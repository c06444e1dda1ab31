"""The one Parquet writer: explicit schemas, byte-identical output, lineage, atomic writes."""

from __future__ import annotations

import pyarrow as pa
import pytest

from extrembench.core.artifacts import SCHEMAS, read_artifact, read_lineage, write_artifact
from extrembench.core.files import sha256_file


def _row(kind: str) -> dict:
    row = {}
    for field in SCHEMAS[kind]:
        if pa.types.is_list(field.type):
            row[field.name] = ["am-gm"]
        elif pa.types.is_string(field.type):
            row[field.name] = f"{field.name}-value"
        elif pa.types.is_boolean(field.type):
            row[field.name] = True
        elif pa.types.is_floating(field.type):
            row[field.name] = 0.5
        else:
            row[field.name] = 3
    return row


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_round_trip_and_identical_bytes(kind, tmp_path):
    source = tmp_path / "input.yaml"
    source.write_text("id: x\n")
    first = write_artifact([_row(kind)], tmp_path / "a.parquet", kind, inputs=[source])
    second = write_artifact([_row(kind)], tmp_path / "b.parquet", kind, inputs=[source])
    assert first.read_bytes() == second.read_bytes()
    assert read_artifact(first, kind).to_pylist() == [_row(kind)]
    assert read_lineage(first) == [{"path": str(source), "sha256": sha256_file(source)}]


def test_missing_or_extra_field_is_refused(tmp_path):
    row = _row("grades")
    del row["correct"]
    with pytest.raises(ValueError, match=r"missing fields \['correct'\]"):
        write_artifact([row], tmp_path / "g.parquet", "grades")
    row = {**_row("grades"), "surprise": 1}
    with pytest.raises(ValueError, match=r"extra fields \['surprise'\]"):
        write_artifact([row], tmp_path / "g.parquet", "grades")
    assert not list(tmp_path.iterdir()), "a refused write leaves no file, partial or final"


def test_reading_with_the_wrong_kind_is_refused(tmp_path):
    path = write_artifact([_row("grades")], tmp_path / "g.parquet", "grades")
    with pytest.raises(ValueError, match="does not match artifact kind 'generations'"):
        read_artifact(path, "generations")
