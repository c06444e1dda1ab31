"""Reading results back: `extrembench audit` (lineage, re-grading, the problems' gold), `diff-runs` and `show`."""
