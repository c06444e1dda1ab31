"""`extrembench schema config|problem`: print the JSON Schema of config.yaml or of a problem file,
generated from the pydantic models that validate them (the one source of both)."""

from __future__ import annotations

import argparse
import json
import sys

from extrembench.core.config import config_json_schema
from extrembench.problems.problem import problem_json_schema


def schema_of(name: str) -> dict:
    if name == "config":
        return config_json_schema()

    return problem_json_schema()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=["config", "problem"], help="which file's schema")


def run(args: argparse.Namespace) -> int:
    json.dump(schema_of(args.name), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
