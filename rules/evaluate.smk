# Evaluate: every configured model answers every asked problem `trials` times, then grade.

from extrembench.generation.constant import rule_parameter as constant_guess_parameter


rule generate:
    input:
        problems=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    output:
        generations=f"{RESULTS}/{{benchmark}}/generate/{{model}}/shard-{{shard}}.parquet",
        # request counts of this run (sent / cached); read by the end-of-run summary, by no rule
        stats=f"{RESULTS}/{{benchmark}}/generate/{{model}}/shard-{{shard}}.requests.json",
    log:
        job=f"{RESULTS}/logs/generate/{{benchmark}}/{{model}}/shard-{{shard}}.log",
        server=f"{RESULTS}/logs/generate/{{benchmark}}/{{model}}/shard-{{shard}}.server.log",
    benchmark:
        f"{RESULTS}/benchmarks/generate/{{benchmark}}/{{model}}/shard-{{shard}}.tsv"
    params:
        code=CODE["generate"],
        model=model_settings,
        trials=lambda wc: CONFIG.benchmarks[wc.benchmark].trials,
        # constant-guess only: the set's most frequent answer, so a change of it reruns every shard
        constant=lambda wc: constant_guess_parameter(CONFIG, wc.benchmark, wc.model),
    threads: 1
    resources:
        # from the model's size class; a shard already fully cached goes to the CPU partition, gpu=0
        gpu=generate_resource("gpu"),
        gpu_model=generate_resource("gpu_model"),
        cpus_per_gpu=generate_resource("cpus_per_gpu"),
        cpus_per_task=generate_resource("cpus_per_task"),
        mem_mb=generate_resource("mem_mb"),
        runtime=generate_resource("runtime"),
        slurm_partition=generate_resource("slurm_partition"),
        # SIGUSR1 120 s before the time limit: the job flushes and exits to be resubmitted
        # (extrembench/cluster/preemption) instead of being killed mid-write
        slurm_extra="--signal=USR1@120",
    conda:
        generate_env
    script:
        "../scripts/generate.py"


rule grade:
    input:
        generations=rules.generate.output.generations,
        problems=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    output:
        grades=f"{RESULTS}/{{benchmark}}/grade/{{model}}/shard-{{shard}}.parquet",
    log:
        job=f"{RESULTS}/logs/grade/{{benchmark}}/{{model}}/shard-{{shard}}.log",
        # the LLM judge's server, started only when a descriptive answer needs judging
        server=f"{RESULTS}/logs/grade/{{benchmark}}/{{model}}/shard-{{shard}}.server.log",
    params:
        code=CODE["grade"],
        settings=lambda wc: settings_json(grading=CONFIG.grading),
        reasons=lambda wc: CONFIG.models[wc.model].reasons,  # the cut-off rule (grading/shard.py)
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/grade.py"
