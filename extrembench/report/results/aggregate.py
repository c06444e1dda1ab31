"""The aggregate rule's job: grade shards → leaderboard (Parquet, CSV, Markdown, checksums) and the
difficulty, technique, correlation and published-vs-reproduced tables."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from extrembench.cluster.cost import cost_table, read_generations, with_cost_columns
from extrembench.core import provenance
from extrembench.core.artifacts import file_record, read_artifact, write_artifact, write_csv, write_table
from extrembench.core.config import Config, config_hash
from extrembench.core.files import sha256_file, write_bytes_atomic
from extrembench.grading.guarded import GuardedEquivalence
from extrembench.report.results.by_date import build_date_split, DATE_SPLIT, read_problem_dates, split_date
from extrembench.report.results.front_page import write_front_page
from extrembench.report.results.leaderboard import (
    apply_ungraded_policy,
    build_correlations,
    build_difficulty,
    build_leaderboard,
    build_technique_table,
    restrict_to_certified,
    with_run_settings,
    write_markdown,
)
from extrembench.report.results.published import compare_published, published_for_run
from extrembench.report.results.slices import build_slices, SLICES, read_variants, slice_benchmarks

log = logging.getLogger(__name__)

# The columns of a leaderboard without rows: those every reader of it selects (the Markdown table,
# the figures, the end-of-run summary); the rest come with the first row.
EMPTY_BOARD = {
    "benchmark": "object",
    "model": "object",
    "extremal": "bool",
    "n_problems": "int64",
    "n_trials": "int64",
    "n_samples": "int64",
    "accuracy_mean": "float64",
    "accuracy_std": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
}


def aggregate(
    grade_files: Sequence[str],
    *,
    outputs: dict[str, Path],
    config: Config,
    published_dir: str | None,
    seed: int = 0,
    generation_files: Sequence[str] = (),
    dependents: Sequence[str | Path] = (),
    conversion_files: Sequence[str] = (),
    variant_files: Sequence[str] = (),
) -> None:
    """Leaderboard per (benchmark, model), each row stamped with the lineage of its number, plus
    the difficulty, technique, correlation and published-vs-reproduced tables.

    `dependents`: the files drawn from the previous leaderboard (the figures), removed before
    anything is written, and every output is written under a staging name and renamed only when
    all are written: a run killed at any point leaves the previous run's files or none, never a
    new leaderboard beside the previous run's figures (Snakemake removes this job's own outputs
    before it starts).

    `conversion_files`: the conversions tables whose `date` column the date-split table reads;
    `variant_files`: the vary stage's tables that pair each original with its variants (slices table)."""
    for path in dependents:
        Path(path).unlink(missing_ok=True)
    staged = {key: _staging_path(path) for key, path in outputs.items()}
    try:
        _aggregate(
            grade_files, staged, outputs, config, published_dir, seed, generation_files, conversion_files, variant_files
        )
        for key, path in staged.items():
            os.replace(path, outputs[key])
    finally:
        for path in staged.values():
            path.unlink(missing_ok=True)


def _staging_path(path: Path) -> Path:
    # hidden and not *.parquet: never taken for a result, nor scanned by the damaged-file check
    return Path(path).with_name(f".{Path(path).name}.partial")


def _aggregate(
    grade_files, outputs, final, config, published_dir, seed, generation_files, conversion_files, variant_files
) -> None:
    """aggregate's work, writing to `outputs` (staging paths of the `final` ones)."""
    import pandas as pd  # deferred: pandas costs start-up time and only this path needs it

    grades = pd.concat([read_artifact(p, "grades").to_pandas() for p in grade_files], ignore_index=True)
    ungraded = config.grading.ungraded
    require = config.aggregate.require_certificate
    grades = restrict_to_certified(grades, require)
    if require != "none":
        log.info("aggregate.require_certificate=%s: %d samples of certified problems kept", require, len(grades))
    # maj@k groups extracted answers (untrusted model output) by equivalence: under a hard timeout
    with GuardedEquivalence(timeout=config.grading.timeout_s, mode=config.grading.mode) as equivalent:
        # No benchmark had a problem to ask (each refuted or invalid: the end-of-run summary names
        # them): a leaderboard without rows, not a failed run that removes every earlier result.
        board = (
            build_leaderboard(grades, equivalent=equivalent, seed=seed, ungraded=ungraded)
            if len(grades)
            else pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in EMPTY_BOARD.items()})
        )
    if generation_files:  # the cost ledger columns (extrembench/cluster/cost)
        board = with_cost_columns(board, cost_table(read_generations(generation_files), config.models, config.cluster))
    board = with_run_settings(board, grade_files)  # judge, revision, sampling and seeds of each row
    grades = apply_ungraded_policy(grades, ungraded)  # the per-problem tables score them the same way
    if equivalent.timeouts:
        log.warning("maj@k: %d answer comparisons timed out and were counted as different answers", equivalent.timeouts)
    _add_provenance(board, grade_files, config)
    _write_leaderboard(board, outputs, final, grade_files=grade_files, seed=seed, ungraded=ungraded)
    write_csv(build_difficulty(grades), outputs["difficulty"])
    write_csv(build_technique_table(grades), outputs["techniques"])
    if "date_split" in outputs:
        _write_date_split(grades, grade_files, conversion_files, outputs, config, seed)
    if "slices" in outputs:
        _write_slices(grades, grade_files, variant_files, outputs, config, seed)
    write_csv(build_correlations(board, seed=seed), outputs["correlations"])
    published = published_for_run(published_dir, config)
    write_csv(compare_published(board, published), outputs["published"])
    log.info("leaderboard: %d rows from %d grade files", len(board), len(grade_files))


def _write_date_split(grades, grade_files, conversion_files, outputs, config, seed) -> None:
    """Accuracy before vs after each model's split date (report/results/by_date.py), from the
    grade rows the other per-problem tables score."""
    splits = {name: split_date(model) for name, model in config.models.items()}
    table = build_date_split(grades, read_problem_dates(conversion_files), splits, seed=seed)
    inputs = [*grade_files, *conversion_files]
    write_table(table, DATE_SPLIT, "date_split", outputs["date_split_parquet"], outputs["date_split"], inputs=inputs)
    dated = int(((table["n_before"] + table["n_after"]) > 0).sum())
    log.info("date split: %d rows, %d with a dated side", len(table), dated)


def _write_slices(grades, grade_files, variant_files, outputs, config, seed) -> None:
    """Per model, originals vs their variants vs the fresh benchmark (report/results/slices.py),
    from the grade rows the other per-problem tables score."""
    pairs, fresh = slice_benchmarks(config)
    models = config.evaluate.models
    table = build_slices(grades, read_variants(variant_files), pairs=pairs, fresh=fresh, models=models, seed=seed)
    write_table(
        table, SLICES, "slices", outputs["slices_parquet"], outputs["slices"], inputs=[*grade_files, *variant_files]
    )
    log.info("slices: %d rows, %d with a note", len(table), int((table["note"] != "").sum()))


def _add_provenance(board, grade_files, config) -> None:
    """The columns that say what produced the leaderboard: inputs, config, git state, versions."""
    records = [file_record(p) for p in grade_files]
    git = provenance.git_state()
    board["inputs_sha256"] = provenance.inputs_hash(records)
    board["config_sha256"] = config_hash(config)
    board["git_commit"] = git["git_commit"]
    board["git_dirty"] = git["git_dirty"]
    board["versions_json"] = json.dumps(provenance.versions(), sort_keys=True)


def _write_leaderboard(board, outputs, final, *, grade_files, seed, ungraded: str) -> None:
    """The leaderboard as Parquet, CSV and Markdown, with their checksums and the front page when asked."""
    import pyarrow as pa  # deferred: pyarrow costs start-up time and only this path needs it

    table = pa.Table.from_pandas(board, preserve_index=False)
    # audit recomputes accuracy and interval from the grade rows: it needs the seed and the policy
    write_artifact(
        table,
        outputs["parquet"],
        "leaderboard",
        schema=table.schema,
        inputs=grade_files,
        extra_metadata={"bootstrap_seed": str(seed), "ungraded": ungraded},
    )
    write_csv(board, outputs["csv"])
    write_markdown(board, outputs["md"])
    if "checksums" in outputs:
        write_checksums(
            [outputs["parquet"], outputs["csv"], outputs["md"]],
            outputs["checksums"],
            names=[final["parquet"], final["csv"], final["md"]],
        )
    if "front_page" in outputs:
        write_front_page(board, outputs["front_page"])


def write_checksums(paths: Sequence[str | Path], output: Path, *, names: Sequence[str | Path] | None = None) -> None:
    """`sha256sum -c`-style lines for the leaderboard files; `extrembench audit` rechecks them.
    `names`: the paths to record for `paths` (the final names of files written under staging names)."""
    lines = [f"{sha256_file(p)}  {name}\n" for p, name in zip(paths, names or paths, strict=True)]
    write_bytes_atomic(output, "".join(lines).encode())
