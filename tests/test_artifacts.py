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


def test_damaged_artifacts_are_named_with_the_fix(tmp_path):
    """Issue 30 item 7: a truncated file, a Parquet file of another shape and one of the right
    kind but a changed schema are each named with why; a good artifact is not."""
    import pyarrow.parquet as pq

    from extrembench.core.artifacts import ArtifactError, artifact_problem, damaged_artifacts

    good = write_artifact([], tmp_path / "a/good.parquet", "grades")
    truncated = tmp_path / "a/truncated.parquet"
    truncated.write_bytes(good.read_bytes()[:100])
    foreign = tmp_path / "b/foreign.parquet"
    foreign.parent.mkdir()
    pq.write_table(pa.table({"x": [1]}), foreign)
    reshaped = tmp_path / "b/reshaped.parquet"
    table = pa.table({"x": [1]}).replace_schema_metadata({b"extrembench.kind": b"grades"})
    pq.write_table(table, reshaped)
    assert artifact_problem(good) is None
    assert damaged_artifacts(tmp_path) == [
        (truncated, artifact_problem(truncated)),
        (foreign, "no extrembench.kind metadata (not written by this pipeline)"),
        (reshaped, "schema does not match artifact kind 'grades'"),
    ]
    assert artifact_problem(truncated).startswith("unreadable Parquet")
    for path in (truncated, reshaped):
        with pytest.raises(ArtifactError, match=f"{path}: .*delete it and rerun snakemake"):
            read_artifact(path, "grades")
