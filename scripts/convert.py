"""convert: one shard of problem files to machine-checkable specs (rules/problems.smk). An LLM
endpoint starts only when a source-only file's conversion is missing from the cache."""

import json
from contextlib import nullcontext
from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.llm.calls import caller_for
from extrembench.sources.convert import convert_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
config = Config.model_validate(smk.config)
settings = config.convert
model = settings.model
with caller_for(config, model, server_log=Path(smk.log.server)) if model else nullcontext() as caller:
    convert_shard(
        smk.input.problems,
        Path(smk.input.translations),
        Path(smk.output.conversions),
        benchmark=wc.benchmark,
        dag_node=node,
        caller=caller,
        max_attempts=settings.max_attempts,
        refused=json.loads(smk.params.refused),
    )
