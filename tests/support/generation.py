"""The generate stage run on one shard the way the generation tests run it: problems from
tmp_path/problems.parquet, one model `m` of benchmark `t`, outputs beside it (the rows at `output`
when a test names its own)."""

from __future__ import annotations

from pathlib import Path

from extrembench.generation.run import generate_shard


def run_shard(tmp_path: Path, config, output: Path | None = None) -> dict:
    return generate_shard(
        problems_path=tmp_path / "problems.parquet",
        output=output or tmp_path / "out.parquet",
        stats_path=tmp_path / "stats.json",
        benchmark="t",
        model="m",
        config=config,
        dag_node="generate[t]",
        server_log=tmp_path / "server.log",
    )
