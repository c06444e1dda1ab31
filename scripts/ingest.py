"""ingest: one shard of an official dataset from its local copy (rules/problems.smk)."""

from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.sources.ingest import ingest_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
bench = Config.model_validate(smk.config).benchmarks[smk.wildcards.benchmark]
ingest_shard(
    bench.dataset,
    Path(smk.params.root),
    Path(smk.output.problems),
    benchmark=smk.wildcards.benchmark,
    shard=int(smk.wildcards.shard),
    n_shards=bench.shards,
    limit=bench.limit,
    dag_node=node,
)
