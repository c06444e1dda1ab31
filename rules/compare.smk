# Paired comparisons: original vs variant per model, model vs model per benchmark, rank
# correlations over problems and models (extrembench/report/results/comparisons.py, docs/metrics.md).


rule compare:
    input:
        grades=all_grade_tables(),
        variants=[variants_table(b, s) for b in VARIED for s in shards(b)],
        published=PUBLISHED_TABLES,
    output:
        memorization=report(
            COMPARISONS["memorization"],
            caption="../report/memorization.rst",
            category="Tables",
        ),
        pairwise=report(
            COMPARISONS["pairwise"],
            caption="../report/pairwise.rst",
            category="Tables",
        ),
        rank_correlations=report(
            COMPARISONS["rank_correlations"],
            caption="../report/rank_correlations.rst",
            category="Tables",
        ),
        original_vs_variant=report(
            COMPARISONS["original_vs_variant"],
            caption="../report/original_vs_variant.rst",
            category="Figures",
        ),
    log:
        f"{RESULTS}/logs/compare.log",
    params:
        code=CODE["compare"],
        published=lambda wc, input: os.path.dirname(input.published[0]) if input.published else "",
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    conda:
        "../envs/pipeline.yaml"
    script:
        "../scripts/compare.py"
