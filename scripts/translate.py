"""translate: one shard of problem files to English (rules/problems.smk). An LLM endpoint starts only
when a translation is missing from the cache."""

from contextlib import nullcontext
from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.llm.calls import caller_for
from extrembench.sources.translate import translate_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
config = Config.model_validate(smk.config)
model = config.translate.model
with caller_for(config, model, server_log=Path(smk.log.server)) if model else nullcontext() as caller:
    translate_shard(
        smk.input.problems, Path(smk.output.translations), benchmark=wc.benchmark, dag_node=node, caller=caller
    )
