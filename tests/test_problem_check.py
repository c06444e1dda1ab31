"""Audit's re-derivation of a problems table's gold from its source, for an ingested dataset
(issue 30 item 3): the answers are read again from the checksum-verified dataset files the
table's lineage names, so an answer edited inside the Parquet file is named."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import require_shared_data

from extrembench.report.audit.problem_check import check_problem_table
from extrembench.sources.ingest import ingest_shard, local_root

pytestmark = pytest.mark.usefixtures("shared_datasets")


def test_ingested_answers_are_read_again_from_the_dataset(tmp_path):
    require_shared_data(("aime2025",))
    table = tmp_path / "problems.parquet"
    ingest_shard(
        "aime2025", local_root("aime2025"), table, benchmark="aime", shard=0, n_shards=1, limit=None, dag_node="i"
    )
    clean = check_problem_table(table)
    assert clean.problems == [] and clean.answers == 30
    original = pq.read_table(table)
    rows = original.to_pylist()
    edited = rows[3]["problem_id"]
    rows[3]["answer"] = "999"
    pq.write_table(pa.Table.from_pylist(rows, schema=original.schema), table)
    [problem] = check_problem_table(table).problems
    assert problem.startswith(f"{table}: {edited}: gold '999' differs from its source") and "(aime2025)" in problem
