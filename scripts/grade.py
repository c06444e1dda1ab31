"""grade: one (benchmark, model, shard) (rules/evaluate.smk)."""

from pathlib import Path

from extrembench.core.config import Config
from extrembench.core.workflow import start_job
from extrembench.grading.shard import grade_shard
from extrembench.llm.judge import judge_for

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk = snakemake  # noqa: F821
config = Config.model_validate(smk.config)
settings = config.grading
# The LLM judge (descriptive answers only) starts its endpoint only if a vote is not cached.
judge = judge_for(config, server_log=Path(smk.log.server))
try:
    grade_shard(
        Path(smk.input.generations),
        Path(smk.input.problems),
        Path(smk.output.grades),
        dag_node=node,
        mode=settings.mode,
        timeout_s=settings.timeout_s,
        judge=judge,
        scope=settings.scope,
        reasons=config.models[smk.wildcards.model].reasons,
    )
finally:
    if judge is not None:
        judge.caller.close()
