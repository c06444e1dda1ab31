# Evaluate: every configured model answers every asked problem `trials` times, then grade.


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
        trials=lambda wc: config["benchmarks"][wc.benchmark]["trials"],
    threads: 1
    resources:
        gpu=lambda wc: size_resources(wc.model)["gpu"],
        mem_mb=lambda wc: size_resources(wc.model)["mem_mb"],
        runtime=lambda wc: size_resources(wc.model)["runtime"],
    script:
        "../scripts/generate.py"


rule grade:
    input:
        generations=rules.generate.output.generations,
        problems=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    output:
        grades=f"{RESULTS}/{{benchmark}}/grade/{{model}}/shard-{{shard}}.parquet",
    log:
        f"{RESULTS}/logs/grade/{{benchmark}}/{{model}}/shard-{{shard}}.log",
    params:
        code=CODE["grade"],
        settings=lambda wc: json.dumps(config["grading"], sort_keys=True),
    resources:
        mem_mb=lambda wc: config["resources"]["cpu"]["mem_mb"],
        runtime=lambda wc: config["resources"]["cpu"]["runtime"],
    script:
        "../scripts/grade.py"
