# extrembench: translate → convert → validate → generate → grade → aggregate → plot.
# Targets and DAG shape come from config.yaml (validated in rules/common.smk); see README.md.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "rules/common.smk"
include: "rules/problems.smk"
include: "rules/evaluate.smk"
include: "rules/report.smk"
include: "rules/compare.smk"
include: "rules/end_of_run.smk"


# `snakemake --report` opens on this run's leaderboard (aggregate writes it), else on report/workflow.rst
report: report_front_page()


rule all:
    input:
        all_targets(),
    default_target: True


onstart:
    mark_run_start()


onsuccess:
    print_end_of_run(succeeded=True)


onerror:
    remove_stale_results(RUN_START[0])
    print_end_of_run(succeeded=False)
