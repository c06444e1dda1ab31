# Aggregate every grade table into the leaderboard and tables, then draw the figures.
# Every output carries a report caption: `snakemake --report results/report.html`.


rule aggregate:
    input:
        grades=all_grade_tables(),
        published=PUBLISHED_TABLES,
        generations=all_generation_tables(),  # the cost ledger (extrembench/cluster/cost)
        conversions=all_conversion_tables(),  # each problem's date (the date split)
        variants=[variants_table(b, s) for b in VARIED for s in shards(b)],  # each variant's parent (slices)
    output:
        parquet=LEADERBOARD["parquet"],
        csv=report(
            LEADERBOARD["csv"],
            caption="../report/leaderboard.rst",
            category="Leaderboard",
        ),
        md=LEADERBOARD["md"],
        checksums=LEADERBOARD["checksums"],
        front_page=LEADERBOARD["front_page"],
        difficulty=report(
            TABLES["difficulty"],
            caption="../report/difficulty.rst",
            category="Tables",
        ),
        techniques=report(
            TABLES["techniques"],
            caption="../report/techniques.rst",
            category="Tables",
        ),
        correlations=report(
            TABLES["correlations"],
            caption="../report/correlations.rst",
            category="Tables",
        ),
        published=report(
            TABLES["published"],
            caption="../report/published_comparison.rst",
            category="Tables",
        ),
        date_split=report(
            TABLES["date_split"],
            caption="../report/date_split.rst",
            category="Tables",
        ),
        date_split_parquet=TABLES["date_split_parquet"],
        slices=report(
            TABLES["slices"],
            caption="../report/slices.rst",
            category="Tables",
        ),
        slices_parquet=TABLES["slices_parquet"],
    log:
        f"{RESULTS}/logs/aggregate.log",
    params:
        code=CODE["aggregate"],
        published=lambda wc, input: os.path.dirname(input.published[0]) if input.published else "",
        # the plot rule's figures, drawn from the leaderboard this job replaces: removed first, so a
        # run stopped before plot leaves no figure of the previous leaderboard beside the new one
        dependents=[path for png in FIGURES.values() for path in (png, png.removesuffix(".png") + ".pdf")],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/aggregate.py"


rule plot:
    input:
        leaderboard=LEADERBOARD["parquet"],
        correlations=TABLES["correlations"],
        date_split=TABLES["date_split_parquet"],
        slices=TABLES["slices_parquet"],
        grades=all_grade_tables(),
        published=PUBLISHED_TABLES,
    output:
        main=report(
            FIGURES["main"],
            caption="../report/accuracy_by_model.rst",
            category="Figures",
        ),
        scatter=report(
            FIGURES["scatter"],
            caption="../report/scatter.rst",
            category="Figures",
        ),
        tokens=report(
            FIGURES["tokens"],
            caption="../report/tokens.rst",
            category="Figures",
        ),
        pass_at_k=report(
            FIGURES["pass_at_k"],
            caption="../report/pass_at_k.rst",
            category="Figures",
        ),
        heatmap=report(
            FIGURES["heatmap"],
            caption="../report/heatmap.rst",
            category="Figures",
        ),
        cost=report(
            FIGURES["cost"],
            caption="../report/accuracy_vs_cost.rst",
            category="Figures",
        ),
        date_split=report(
            FIGURES["date_split"],
            caption="../report/accuracy_by_date.rst",
            category="Figures",
        ),
        slices=report(
            FIGURES["slices"],
            caption="../report/originals_variants_fresh.rst",
            category="Figures",
        ),
        # save_figure writes a PDF beside every PNG
        pdfs=[png.removesuffix(".png") + ".pdf" for png in FIGURES.values()],
    log:
        f"{RESULTS}/logs/plot.log",
    params:
        code=CODE["plot"],
        published=lambda wc, input: os.path.dirname(input.published[0]) if input.published else "",
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/plot.py"


# How models miss: each graded sample of an extremal benchmark (and its variants) in one class,
# decided by the validator's computations (extrembench/report/misses, docs/metrics.md).
rule misses:
    wildcard_constraints:
        benchmark="|".join(map(re.escape, MISSES_BENCHMARKS)) or "(?!)",
    input:
        grades=f"{RESULTS}/{{benchmark}}/grade/{{model}}/shard-{{shard}}.parquet",
        problems=f"{RESULTS}/{{benchmark}}/problems/shard-{{shard}}.parquet",
    output:
        misses=f"{RESULTS}/{{benchmark}}/misses/{{model}}/shard-{{shard}}.parquet",
    log:
        job=f"{RESULTS}/logs/misses/{{benchmark}}/{{model}}/shard-{{shard}}.log",
    params:
        code=CODE["misses"],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/misses.py"


rule misses_report:
    input:
        misses=all_misses_tables(),
    output:
        table=report(
            MISSES_OUTPUTS["table"],
            caption="../report/misses.rst",
            category="Tables",
        ),
        figure=report(
            MISSES_OUTPUTS["figure"],
            caption="../report/misses.rst",
            category="Figures",
        ),
        # save_figure writes a PDF beside every PNG
        pdf=MISSES_OUTPUTS["figure"].removesuffix(".png") + ".pdf",
        # sha256 of every misses shard read and every file written, rechecked by `extrembench audit`
        checksums=MISSES_OUTPUTS["checksums"],
    log:
        f"{RESULTS}/logs/misses_report.log",
    params:
        code=CODE["misses_report"],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/misses_report.py"
