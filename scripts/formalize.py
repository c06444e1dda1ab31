"""formalize: one shard of a statements file (id, statement, answer) to specs (rules/problems.smk):
the rule-based formalizer first, the convert model for what it cannot read."""

from contextlib import nullcontext
from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.llm.calls import caller_for
from extrembench.sources.formalize_stage import formalize_shard

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
config = Config.model_validate(smk.config)
settings, bench = config.convert, config.benchmarks[wc.benchmark]
model = settings.model
with caller_for(config, model, server_log=Path(smk.log.server)) if model else nullcontext() as caller:
    formalize_shard(
        Path(smk.input.statements),
        Path(smk.output.conversions),
        benchmark=wc.benchmark,
        shard=int(wc.shard),
        n_shards=bench.shards,
        limit=bench.limit,
        dag_node=node,
        caller=caller,
        max_attempts=settings.max_attempts,
    )
