"""ingest: one shard of an official dataset from its local copy (rules/build.smk)."""

from pathlib import Path

from extrembench.build.ingest import ingest_shard
from extrembench.config import Config
from extrembench.workflow import start_job

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
bench = Config.model_validate(smk.config).benchmarks[smk.wildcards.benchmark]
ingest_shard(bench.dataset, Path(smk.params.root), Path(smk.output.problems),
             benchmark=smk.wildcards.benchmark, shard=int(smk.wildcards.shard),
             n_shards=bench.shards, limit=bench.limit, dag_node=node)
