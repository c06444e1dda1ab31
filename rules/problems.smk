# Build the extremal benchmark from its problem files: translate → convert → validate.
# One job per (benchmark, shard); a problem's shard is a stable hash of its id.

from extrembench.generation.constant import benchmark_constant


rule translate:
    wildcard_constraints:
        benchmark=EXTREMAL_NAMES,
    input:
        problems=shard_problem_files,
    output:
        translations=f"{RESULTS}/{{benchmark}}/translate/shard-{{shard}}.parquet",
    log:
        job=f"{RESULTS}/logs/translate/{{benchmark}}/shard-{{shard}}.log",
        # the LLM server this job may start (only when a call is missing from the cache)
        server=f"{RESULTS}/logs/translate/{{benchmark}}/shard-{{shard}}.server.log",
    params:
        code=CODE["translate"],
        llm=lambda wc: llm_stage_settings("translate"),
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/translate.py"


rule convert:
    wildcard_constraints:
        benchmark=EXTREMAL_NAMES,
    input:
        problems=shard_problem_files,
        translations=rules.translate.output.translations,
    output:
        conversions=f"{RESULTS}/{{benchmark}}/convert/shard-{{shard}}.parquet",
    log:
        job=f"{RESULTS}/logs/convert/{{benchmark}}/shard-{{shard}}.log",
        # the LLM server this job may start (only when a call is missing from the cache)
        server=f"{RESULTS}/logs/convert/{{benchmark}}/shard-{{shard}}.server.log",
    params:
        code=CODE["convert"],
        llm=lambda wc: llm_stage_settings("convert"),
        # entries of the folder that are not problem files (kept out of `input`): invalid rows
        refused=refused_entries,
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/convert.py"


rule validate:
    wildcard_constraints:
        benchmark=f"{EXTREMAL_NAMES}|{FORMALIZED_NAMES}",
    input:
        problems=validation_sources,
        conversions=rules.convert.output.conversions,
    output:
        problems=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    log:
        f"{RESULTS}/logs/validate/{{benchmark}}/shard-{{shard}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/validate/{{benchmark}}/shard-{{shard}}.tsv"
    params:
        code=CODE["validate"],
        settings=lambda wc: settings_json(validation=CONFIG.validation),
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/validate.py"


# Companion benchmarks: official datasets read from a local copy, checksums verified.
rule ingest:
    wildcard_constraints:
        benchmark=INGESTED_NAMES,
    input:
        dataset=dataset_files,
    output:
        problems=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    log:
        f"{RESULTS}/logs/ingest/{{benchmark}}/shard-{{shard}}.log",
    params:
        code=CODE["ingest"],
        root=lambda wc: dataset_root(wc.benchmark),
        settings=lambda wc: settings_json(benchmark=CONFIG.benchmarks[wc.benchmark]),
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/ingest.py"


# Extremal problems released as statement + answer: formalized into specs, then validated.
rule formalize:
    wildcard_constraints:
        benchmark=FORMALIZED_NAMES,
    input:
        statements=lambda wc: CONFIG.benchmarks[wc.benchmark].statements,
    output:
        conversions=f"{RESULTS}/{{benchmark}}/convert/shard-{{shard}}.parquet",
    log:
        job=f"{RESULTS}/logs/formalize/{{benchmark}}/shard-{{shard}}.log",
        # the LLM server this job may start (only when a call is missing from the cache)
        server=f"{RESULTS}/logs/formalize/{{benchmark}}/shard-{{shard}}.server.log",
    params:
        code=CODE["formalize"],
        llm=lambda wc: llm_stage_settings("convert"),
        settings=lambda wc: settings_json(benchmark=CONFIG.benchmarks[wc.benchmark]),
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/formalize.py"


# Every built problem that validation did not confirm, for review (also named at the end of a run).
rule review:
    input:
        problems=[problems_table(b, s) for b in VALIDATED for s in shards(b)],
    output:
        review=report(REVIEW, caption="../report/review.rst", category="Tables"),
    log:
        f"{RESULTS}/logs/review.log",
    params:
        code=CODE["review"],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/review.py"


# Variants of every confirmed problem (extrembench/sources/variants), asked as benchmark <name>-variants:
# one job per shard of the parent, so editing one problem reruns only its variants' shard.
rule vary:
    wildcard_constraints:
        benchmark=EXTREMAL_NAMES,
    input:
        problems=shard_problem_files,
        table=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    output:
        variants=f"{RESULTS}/{{benchmark}}/variants/shard-{{shard}}.parquet",
        problems=f"{RESULTS}/{{benchmark}}-variants/problems/shard-{{shard}}.parquet",
    log:
        f"{RESULTS}/logs/vary/{{benchmark}}/shard-{{shard}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/vary/{{benchmark}}/shard-{{shard}}.tsv"
    params:
        code=CODE["vary"],
        settings=lambda wc: settings_json(variants=CONFIG.benchmarks[wc.benchmark].variants, validation=CONFIG.validation),
        # the constant guess's answer: a variant it answers is dropped, so a change of it reruns every shard
        constant=lambda wc: benchmark_constant(CONFIG, wc.benchmark) or "(none)",
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/vary.py"
