"""generate: one (benchmark, model, shard) (rules/evaluate.smk)."""

from pathlib import Path

from extrembench.cluster import preemption
from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.generation.run import generate_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
preemption.install()  # SIGTERM/SIGUSR1: flush the cache, stop the server, exit non-zero to be resubmitted
smk = snakemake  # noqa: F821
generate_shard(
    problems_path=Path(smk.input.problems),
    output=Path(smk.output.generations),
    stats_path=Path(smk.output.stats),
    benchmark=smk.wildcards.benchmark,
    model=smk.wildcards.model,
    config=Config.model_validate(smk.config),
    dag_node=node,
    server_log=Path(smk.log.server),
)
