"""validate: check one shard of specs by computation and certify them (rules/build.smk)."""

from pathlib import Path

from extrembench.build.validate import validate_shard
from extrembench.config import Config
from extrembench.workflow import start_job

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
validate_shard(smk.input.problems, Path(smk.input.conversions), Path(smk.output.problems),
               benchmark=wc.benchmark, dag_node=node, settings=Config.model_validate(smk.config).validation)
