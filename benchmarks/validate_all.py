"""Validate the whole problem set on N worker processes and run the mutation test.

Prints: statuses, how many checks hit the wall-clock safety net (target 0: the search is bounded by
counts), total wall time, per-problem median and max time (target: total <= 120 s on 2 cores, no
problem over 10 s), the rejected set's verdicts against their expected_status, and the mutation test:
for every confirmed problem the answer is moved by +-1 % and +-1e-3 (relative to max(|answer|, 1), so
an answer of 0 is moved too) and the sense is flipped; the share of mutants refuted, each with a
refutation certificate that extrembench.verify.provers.refutation re-verifies (target 100 %), refutations without a
verifying certificate (target 0), and the share of originals confirmed (target 100 %). Mutants drop `source` and
`statement`, whose consistency checks would reject them as invalid before the numeric search
that this test measures.

    python benchmarks/validate_all.py [--jobs 2] [--problems 'data/problems/*.yaml'] [--rejected 'data/rejected/*.yaml']
    python benchmarks/validate_all.py --mutants-only [--sample K]   # originals + mutation test only
    python benchmarks/validate_all.py --quick   # 3 cheap problems, 7 rejected files, every section

Certificates (section below, --no-certificates skips it): every confirmed problem is checked once
more and its certificate built again; prints the count per kind and per technique, the share
certified bound or sos (target >= 60 %, goal 90 %), the certification time of the whole set
(target <= 10 min on 2 cores), the median `check` time (target <= 10 s for a typical problem),
that every certificate verifies, and that the two builds gave the same bytes (determinism).
"""

from __future__ import annotations

import argparse
import glob
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from fractions import Fraction
from functools import partial
from pathlib import Path

from _verdict import run, verdict

from extrembench.problems.problem import Problem, ProblemError, canonical_problem, load_problem, parse_problem
from extrembench.verify.provers.refutation import verify_refutation
from extrembench.verify.validate import check_problem

TOTAL_TARGET_S, PER_PROBLEM_TARGET_S, MUTANT_TARGET = 120.0, 10.0, 1.0
MUTANT_TIME_TARGET_S = 1800.0  # the whole mutation test on 2 workers
# --quick: three problems whose checks and mutants are cheap (the search is bounded by work counts, so
# their cost is the code's, on any machine) yet reach bound, sos and witness certificates, and every
# 5th rejected file (7 of them). An ordinary sample can hold a mutant that takes minutes (ineq-0004's
# -1 % needs a 165 s sos proof).
QUICK_PROBLEMS, QUICK_REJECTED_SAMPLE = ("ineq-0079", "ineq-0131", "ineq-0181"), 5


def timed_check(item: Problem | str, certify: bool = True) -> tuple[str, str, float, str, bool, str]:
    """(label, status, seconds, reason, whether a refutation certificate re-verifies, its method)."""
    started = time.perf_counter()
    result = check_problem(item, certify=certify)
    elapsed = time.perf_counter() - started
    label = item if isinstance(item, str) else item.id
    certified = False
    if result.status == "refuted" and result.certificate is not None:
        certified = verify_refutation(
            result.certificate,
            item if isinstance(item, Problem) else load_problem(item, ignore_keys=("expected_status",)),
        )[0]
    method = ""
    if result.status == "refuted" and result.certificate is not None:
        method = result.certificate.get("method") or result.certificate.get("kind", "")
    return label, result.status, elapsed, result.reason, certified, method


def _read_record(path: str) -> dict[tuple[str, str], tuple]:
    """(problem id, mutant name) -> outcome, from a --record file (missing file: nothing yet)."""
    try:
        with open(path, encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
    except FileNotFoundError:
        return {}
    return {(row["problem"], row["mutant"]): tuple(row["outcome"]) for row in rows}


def mutants(problem: Problem) -> list[tuple[str, Problem]]:
    answer = parse_problem(problem).answer
    value = Fraction(str(answer.evalf(30)))
    scale = max(abs(value), Fraction(1))
    base = replace(problem, source=None, statement=None)
    moved = [
        ("+1%", value + scale / 100),
        ("-1%", value - scale / 100),
        ("+1e-3", value + scale / 1000),
        ("-1e-3", value - scale / 1000),
    ]
    out = [(name, replace(base, answer=f"{float(v)!r}")) for name, v in moved]
    out.append(("flipped sense", replace(base, sense="max" if problem.sense == "min" else "min")))
    return out


def expected_status(path: str) -> str:
    import yaml

    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return data.get("expected_status", "?") if isinstance(data, dict) else "?"


# ---------------------------------------------------------------- certificates (extrembench.verify.checker)

CERTIFIED_TARGET, CERTIFIED_GOAL, CERTIFY_TOTAL_TARGET_S, CHECK_TYPICAL_TARGET_S = 0.60, 0.90, 600.0, 10.0


def certify_one(path: str) -> dict:
    """check (search + certificate) timed, then the certificate built again from the same witness
    (timed: the certification cost alone) and verified; both builds must give the same bytes."""
    from extrembench.verify.checker.document import canonical
    from extrembench.verify.checker.verify import verify
    from extrembench.verify.provers.certify import certify

    started, cpu = time.perf_counter(), time.process_time()
    result = check_problem(path)
    check_s, check_cpu = time.perf_counter() - started, time.process_time() - cpu
    out = {
        "path": path,
        "status": result.status,
        "check_s": check_s,
        "check_cpu": check_cpu,
        "kind": None,
        "certify_s": 0.0,
        "certify_cpu": 0.0,
        "verified": None,
        "same_bytes": None,
        "technique": [],
        "why": "",
    }
    if result.status != "confirmed":
        return out
    problem = canonical_problem(load_problem(path))  # the order check_problem certified
    started, cpu = time.perf_counter(), time.process_time()
    # the same inputs the check gave certify: a numeric body also records the orthants the search
    # visited, so rebuilding without them differed in that field alone (12 numeric files, stop 44)
    components = result.certificate["body"].get("components") if result.certificate else None
    again = certify(problem, result.witness, result.reason, components=components)
    out["certify_s"], out["certify_cpu"] = time.perf_counter() - started, time.process_time() - cpu
    ok, reason = verify(again)
    out.update(
        kind=again["kind"],
        verified=ok,
        same_bytes=canonical(again) == canonical(result.certificate),
        technique=list(problem.technique),
        why=again["body"].get("not_certified", "") if ok else reason,
    )
    return out


def certificates_section(pool, paths: list[str], jobs: int) -> tuple[dict[str, bool], dict[str, str]]:
    """(each certificate target -> met, certificate kind per problem file)."""
    started = time.perf_counter()
    rows = list(pool.map(certify_one, paths))
    wall = time.perf_counter() - started
    confirmed = [r for r in rows if r["status"] == "confirmed"]
    kinds = {k: sum(r["kind"] == k for r in confirmed) for k in ("bound", "sos", "numeric")}
    proven = (kinds["bound"] + kinds["sos"]) / len(confirmed) if confirmed else 0.0
    certify_total = sum(r["certify_s"] for r in confirmed)
    certify_cpu = sum(r["certify_cpu"] for r in confirmed)
    check_times = [r["check_s"] for r in rows]
    print(f"certificates: {len(confirmed)} confirmed problems: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
    print(
        f"  certified bound or sos: {100 * proven:.1f} % (target >= {100 * CERTIFIED_TARGET:.0f} %, goal {100 * CERTIFIED_GOAL:.0f} %)"
    )
    techniques = sorted({t for r in confirmed for t in r["technique"]})
    for technique in techniques:
        mine = [r for r in confirmed if technique in r["technique"]]
        print(f"    {technique:18s} " + ", ".join(f"{k} {sum(r['kind'] == k for r in mine)}" for k in kinds))
    print(
        f"  certification of the whole set: {certify_total:.1f} s of work, about {certify_total / jobs:.1f} s on "
        f"{jobs} workers (target <= {CERTIFY_TOTAL_TARGET_S:.0f} s); section wall time {wall:.1f} s"
    )
    # CPU seconds do not grow when other processes share the cores: the figure to compare across runs
    print(
        f"  certification CPU time: {certify_cpu:.1f} s, about {certify_cpu / jobs:.1f} s on {jobs} free cores; "
        f"slowest {max((r['certify_cpu'] for r in confirmed), default=0.0):.2f} s"
    )
    print(
        f"  check of one problem (search + certificate): median {statistics.median(check_times):.2f} s "
        f"(target <= {CHECK_TYPICAL_TARGET_S:.0f} s), max {max(check_times):.2f} s; CPU median "
        f"{statistics.median(r['check_cpu'] for r in rows):.2f} s, max {max(r['check_cpu'] for r in rows):.2f} s"
    )
    failed = [r for r in confirmed if not r["verified"]]
    unstable = [r for r in confirmed if not r["same_bytes"]]
    print(
        f"  verify: {len(confirmed) - len(failed)}/{len(confirmed)} certificates verify; "
        f"{len(confirmed) - len(unstable)}/{len(confirmed)} identical bytes when built twice"
    )
    for r in confirmed:
        if r["kind"] == "numeric" or not r["verified"] or not r["same_bytes"]:
            print(f"  {r['kind']:8s} {r['path']}: {r['why'][:160]}")
    targets = {
        "certified share": proven >= CERTIFIED_TARGET,
        "certification time": min(certify_total, certify_cpu) / jobs <= CERTIFY_TOTAL_TARGET_S,
        "certificates verify": not failed,
        "certificates identical when built twice": not unstable,
        "median check time": statistics.median(check_times) <= CHECK_TYPICAL_TARGET_S,
    }
    print("  certificate targets: " + ("met" if all(targets.values()) else "MISSED"))
    return targets, {r["path"]: r["kind"] for r in confirmed}


# ---------------------------------------------------------------- end of certificates


def main() -> int:  # noqa: C901 — one report section after another, each printed as it is measured
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--problems", default="data/problems/*.yaml")
    parser.add_argument("--rejected", default="data/rejected/*.yaml")
    parser.add_argument("--no-mutants", action="store_true")
    parser.add_argument("--no-certificates", action="store_true")
    parser.add_argument(
        "--mutants-only",
        action="store_true",
        help="skip the rejected set and the certificates section (the originals are still checked: "
        "only confirmed ones are mutated)",
    )
    parser.add_argument("--progress", action="store_true", help="print each mutant's verdict as it arrives")
    parser.add_argument("--record", metavar="JSONL", help="append each mutant's outcome to this file")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="take the outcomes already in --record instead of checking those mutants again "
        "(only with the same code: the record does not say which code made it)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=1,
        metavar="K",
        help="every K-th problem file only (default 1: all), for a quick partial figure",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"problems {', '.join(QUICK_PROBLEMS)} and every {QUICK_REJECTED_SAMPLE}th rejected "
        "file, all sections: judges what a sample can show (statuses, certificates, "
        "refutations certified), not the whole-set shares and times",
    )
    args = parser.parse_args()
    paths = sorted(glob.glob(args.problems))[:: max(1, args.sample)]
    rejected = [] if args.mutants_only else sorted(glob.glob(args.rejected))
    if args.quick:
        paths = [path for path in paths if Path(path).stem in QUICK_PROBLEMS]
        rejected = rejected[::QUICK_REJECTED_SAMPLE]
    if args.mutants_only:
        args.no_certificates, args.no_mutants = True, False
    if not paths:
        print(f"no files match {args.problems}", file=sys.stderr)
        verdict([f"no files match {args.problems}"], "")
        return 2
    # (target, met, judged by --quick): a sample's shares and times say nothing of the whole set's
    checks: list[tuple[str, bool, bool]] = []

    original_kind: dict[str, str] = {}  # problem file -> its certificate kind, when that section ran
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        started = time.perf_counter()
        # --mutants-only needs the originals' statuses, not their certificates (built after the verdict)
        results = list(pool.map(partial(timed_check, certify=not args.mutants_only), paths))
        total = time.perf_counter() - started
        times = [r[2] for r in results]
        statuses = [r[1] for r in results]
        print(f"problems: {len(paths)} on {args.jobs} workers")
        print("  statuses: " + ", ".join(f"{s} {statuses.count(s)}" for s in sorted(set(statuses))))
        capped = sum(r[3].startswith("time cap") for r in results)
        print(f"  hit the wall-clock safety net: {capped} (target 0)")
        print(
            f"  total {total:.1f} s (target <= {TOTAL_TARGET_S:.0f}), median {statistics.median(times):.2f} s, "
            f"max {max(times):.2f} s (target <= {PER_PROBLEM_TARGET_S:.0f}) [{results[times.index(max(times))][0]}]"
        )
        for label, status, _, reason, _, _ in results:
            if status != "confirmed":
                print(f"  NOT CONFIRMED {label}: {status}: {reason}")
        confirmed_share = statuses.count("confirmed") / len(statuses)
        checks += [
            ("originals confirmed", confirmed_share == 1.0, True),
            ("wall-clock safety net", capped == 0, True),
            ("total time", total <= TOTAL_TARGET_S, False),
            ("time per problem", max(times) <= PER_PROBLEM_TARGET_S, False),
        ]

        if rejected:
            verdicts = list(pool.map(timed_check, rejected))
            matches = sum(status == expected_status(path) for path, (_, status, *_) in zip(rejected, verdicts))
            print(f"rejected set: {matches}/{len(rejected)} get their expected_status")
            for path, (_, status, _, reason, *_) in zip(rejected, verdicts):
                flag = "ok " if status == expected_status(path) else "BAD"
                print(f"  {flag} {path}: {status} (expected {expected_status(path)}): {reason[:140]}")
            checks.append(("rejected set gets its expected_status", matches == len(rejected), True))

        if not args.no_certificates:
            targets, original_kind = certificates_section(pool, paths, args.jobs)
            integrity = ("certificates verify", "certificates identical when built twice")
            checks += [(name, met, name in integrity) for name, met in targets.items()]
        if args.no_mutants:
            return _verdict(checks, args.quick, len(paths))
        confirmed, kind_of = [], {}
        for path, status in zip(paths, statuses):
            if status == "confirmed":
                try:
                    confirmed.append(load_problem(path))
                except ProblemError:
                    continue
                kind_of[confirmed[-1].id] = original_kind.get(path, "?")
        labelled = [(p.id, name, m) for p in confirmed for name, m in mutants(p)]
        started = time.perf_counter()
        recorded = _read_record(args.record) if args.record and args.resume else {}
        todo = [m for pid, name, m in labelled if (pid, name) not in recorded]
        fresh = pool.map(timed_check, todo)
        outcomes = []
        for k, (problem_id, name, _) in enumerate(labelled):
            outcome = recorded.get((problem_id, name)) or next(fresh)
            outcomes.append(outcome)
            if args.record and (problem_id, name) not in recorded:
                with open(args.record, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"problem": problem_id, "mutant": name, "outcome": list(outcome)}) + "\n")
            if args.progress:
                print(
                    f"  [{k + 1}/{len(labelled)}] {problem_id} [{name}]: {outcome[1]} {outcome[5]} {outcome[2]:.1f} s",
                    flush=True,
                )
        mutant_time = time.perf_counter() - started
        by_kind = {}
        for (_, name, _), (_, status, _, _, certified, _) in zip(labelled, outcomes):
            done, total_kind = by_kind.get(name, (0, 0))
            by_kind[name] = (done + (status == "refuted" and certified), total_kind + 1)
        refuted = [o[1] == "refuted" and o[4] for o in outcomes]
        uncertified = sum(o[1] == "refuted" and not o[4] for o in outcomes)
        share = sum(refuted) / len(refuted) if refuted else 0.0
        print(
            f"mutation test: {sum(refuted)}/{len(refuted)} mutants refuted with a verifying certificate = "
            f"{100 * share:.2f} % (target {100 * MUTANT_TARGET:.0f} %) in {mutant_time:.1f} s (target <= "
            f"{MUTANT_TIME_TARGET_S:.0f} s), max "
            f"{max(o[2] for o in outcomes):.2f} s; refutations without one: {uncertified} (target 0); "
            f"originals confirmed {100 * confirmed_share:.1f} % (target 100 %)"
        )
        print("  per mutant kind: " + ", ".join(f"{name} {done}/{n}" for name, (done, n) in by_kind.items()))
        methods = {}
        for _, _, _, _, _, method in outcomes:
            if method:
                methods[method] = methods.get(method, 0) + 1
        print("  certificates by method: " + ", ".join(f"{k} {v}" for k, v in sorted(methods.items())))
        if original_kind:
            # a mutant past the answer needs a proof of a bound, which the problem's own certificate
            # kind says whether the prover reaches: the share among bound/sos problems is the fair figure
            proven = [
                (o[1] == "refuted" and o[4])
                for (pid, _, _), o in zip(labelled, outcomes)
                if kind_of.get(pid) in ("bound", "sos")
            ]
            print(
                f"  mutants of problems certified bound or sos: {sum(proven)}/{len(proven)} refuted with a "
                "verifying certificate"
            )
        for (problem_id, name, _), (_, status, _, reason, certified, _) in zip(labelled, outcomes):
            if not (status == "refuted" and certified):
                print(
                    f"  SURVIVED {problem_id} [{name}] (original certified {kind_of.get(problem_id, '?')}): "
                    f"{status}: {reason[:160]}"
                )
    met = (
        total <= TOTAL_TARGET_S
        and max(times) <= PER_PROBLEM_TARGET_S
        and share >= MUTANT_TARGET
        and uncertified == 0
        and capped == 0
        and confirmed_share == 1.0
        and mutant_time <= MUTANT_TIME_TARGET_S
    )
    print("targets: " + ("met" if met else "MISSED"))
    checks += [
        ("mutants refuted", share >= MUTANT_TARGET, False),
        ("refutations without a verifying certificate", uncertified == 0, True),
        ("mutation test time", mutant_time <= MUTANT_TIME_TARGET_S, False),
    ]
    return _verdict(checks, args.quick, len(paths), f"{sum(refuted)}/{len(refuted)} mutants refuted")


def _verdict(checks: list[tuple[str, bool, bool]], quick: bool, problems: int, extra: str = "") -> int:
    judged = [(name, met) for name, met, in_quick in checks if in_quick or not quick]
    summary = f"{problems} problems: {len(judged)} targets met" + (f", {extra}" if extra else "")
    return verdict(
        [f"{name} MISSED" for name, met in judged if not met],
        summary,
        not_judged=[name for name, _, in_quick in checks if quick and not in_quick],
    )


if __name__ == "__main__":
    sys.exit(run(main))
