# The end of a run (Snakefile onstart/onsuccess/onerror): what it sent, what was not confirmed and,
# after a successful run, its leaderboard rows, how models missed, and where to read on.

# "This run" is what was written since the start marker (onstart; extrembench/report/operations/run_summary.py):
# its time comes from the file system's clock, as do the job files it is compared with.
RUN_START = [workflow_start]


def mark_run_start():
    from extrembench.report.operations.run_summary import start_marker

    RUN_START[0] = start_marker(Path(RESULTS))


def run_problems():
    """benchmark -> its problem rows, for every evaluated benchmark whose problem tables all exist."""
    import pyarrow.parquet as pq

    found = {}
    for benchmark in BENCHMARKS:
        paths = [problems_table(benchmark, shard) for shard in shards(benchmark)]
        if all(os.path.exists(path) for path in paths):
            found[benchmark] = [
                row for path in paths for row in pq.read_table(path, columns=["problem_id", "status", "reason"]).to_pylist()
            ]
    return found


def print_end_of_run(succeeded):
    """Requests sent and cached, every problem (and benchmark) not confirmed; after a successful
    run also the leaderboard rows, how models missed, and the paths of the results and the report."""
    from extrembench.generation.solvers import SOLVERS
    from extrembench.report.operations.run_summary import request_summary, result_lines, unconfirmed_lines

    llm_models = {name for name, model in CONFIG.models.items() if model.backend not in SOLVERS}
    lines = request_summary(Path(RESULTS), Path(CONFIG.cache_dir), RUN_START[0], llm_models)
    lines += unconfirmed_lines(run_problems(), set(VALIDATED), REVIEW)
    if succeeded:
        misses = MISSES_OUTPUTS["table"] if MISSES_BENCHMARKS else None
        lines += result_lines(RESULTS, Path(LEADERBOARD["parquet"]), misses, RUN_START[0])
    for line in lines:
        print(f"extrembench: {line}", file=sys.stderr)
