# Build the extremal benchmark from its problem files: translate → convert → validate.
# One job per (benchmark, shard); a problem's shard is a stable hash of its id.


rule translate:
    input:
        problems=shard_problem_files,
    output:
        translations=f"{RESULTS}/{{benchmark}}/translate/shard-{{shard}}.parquet",
    log:
        f"{RESULTS}/logs/translate/{{benchmark}}/shard-{{shard}}.log",
    params:
        code=CODE["build"],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    script:
        "../scripts/build.py"


rule convert:
    input:
        problems=shard_problem_files,
        translations=rules.translate.output.translations,
    output:
        conversions=f"{RESULTS}/{{benchmark}}/convert/shard-{{shard}}.parquet",
    log:
        f"{RESULTS}/logs/convert/{{benchmark}}/shard-{{shard}}.log",
    params:
        code=CODE["build"],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    script:
        "../scripts/build.py"


rule validate:
    input:
        problems=shard_problem_files,
        conversions=rules.convert.output.conversions,
    output:
        problems=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    log:
        f"{RESULTS}/logs/validate/{{benchmark}}/shard-{{shard}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/validate/{{benchmark}}/shard-{{shard}}.tsv"
    params:
        code=CODE["build"],
        settings=lambda wc: json.dumps(config["validation"], sort_keys=True),
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    script:
        "../scripts/build.py"
