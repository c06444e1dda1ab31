"""Every Parquet artifact the pipeline passes between stages: its schema and the one writer.

Identical content must give identical bytes, so the writer fixes every option that could vary
(compression, row-group size, statistics, no pandas index) and the data columns hold no
wall-clock values. Each file carries its lineage in the schema metadata: the (path, sha256) of
every input it was built from, which is what `extrembench audit` walks.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from extrembench.core.files import atomic_output, sha256_file

ARTIFACT_VERSION = "1"
INPUTS_KEY = b"extrembench.inputs"
KIND_KEY = b"extrembench.kind"
VERSION_KEY = b"extrembench.artifact_version"

_str = pa.string()
_tags = pa.list_(pa.string())


def _schema(*fields: str | tuple[str, pa.DataType]) -> pa.Schema:
    """A schema from column names (string columns) and (name, type) pairs, in order."""
    return pa.schema([(f, _str) if isinstance(f, str) else f for f in fields])


TRANSLATIONS = _schema(
    "benchmark",
    "problem_id",
    "source_path",
    "source_sha256",
    "language",
    "source_text",
    "translation",
    "translated_by",  # curated | original | llm:<model> | none
    "error",  # the file could not be read
    "translation_error",  # no translation: why (LLM failure, nothing configured)
    "translation_raw",  # the LLM's unusable reply, kept for review
    "translation_call_key",  # cache key of the recorded LLM call
    "dag_node",
)

CONVERSIONS = _schema(
    "benchmark",
    "problem_id",
    "source_path",
    "source_sha256",
    "sense",
    "variables_json",
    "constraints_json",
    "objective",
    "answer",
    "statement",
    ("technique", _tags),
    "difficulty",
    "date",  # YYYY, YYYY-MM or YYYY-MM-DD: when the source problem was set (accuracy by date)
    "converted_by",  # curated | inequality | llm:<model>
    "error",  # set when the file could not be loaded or converted
    "error_field",
    ("llm_attempts", pa.int32()),  # LLM conversion only: attempts made, raw replies, call keys
    "llm_raw_outputs_json",
    ("llm_call_keys", _tags),
    "dag_node",
)

# The problem table a benchmark is evaluated on: written by validate for extremal sets and by
# ingest for companion benchmarks. Only rows with status 'confirmed' (or 'ingested') are asked.
PROBLEMS = _schema(
    "benchmark",
    "problem_id",
    "source_path",
    "source_sha256",
    "statement",
    "answer",
    "answer_type",  # number | set | variable | description
    "sense",
    ("technique", _tags),
    "difficulty",
    "spec_json",  # the machine-checkable spec (extremal sets only)
    "status",  # confirmed | refuted | not_attained | inconclusive | invalid | ingested
    "reason",
    ("best_value", pa.float64()),
    "witness_json",
    "certificate",  # canonical JSON of the verdict's certificate (extrembench.verify.checker)
    "certificate_kind",  # bound | sos | numeric (confirmed), refutation | unbounded (refuted), empty (invalid: no feasible point)
    "certificate_verifier",  # version of the verifier that checked it
    "dag_node",
)

GENERATIONS = _schema(
    "benchmark",
    "model",
    "problem_id",
    ("trial", pa.int32()),
    "source_sha256",
    "cache_key",
    "model_id",
    "model_revision",
    "engine",
    "engine_version",
    "sampling_json",  # every sampling parameter sent, incl. seed and max_tokens
    ("seed", pa.int64()),
    "content",
    "reasoning_content",
    "finish_reason",  # stop | length | error | abstain
    "error",
    ("prompt_tokens", pa.int64()),
    ("completion_tokens", pa.int64()),
    ("latency_s", pa.float64()),
    "host",  # where the response was produced (from the cache entry)
    "slurm_job_id",
    "dag_node",
    # this response's share of its producing job attempt's GPU- and wall-seconds (cost ledger,
    # generation/ledger.py); null when that attempt left no ledger entry
    ("gpu_seconds", pa.float64()),
    ("wall_seconds", pa.float64()),
)

GRADES = _schema(
    "benchmark",
    "model",
    "problem_id",
    ("trial", pa.int32()),
    "source_sha256",
    "cache_key",
    "gold",
    "answer_type",
    "sense",
    ("technique", _tags),
    "difficulty",
    "certificate_kind",  # the problem's certificate kind, for aggregate.require_certificate
    "extracted",
    ("correct", pa.bool_()),  # null = ungraded
    "status",  # correct | wrong | no_answer | ungraded
    "reason",
    ("correct_math_verify", pa.bool_()),
    ("correct_amo_official", pa.bool_()),
    ("modes_disagree", pa.bool_()),
    "finish_reason",
    ("prompt_tokens", pa.int64()),
    ("completion_tokens", pa.int64()),
    "grader",
    "grader_version",
    "scope",  # grading.scope the row's verdict follows: final | anywhere
    ("correct_final", pa.bool_()),  # the final-section reading (null = ungraded)
    ("correct_anywhere", pa.bool_()),  # the reading that also takes a box left in the reasoning
    "reasoning_answer",  # the last box in the reasoning, when the final section states no answer
    "dag_node",
)

# Every candidate variant the vary stage tried (confirmed and dropped), one row each, with the
# parent it came from and what was changed: what `extrembench audit` shows for a variant score.
VARIANTS = _schema(
    "benchmark",  # the parent benchmark
    "variant_benchmark",  # <benchmark>-variants: where confirmed variants are asked
    "problem_id",  # <parent_id>~<kind>-<n>
    "parent_id",
    "parent_source_path",
    "parent_sha256",
    "kind",  # constants | rename | rephrase
    "technique",  # homogeneity | stationary (rational point | stationary point) | alphabet | phrasing
    "transformation",  # "field: old → new; ..."
    "transformation_json",
    "content_sha256",  # sha256 of the variant's own spec, answer and statement
    "statement",
    "answer",  # plain text (exact)
    "sense",
    "spec_json",  # the spec without the answer, as the problems table holds it
    "status",  # confirmed | dropped
    "drop_reason",
    "validation_status",  # the validator's verdict on the variant (constants), else inherited
    "validation_reason",
    ("best_value", pa.float64()),
    "witness_json",
    ("seed", pa.int64()),
    "dag_node",
)

# How each graded sample of an extremal benchmark missed (report/misses/classify.py, docs/metrics.md "How
# models miss"): one row per grade row that is not `failed`, exactly one class each.
MISSES = _schema(
    "benchmark",
    "model",
    "problem_id",
    ("trial", pa.int32()),
    "source_sha256",
    "cache_key",
    "sense",
    "gold",
    "certificate_kind",
    "grade_status",  # the grade row's status
    "extracted",  # the grade row's extracted answer
    "miss_class",  # correct | no_answer | answer_in_reasoning_only | unparsable | non_real | beyond_extremum |
    # suboptimal_attained | wrong_sense_value | suboptimal_unexplained | undecided
    "kind",  # suboptimal_attained: all_equal | boundary | other_feasible
    "proof",  # beyond_extremum: bound | sos | numeric; wrong_sense_value: search
    "witness_json",  # the feasible point that attains the claim (exact, or 20-digit text)
    "claim_value",  # the claim to 20 significant digits
    "opposite_extremum",  # the opposite sense's extremum, when it was computed
    "reasoning_answer",  # answer_in_reasoning_only: the last value boxed in the reasoning
    ("reasoning_correct", pa.bool_()),  # ... and the grader's verdict on it (null: not graded)
    "reason",
    ("work", pa.int64()),  # local searches + 50-digit re-checks spent (counts, never seconds)
    "misses_version",
    "dag_node",
)

SCHEMAS: dict[str, pa.Schema] = {
    "translations": TRANSLATIONS,
    "conversions": CONVERSIONS,
    "problems": PROBLEMS,
    "generations": GENERATIONS,
    "grades": GRADES,
    "variants": VARIANTS,
    "misses": MISSES,
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


REBUILD_HINT = "delete it and rerun snakemake, which rebuilds it from its inputs"


class ArtifactError(ValueError):
    """An artifact that cannot be used: unreadable (truncated, not Parquet) or of the wrong schema."""


def read_artifact(path: str | os.PathLike, kind: str | None = None) -> pa.Table:
    """Read an artifact back, checking its schema when `kind` is given; ArtifactError naming the
    file and the fix when it is damaged."""
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ArtifactError(f"{path}: unreadable Parquet ({str(exc)[:200]}); {REBUILD_HINT}") from None
    if kind is not None:
        expected = SCHEMAS[kind]
        if not table.schema.remove_metadata().equals(expected):
            raise ArtifactError(f"{path}: schema does not match artifact kind {kind!r}; {REBUILD_HINT}")
    return table


# Where the stages write (rules/*.smk): <benchmark>/<stage>/shard-N.parquet, and
# <benchmark>/<stage>/<model>/shard-N.parquet for the per-model stages. A valid artifact of
# another stage copied to one of these paths reads as healthy by its own metadata; its folder says
# what belongs there.
_STAGE_KINDS = {"translate": "translations", "convert": "conversions", "problems": "problems", "variants": "variants"}
_MODEL_STAGE_KINDS = {"generate": "generations", "grade": "grades", "misses": "misses"}
_SHARD_NAME = re.compile(r"shard-\d+\.parquet")


def expected_kinds(path: str | os.PathLike) -> set[str]:
    """The artifact kinds the pipeline writes at `path`, from its place alone (empty: not a stage
    path). Both readings of a path are kept (a benchmark or model may be named like a stage)."""
    path = Path(path)
    if path.name == "leaderboard.parquet":
        return {"leaderboard"}
    if not _SHARD_NAME.fullmatch(path.name):
        return set()
    kinds = set()
    if path.parent.name in _STAGE_KINDS:
        kinds.add(_STAGE_KINDS[path.parent.name])
    if path.parent.parent.name in _MODEL_STAGE_KINDS:
        kinds.add(_MODEL_STAGE_KINDS[path.parent.parent.name])
    return kinds


def artifact_problem(path: str | os.PathLike) -> str | None:
    """Why the Parquet file at `path` is not a usable artifact (from its footer only: cheap), or None."""
    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as exc:
        return f"unreadable Parquet ({str(exc)[:200]})"
    kind = (schema.metadata or {}).get(KIND_KEY, b"").decode()
    if not kind:
        return "no extrembench.kind metadata (not written by this pipeline)"
    if kind in SCHEMAS and not schema.remove_metadata().equals(SCHEMAS[kind]):
        return f"schema does not match artifact kind {kind!r}"
    expected = expected_kinds(path)
    if expected and kind not in expected:
        return f"an artifact of kind {kind!r} where {' or '.join(map(repr, sorted(expected)))} belongs"
    return None


def damaged_artifacts(root: str | os.PathLike) -> list[tuple[Path, str]]:
    """(path, why) for every `*.parquet` under `root` that is not a usable artifact, sorted."""
    found = []
    for path in sorted(Path(root).rglob("*.parquet")) if Path(root).is_dir() else ():
        problem = artifact_problem(path)
        if problem is not None:
            found.append((path, problem))
    return found


def read_lineage(path: str | os.PathLike) -> list[dict[str, str]]:
    metadata = pq.read_schema(path).metadata or {}
    return json.loads(metadata.get(INPUTS_KEY, b"[]"))


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    metadata = pq.read_schema(path).metadata or {}
    return {k.decode(): v.decode() for k, v in metadata.items() if k.startswith(b"extrembench.")}


def lineage_inputs(path: str | os.PathLike) -> dict[str, Path]:
    """The Parquet inputs a file was made from (its lineage) that still exist, by artifact kind."""
    found: dict[str, Path] = {}
    for record in read_lineage(path):
        source = Path(record["path"])
        if source.suffix == ".parquet" and source.exists():
            found[read_metadata(source).get("extrembench.kind", "?")] = source
    return found


def write_csv(frame, path: Path) -> None:
    """Tables for people: fixed float format and line ends, so equal content gives equal bytes."""
    with atomic_output(path) as tmp:
        frame.to_csv(tmp, index=False, float_format="%.6g", lineterminator="\n")


def write_table(
    frame, schema: pa.Schema, kind: str, parquet: Path, csv: Path, *, inputs: Iterable[str | os.PathLike]
) -> None:
    """A report table twice: as an artifact of `kind` (Parquet, `schema`) and as its CSV rendering."""
    write_artifact(
        pa.Table.from_pandas(frame, schema=schema, preserve_index=False), parquet, kind, schema=schema, inputs=inputs
    )
    write_csv(frame, csv)
