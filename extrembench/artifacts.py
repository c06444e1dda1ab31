"""Every Parquet artifact the pipeline passes between stages: its schema and the one writer.

Identical content must give identical bytes, so the writer fixes every option that could vary
(compression, row-group size, statistics, no pandas index) and the data columns hold no
wall-clock values. Each file carries its lineage in the schema metadata: the (path, sha256) of
every input it was built from, which is what `extrembench audit` walks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from extrembench.files import atomic_output, sha256_file

ARTIFACT_VERSION = "1"
INPUTS_KEY = b"extrembench.inputs"
KIND_KEY = b"extrembench.kind"
VERSION_KEY = b"extrembench.artifact_version"

_str = pa.string()
_tags = pa.list_(pa.string())

TRANSLATIONS = pa.schema(
    [
        ("benchmark", _str),
        ("problem_id", _str),
        ("source_path", _str),
        ("source_sha256", _str),
        ("language", _str),
        ("source_text", _str),
        ("translation", _str),
        ("translated_by", _str),  # curated | original | llm:<model> | none
        ("error", _str),  # the file could not be read
        ("translation_error", _str),  # no translation: why (LLM failure, nothing configured)
        ("translation_raw", _str),  # the LLM's unusable reply, kept for review
        ("translation_call_key", _str),  # cache key of the recorded LLM call
        ("dag_node", _str),
    ]
)

CONVERSIONS = pa.schema(
    [
        ("benchmark", _str),
        ("problem_id", _str),
        ("source_path", _str),
        ("source_sha256", _str),
        ("sense", _str),
        ("variables_json", _str),
        ("constraints_json", _str),
        ("objective", _str),
        ("answer", _str),
        ("statement", _str),
        ("technique", _tags),
        ("difficulty", _str),
        ("converted_by", _str),  # curated | inequality | llm:<model>
        ("error", _str),  # set when the file could not be loaded or converted
        ("error_field", _str),
        ("llm_attempts", pa.int32()),  # LLM conversion only: attempts made, raw replies, call keys
        ("llm_raw_outputs_json", _str),
        ("llm_call_keys", _tags),
        ("dag_node", _str),
    ]
)

# The problem table a benchmark is evaluated on: written by validate for extremal sets and by
# ingest for companion benchmarks. Only rows with status 'confirmed' (or 'ingested') are asked.
PROBLEMS = pa.schema(
    [
        ("benchmark", _str),
        ("problem_id", _str),
        ("source_path", _str),
        ("source_sha256", _str),
        ("statement", _str),
        ("answer", _str),
        ("answer_type", _str),  # number | set | variable | description
        ("sense", _str),
        ("technique", _tags),
        ("difficulty", _str),
        ("spec_json", _str),  # the machine-checkable spec (extremal sets only)
        ("status", _str),  # confirmed | refuted | not_attained | inconclusive | invalid | ingested
        ("reason", _str),
        ("best_value", pa.float64()),
        ("witness_json", _str),
        ("certificate", _str),  # canonical JSON of a confirmed answer's certificate (extrembench.build.certificates)
        ("certificate_kind", _str),  # bound | sos | numeric; null when not confirmed
        ("certificate_verifier", _str),  # version of the verifier that checked it
        ("dag_node", _str),
    ]
)

GENERATIONS = pa.schema(
    [
        ("benchmark", _str),
        ("model", _str),
        ("problem_id", _str),
        ("trial", pa.int32()),
        ("source_sha256", _str),
        ("cache_key", _str),
        ("model_id", _str),
        ("model_revision", _str),
        ("engine", _str),
        ("engine_version", _str),
        ("sampling_json", _str),  # every sampling parameter sent, incl. seed and max_tokens
        ("seed", pa.int64()),
        ("content", _str),
        ("reasoning_content", _str),
        ("finish_reason", _str),  # stop | length | error | abstain
        ("error", _str),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("latency_s", pa.float64()),
        ("host", _str),  # where the response was produced (from the cache entry)
        ("slurm_job_id", _str),
        ("dag_node", _str),
        # this response's share of its producing job attempt's GPU- and wall-seconds (cost ledger,
        # generation/ledger.py); null when that attempt left no ledger entry
        ("gpu_seconds", pa.float64()),
        ("wall_seconds", pa.float64()),
    ]
)

GRADES = pa.schema(
    [
        ("benchmark", _str),
        ("model", _str),
        ("problem_id", _str),
        ("trial", pa.int32()),
        ("source_sha256", _str),
        ("cache_key", _str),
        ("gold", _str),
        ("answer_type", _str),
        ("sense", _str),
        ("technique", _tags),
        ("difficulty", _str),
        ("certificate_kind", _str),  # the problem's certificate kind, for aggregate.require_certificate
        ("extracted", _str),
        ("correct", pa.bool_()),  # null = ungraded
        ("status", _str),  # correct | wrong | no_answer | ungraded
        ("reason", _str),
        ("correct_math_verify", pa.bool_()),
        ("correct_amo_official", pa.bool_()),
        ("modes_disagree", pa.bool_()),
        ("finish_reason", _str),
        ("prompt_tokens", pa.int64()),
        ("completion_tokens", pa.int64()),
        ("grader", _str),
        ("grader_version", _str),
        ("dag_node", _str),
    ]
)

# Every candidate variant the vary stage tried (confirmed and dropped), one row each, with the
# parent it came from and what was changed: what `extrembench audit` shows for a variant score.
VARIANTS = pa.schema(
    [
        ("benchmark", _str),  # the parent benchmark
        ("variant_benchmark", _str),  # <benchmark>-variants: where confirmed variants are asked
        ("problem_id", _str),  # <parent_id>~<kind>-<n>
        ("parent_id", _str),
        ("parent_source_path", _str),
        ("parent_sha256", _str),
        ("kind", _str),  # constants | rename | rephrase
        ("technique", _str),  # homogeneity | stationary (rational point | stationary point) | alphabet | phrasing
        ("transformation", _str),  # "field: old → new; ..."
        ("transformation_json", _str),
        ("content_sha256", _str),  # sha256 of the variant's own spec, answer and statement
        ("statement", _str),
        ("answer", _str),  # plain text (exact)
        ("sense", _str),
        ("spec_json", _str),  # the spec without the answer, as the problems table holds it
        ("status", _str),  # confirmed | dropped
        ("drop_reason", _str),
        ("validation_status", _str),  # the validator's verdict on the variant (constants), else inherited
        ("validation_reason", _str),
        ("best_value", pa.float64()),
        ("witness_json", _str),
        ("seed", pa.int64()),
        ("dag_node", _str),
    ]
)

SCHEMAS: dict[str, pa.Schema] = {
    "translations": TRANSLATIONS,
    "conversions": CONVERSIONS,
    "problems": PROBLEMS,
    "generations": GENERATIONS,
    "grades": GRADES,
    "variants": VARIANTS,
}


def file_record(path: str | os.PathLike) -> dict[str, str]:
    """(path, sha256) of one input, path kept as given (relative to the workdir)."""
    return {"path": str(path), "sha256": sha256_file(path)}


def build_table(rows: Iterable[Mapping], schema: pa.Schema) -> pa.Table:
    """Rows → table with exactly `schema`; a missing or extra field is a programming error."""
    rows = list(rows)
    names = set(schema.names)
    for index, row in enumerate(rows):
        extra = set(row) - names
        missing = names - set(row)
        if extra or missing:
            raise ValueError(f"row {index}: extra fields {sorted(extra)}, missing fields {sorted(missing)}")
    return pa.Table.from_pylist(rows, schema=schema)


def write_artifact(
    rows: Iterable[Mapping] | pa.Table,
    path: str | os.PathLike,
    kind: str,
    *,
    schema: pa.Schema | None = None,
    inputs: Iterable[str | os.PathLike] = (),
    extra_metadata: Mapping[str, str] | None = None,
) -> Path:
    """Write one artifact atomically (temp file + rename): a crash never leaves a partial file
    under the final name. `inputs` are hashed into the file's lineage metadata."""
    schema = schema or SCHEMAS[kind]
    table = rows if isinstance(rows, pa.Table) else build_table(rows, schema)
    table = table.cast(schema)
    lineage = [file_record(p) for p in sorted({str(p) for p in inputs})]
    metadata = {
        KIND_KEY: kind.encode(),
        VERSION_KEY: ARTIFACT_VERSION.encode(),
        INPUTS_KEY: json.dumps(lineage, sort_keys=True).encode(),
    }
    for key, value in (extra_metadata or {}).items():
        metadata[f"extrembench.{key}".encode()] = value.encode()
    table = table.replace_schema_metadata(metadata)
    path = Path(path)
    with atomic_output(path) as tmp:
        pq.write_table(
            table,
            tmp,
            compression="zstd",
            compression_level=3,
            use_dictionary=True,
            write_statistics=False,
            row_group_size=1 << 20,
            store_schema=True,
        )
    return path


def read_artifact(path: str | os.PathLike, kind: str | None = None) -> pa.Table:
    """Read an artifact back, checking its schema when `kind` is given."""
    table = pq.read_table(path)
    if kind is not None:
        expected = SCHEMAS[kind]
        if not table.schema.remove_metadata().equals(expected):
            raise ValueError(f"{path}: schema does not match artifact kind {kind!r}; rebuild it")
    return table


def read_lineage(path: str | os.PathLike) -> list[dict[str, str]]:
    metadata = pq.read_schema(path).metadata or {}
    return json.loads(metadata.get(INPUTS_KEY, b"[]"))


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    metadata = pq.read_schema(path).metadata or {}
    return {k.decode(): v.decode() for k, v in metadata.items() if k.startswith(b"extrembench.")}


# --- the rule's job: read artifacts, run this stage per problem, write its artifact


def write_csv(frame, path: Path) -> None:
    """Tables for people: fixed float format and line ends, so equal content gives equal bytes."""
    with atomic_output(path) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.6g", lineterminator="\n")
