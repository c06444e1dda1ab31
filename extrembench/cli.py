"""The `extrembench` console script: one subcommand per stage tool.

Each subcommand lives in its own module, which exposes `add_arguments(parser)` and
`run(args) -> int`; modules are imported lazily so `extrembench grade` does not pay for
the validator's imports and vice versa.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from extrembench.core.errors import InputError

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("extrembench.verify.check", "validate problem files by computation"),
    "grade": ("extrembench.grading.cli", "grade model responses against gold answers"),
    "audit": ("extrembench.report.audit.lineage", "trace an accuracy back to its inputs and recheck every hash"),
    "formalize": (
        "extrembench.sources.formalize_stage",
        "turn 'find the minimum of ...' statements into problem specs",
    ),
    "plan": (
        "extrembench.report.operations.plan",
        "jobs, missing requests, GPU-hours and cost of a grid, before submitting it",
    ),
    "verify-certificate": ("extrembench.verify.checker.cli", "re-check the certificates in problem Parquet files"),
    "diff-runs": (
        "extrembench.report.audit.diff",
        "compare two results folders: leaderboard rows and every problem's verdict and certificate",
    ),
    "schema": ("extrembench.problems.schema", "print the JSON Schema of config.yaml or of a problem file"),
    "export-rl": ("extrembench.rl.export", "write proven answers as RL training data (verl, trl, openrlhf, verifiers)"),
    "eval": (
        "extrembench.report.operations.eval",
        "one model (an OpenAI-compatible URL or a registry name) on one benchmark, through the workflow",
    ),
    "show": (
        "extrembench.report.audit.show",
        "one sample (prompt, reasoning, response, answer, gold, verdict, miss class) or a model's misses",
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="extrembench", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(sub_parser)
            sub_parser.set_defaults(_run=module.run)
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except InputError as error:
        print(f"extrembench {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
