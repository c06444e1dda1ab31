"""validate: check one shard of specs by computation and certify them (rules/problems.smk)."""

from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.verify.stage import validate_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
validate_shard(
    smk.input.problems,
    Path(smk.input.conversions),
    Path(smk.output.problems),
    benchmark=wc.benchmark,
    dag_node=node,
    settings=Config.model_validate(smk.config).validation,
)
