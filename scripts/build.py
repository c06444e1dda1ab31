"""translate / convert / formalize / validate one shard, and the review table (rules/build.smk)."""

from contextlib import ExitStack
from pathlib import Path

from extrembench import stages
from extrembench.config import Config
from extrembench.llm_calls import caller_for
from extrembench.workflow import start_job

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
config = Config.model_validate(smk.config)
# translate, convert and formalize may start an LLM server; validate and review never do
server_log = Path(smk.log.server) if hasattr(smk.log, "server") else None
with ExitStack() as stack:
    # An LLM caller starts its endpoint only when a call is missing from the cache.
    stage = {"translate": "translate", "convert": "convert", "formalize": "convert"}.get(smk.rule)
    llm = getattr(config, stage).model if stage else None
    caller = stack.enter_context(caller_for(config, llm, server_log=server_log)) if llm else None
    if smk.rule == "translate":
        stages.translate_shard(smk.input.problems, Path(smk.output.translations), benchmark=wc.benchmark,
                               dag_node=node, caller=caller)
    elif smk.rule == "convert":
        stages.convert_shard(smk.input.problems, Path(smk.input.translations), Path(smk.output.conversions),
                             benchmark=wc.benchmark, dag_node=node, caller=caller,
                             max_attempts=config.convert.max_attempts)
    elif smk.rule == "formalize":
        bench = config.benchmarks[wc.benchmark]
        stages.formalize_shard(Path(smk.input.statements), Path(smk.output.conversions), benchmark=wc.benchmark,
                               shard=int(wc.shard), n_shards=bench.shards, limit=bench.limit, dag_node=node,
                               caller=caller, max_attempts=config.convert.max_attempts)
    elif smk.rule == "review":
        stages.review_table(list(smk.input.problems), Path(smk.output.review))
    else:
        stages.validate_shard(smk.input.problems, Path(smk.input.conversions), Path(smk.output.problems),
                              benchmark=wc.benchmark, dag_node=node, settings=config.validation)
