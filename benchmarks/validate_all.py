"""Validate the whole problem set on N worker processes and run the mutation test.

Prints: statuses, how many checks hit the wall-clock safety net (target 0: the search is bounded by
counts), total wall time, per-problem median and max time (target: total <= 120 s on 2 cores, no
problem over 10 s), the rejected set's verdicts against their expected_status, and the mutation test:
for every confirmed problem the answer is moved by +-1 % and +-1e-3 (relative to max(|answer|, 1), so
an answer of 0 is moved too) and the sense is flipped; the share of mutants refuted, each with a
refutation certificate that extrembench.refutation re-verifies (target 100 %), refutations without a
verifying certificate (target 0), and the share of originals confirmed (target 100 %). Mutants drop `source` and
`statement`, whose consistency checks would reject them as invalid before the numeric search
that this test measures.

    python benchmarks/validate_all.py [--jobs 2] [--problems 'data/problems/*.yaml'] [--rejected 'data/rejected/*.yaml']
"""

from __future__ import annotations

import argparse
import glob
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from fractions import Fraction

from extrembench.problem import Problem, ProblemError, load_problem, parse_problem
from extrembench.refutation import verify_refutation
from extrembench.validate import check_problem

TOTAL_TARGET_S, PER_PROBLEM_TARGET_S, MUTANT_TARGET = 120.0, 10.0, 1.0


def timed_check(item: Problem | str) -> tuple[str, str, float, str, bool]:
    """(label, status, seconds, reason, whether a refutation certificate re-verifies)."""
    started = time.perf_counter()
    result = check_problem(item)
    elapsed = time.perf_counter() - started
    label = item if isinstance(item, str) else item.id
    certified = False
    if result.status == "refuted" and result.certificate is not None:
        certified = verify_refutation(result.certificate, item if isinstance(item, Problem) else
                                     load_problem(item, ignore_keys=("expected_status",)))[0]
    return label, result.status, elapsed, result.reason, certified


def mutants(problem: Problem) -> list[tuple[str, Problem]]:
    answer = parse_problem(problem).answer
    value = Fraction(str(answer.evalf(30)))
    scale = max(abs(value), Fraction(1))
    base = replace(problem, source=None, statement=None)
    moved = [("+1%", value + scale / 100), ("-1%", value - scale / 100),
             ("+1e-3", value + scale / 1000), ("-1e-3", value - scale / 1000)]
    out = [(name, replace(base, answer=f"{float(v)!r}")) for name, v in moved]
    out.append(("flipped sense", replace(base, sense="max" if problem.sense == "min" else "min")))
    return out


def expected_status(path: str) -> str:
    import yaml

    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return data.get("expected_status", "?") if isinstance(data, dict) else "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--problems", default="data/problems/*.yaml")
    parser.add_argument("--rejected", default="data/rejected/*.yaml")
    parser.add_argument("--no-mutants", action="store_true")
    args = parser.parse_args()
    paths = sorted(glob.glob(args.problems))
    rejected = sorted(glob.glob(args.rejected))
    if not paths:
        print(f"no files match {args.problems}", file=sys.stderr)
        return 2

    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        started = time.perf_counter()
        results = list(pool.map(timed_check, paths))
        total = time.perf_counter() - started
        times = [r[2] for r in results]
        statuses = [r[1] for r in results]
        print(f"problems: {len(paths)} on {args.jobs} workers")
        print("  statuses: " + ", ".join(f"{s} {statuses.count(s)}" for s in sorted(set(statuses))))
        capped = sum(r[3].startswith("time cap") for r in results)
        print(f"  hit the wall-clock safety net: {capped} (target 0)")
        print(f"  total {total:.1f} s (target <= {TOTAL_TARGET_S:.0f}), median {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s (target <= {PER_PROBLEM_TARGET_S:.0f}) [{results[times.index(max(times))][0]}]")
        for label, status, _, reason, _ in results:
            if status != "confirmed":
                print(f"  NOT CONFIRMED {label}: {status}: {reason}")
        confirmed_share = statuses.count("confirmed") / len(statuses)

        if rejected:
            verdicts = list(pool.map(timed_check, rejected))
            matches = sum(status == expected_status(path) for path, (_, status, _, _, _) in zip(rejected, verdicts))
            print(f"rejected set: {matches}/{len(rejected)} get their expected_status")
            for path, (_, status, _, reason, _) in zip(rejected, verdicts):
                flag = "ok " if status == expected_status(path) else "BAD"
                print(f"  {flag} {path}: {status} (expected {expected_status(path)}): {reason[:140]}")

        if args.no_mutants:
            return 0
        confirmed = []
        for path, status in zip(paths, statuses):
            if status == "confirmed":
                try:
                    confirmed.append(load_problem(path))
                except ProblemError:
                    continue
        labelled = [(p.id, name, m) for p in confirmed for name, m in mutants(p)]
        started = time.perf_counter()
        outcomes = list(pool.map(timed_check, [m for _, _, m in labelled]))
        mutant_time = time.perf_counter() - started
        refuted = [o[1] == "refuted" and o[4] for o in outcomes]
        uncertified = sum(o[1] == "refuted" and not o[4] for o in outcomes)
        share = sum(refuted) / len(refuted) if refuted else 0.0
        print(f"mutation test: {sum(refuted)}/{len(refuted)} mutants refuted with a verifying certificate = "
              f"{100 * share:.2f} % (target {100 * MUTANT_TARGET:.0f} %) in {mutant_time:.1f} s, max "
              f"{max(o[2] for o in outcomes):.2f} s; refutations without one: {uncertified} (target 0); "
              f"originals confirmed {100 * confirmed_share:.1f} % (target 100 %)")
        for (problem_id, name, _), (_, status, _, reason, certified) in zip(labelled, outcomes):
            if not (status == "refuted" and certified):
                print(f"  SURVIVED {problem_id} [{name}]: {status}: {reason[:160]}")
    met = (total <= TOTAL_TARGET_S and max(times) <= PER_PROBLEM_TARGET_S and share >= MUTANT_TARGET
           and uncertified == 0 and capped == 0 and confirmed_share == 1.0)
    print("targets: " + ("met" if met else "MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
