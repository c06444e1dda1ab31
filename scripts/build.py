"""translate / convert / validate one shard of an extremal benchmark (rules/build.smk)."""

from pathlib import Path

from extrembench import stages
from extrembench.workflow import start_job

node = start_job(snakemake)  # noqa: F821 (injected by Snakemake)
smk, wc = snakemake, snakemake.wildcards  # noqa: F821
if smk.rule == "translate":
    stages.translate_shard(smk.input.problems, Path(smk.output.translations), benchmark=wc.benchmark, dag_node=node)
elif smk.rule == "convert":
    stages.convert_shard(smk.input.problems, Path(smk.input.translations), Path(smk.output.conversions),
                         benchmark=wc.benchmark, dag_node=node)
else:
    settings = smk.config["validation"]
    stages.validate_shard(smk.input.problems, Path(smk.input.conversions), Path(smk.output.problems),
                          benchmark=wc.benchmark, dag_node=node, time_budget_s=settings["time_budget_s"],
                          seed=settings["seed"])
