"""Worst-case load time of problem files at the parser's limits (issue 12, finding 5).

Each family is a hostile objective that the limits still accept (or the first the limits
refuse), written to a problem file and timed through what `extrembench check` and the convert
stage do before any search: load (YAML + schema + safe parse), convert (statement rendering) and
the validator's numeric model (lambdify). Target: every accepted file under 1 s.

    PYTHONPATH=. .venv/bin/python benchmarks/parse_limits.py [--quick]

The whole run takes seconds, so --quick times the same files; it judges the target on CPU seconds
(a busy shared machine stretches wall time, not the work) and says so.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from _verdict import run, verdict

from extrembench.problems.derive import convert_problem
from extrembench.problems.expr import MAX_MINMAX_ARGS, MAX_PROBLEM_TEXT_LENGTH, MAX_TEXT_LENGTH
from extrembench.problems.problem import ProblemError, load_problem, parse_problem


def _fill(pattern: str, joiner: str, wrap: str = "{}", limit: int = MAX_TEXT_LENGTH) -> str:
    """As many copies of pattern(i) as fit in the text limit."""
    parts, i = [], 1
    while True:
        candidate = wrap.format(joiner.join([*parts, pattern.format(i=i)]))
        if len(candidate) > limit:
            return wrap.format(joiner.join(parts))
        parts.append(pattern.format(i=i))
        i += 1


def _minmax(arg: str, n: int) -> str:
    return "Max(" + ", ".join(arg.format(i=i) for i in range(1, n + 1)) + ")"


FAMILIES = {
    "Max of 459 sines (the issue's case)": "Max(" + ", ".join(f"sin({i}a)" for i in range(1, 460)) + ")",
    "Max of 189 sines (the issue's case)": "Max(" + ", ".join(f"sin({i}a)" for i in range(1, 190)) + ")",
    f"Max of {MAX_MINMAX_ARGS} long trigonometric sums": _minmax(
        " + ".join(f"sin({j}a + {{i}}b)" for j in range(1, 3)), MAX_MINMAX_ARGS
    ),
    f"Max of {MAX_MINMAX_ARGS} Abs": _minmax("Abs(a - {i}) + Abs(b + {i})", MAX_MINMAX_ARGS),
    "nested Max, 16 arguments in all": "Max(a, " * 15 + "b" + ")" * 15,
    "Max of 8 arguments, 4 nested Max": "Max(a, " * 3 + "Max(a, b)" + ")" * 3,
    "sum of sines": _fill("sin({i}a + b)", " + "),
    "product of sums": _fill("(a + {i}b)", "*"),
    "sum of quotients": _fill("a/(b + {i})", " + "),
    "powers of sums": _fill("(a + b + {i})^12", " + "),
    "product of 10^999": _fill("10^999", "*", "{} * a + b"),
    "nested sqrt": "sqrt(" * 58 + "a + b" + ")" * 58,
    "nested sin/cos": "sin(cos(" * 29 + "a*b" + "))" * 29,
}


# A whole problem at the per-problem limit: the objective and constraints share it.
_HALF = (MAX_PROBLEM_TEXT_LENGTH - 10) // 2
WHOLE_PROBLEM = (
    _fill("sin({i}a + b)", " + ", limit=_HALF),
    [_fill("cos({i}b)", " + ", "{} <= 100", limit=_HALF // 2)] * 2,
)


def time_family(name: str, objective: str, folder: Path, constraints: list[str] = ()) -> tuple[str, float, float]:
    path = folder / "bench.yaml"
    listed = ", ".join(f'"{c}"' for c in constraints)
    path.write_text(
        "id: bench\nsense: min\nvariables: {a: positive, b: positive}\n"
        f'constraints: [{listed}]\nobjective: "{objective}"\nanswer: "0"\n',
        encoding="utf-8",
    )
    started, cpu = time.perf_counter(), time.process_time()
    try:
        problem = load_problem(path)
        convert_problem(problem)
        import sympy

        parsed = parse_problem(problem)
        sympy.lambdify(parsed.symbols, parsed.objective, "numpy")
        outcome = "accepted"
    except ProblemError as exc:
        outcome = f"refused ({exc.reason[:60]})"
    return outcome, time.perf_counter() - started, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the same files, the target judged on CPU seconds")
    args = parser.parse_args()
    worst = worst_cpu = 0.0
    accepted = 0
    with tempfile.TemporaryDirectory() as folder:
        for name, objective in FAMILIES.items():
            outcome, seconds, cpu = time_family(name, objective, Path(folder))
            if outcome == "accepted":
                worst, worst_cpu, accepted = max(worst, seconds), max(worst_cpu, cpu), accepted + 1
            print(f"{seconds:7.3f} s  {len(objective):5d} chars  {name}: {outcome}", flush=True)
        objective, constraints = WHOLE_PROBLEM
        outcome, seconds, cpu = time_family("whole problem", objective, Path(folder), constraints)
        if outcome == "accepted":
            worst, worst_cpu, accepted = max(worst, seconds), max(worst_cpu, cpu), accepted + 1
        size = len(objective) + sum(map(len, constraints))
        print(
            f"{seconds:7.3f} s  {size:5d} chars  whole problem: sines objective + 2 cosine-sum constraints: {outcome}"
        )
    print(f"worst accepted: {worst:.3f} s (target < 1 s)")
    if args.quick:
        print(f"worst accepted, CPU: {worst_cpu:.3f} s (target < 1 s)")
    measured, label = (worst_cpu, "CPU") if args.quick else (worst, "wall")
    failures = [f"worst accepted file loads in {measured:.3f} s {label} (target < 1 s)"] if measured >= 1 else []
    if not accepted:
        failures.append("no family was accepted: the limits refuse everything, nothing was timed")
    return verdict(failures, f"{accepted} accepted files, worst {measured:.3f} s {label} (target < 1 s)")


if __name__ == "__main__":
    sys.exit(run(main))
