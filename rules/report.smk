# Aggregate every grade table into the leaderboard, then draw the figures.


rule aggregate:
    input:
        grades=all_grade_tables(),
    output:
        parquet=LEADERBOARD["parquet"],
        csv=report(
            LEADERBOARD["csv"],
            caption="../report/leaderboard.rst",
            category="Leaderboard",
        ),
        md=LEADERBOARD["md"],
    log:
        f"{RESULTS}/logs/aggregate.log",
    params:
        code=CODE["aggregate"],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    script:
        "../scripts/aggregate.py"


rule plot:
    input:
        leaderboard=LEADERBOARD["parquet"],
        grades=all_grade_tables(),
    output:
        main=report(
            FIGURES["main"],
            caption="../report/accuracy_by_model.rst",
            category="Figures",
        ),
    log:
        f"{RESULTS}/logs/plot.log",
    params:
        code=CODE["plot"],
    resources:
        mem_mb=cpu_resource("mem_mb"),
        runtime=cpu_resource("runtime"),
        cpus_per_task=cpu_resource("cpus_per_task"),
        slurm_partition=cpu_resource("slurm_partition"),
    script:
        "../scripts/plot.py"
