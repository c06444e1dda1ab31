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


rule all:
    input:
        all_targets(),
    default_target: True


onsuccess:
    print_run_summary(workflow_start)


onerror:
    remove_stale_results(workflow_start)
    print_run_summary(workflow_start)
