"""Reward throughput: extrembench.rl.reward against plain Math-Verify on the same completions.

Prints rewards per second per core for each (ours: the grader in one worker process under its hard
time limit, as a trainer calls it; Math-Verify: `verify(parse(gold), parse(completion))` with its
default options in this process), the ratio (target >= 1x, as for grading), and how often each
rewards a completion that is wrong by the grader's documented rule (the set of
extrembench/rl/completions.py: correct, ±1e-4 relative, opposite sense, all-equal guess, cut off
inside the reasoning).

    python benchmarks/reward.py [--problems 36] [--repeat 3] [--quick]

--quick: 8 problems, one pass; the ratio is printed but judged only by the full run (a 50-completion
timing on a loaded CI box is noise), the 0 wrong answers rewarded is judged.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _verdict import run, verdict
from math_verify import parse, verify

from extrembench.rl.completions import completion_set
from extrembench.rl.reward import rewards

REPO = Path(__file__).resolve().parents[1]
TARGET = 1.0


def _ours(responses: list[str], golds: list[str]) -> tuple[list[float], float]:
    rewards(responses[:1], golds[:1], workers=1)  # start the worker outside the timing, as a trainer's first step does
    started = time.perf_counter()
    scores = [r.score for r in rewards(responses, golds, workers=1)]
    return scores, time.perf_counter() - started


def _math_verify(responses: list[str], golds: list[str]) -> tuple[list[float], float]:
    verify(parse("1"), parse("1"))  # its imports and caches, outside the timing
    started = time.perf_counter()
    scores = [1.0 if verify(parse(g), parse(r)) else 0.0 for r, g in zip(responses, golds)]
    return scores, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=36)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count, repeat = (8, 1) if args.quick else (args.problems, args.repeat)
    made = completion_set(sorted((REPO / "data/problems").glob("*.yaml"))[:count])
    expected = [c.should_reward() for c in made] * repeat
    responses, golds = [c.response for c in made] * repeat, [c.gold for c in made] * repeat
    ours, ours_s = _ours(responses, golds)
    plain, plain_s = _math_verify(responses, golds)
    n = len(responses)
    ours_rate, plain_rate = n / ours_s, n / plain_s
    ratio = ours_rate / plain_rate
    ours_wrong = sum(1 for got, want in zip(ours, expected) if got and not want)
    plain_wrong = sum(1 for got, want in zip(plain, expected) if got and not want)
    print(f"completions: {n} ({len(made)} from {count} problems x {repeat})")
    print(
        f"extrembench.rl.reward: {ours_rate:,.0f} rewards/s per core (1 worker process), {ours_wrong} wrong answers rewarded"
    )
    print(
        f"plain Math-Verify:     {plain_rate:,.0f} rewards/s per core (in process), {plain_wrong} wrong answers rewarded"
    )
    print(f"ratio: {ratio:.2f}x (target >= {TARGET:g}x)")
    failures = []
    if ratio < TARGET and not args.quick:
        failures.append(f"ratio {ratio:.2f}x below {TARGET:g}x")
    if ours_wrong:
        failures.append(f"{ours_wrong} wrong answers rewarded")
    not_judged = [f"ratio >= {TARGET:g}x"] if args.quick else []
    return verdict(
        failures, f"{ratio:.2f}x Math-Verify's rewards per core, 0 wrong answers rewarded", not_judged=not_judged
    )


if __name__ == "__main__":
    raise SystemExit(run(main))
