"""Which run `audit` and `show` read: its results and cache folders, given directly or taken from
the config and experiment files the run was made with (layered as snakemake layers them)."""

from __future__ import annotations

import argparse
from pathlib import Path

from extrembench.core.config import layered_config


def add_folder_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="results directory (default: results_dir of the config, e.g. results)",
    )
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help="response cache (default: cache_dir of the config)"
    )
    parser.add_argument("--config", type=Path, default=Path("config.yaml"), help="config file [config.yaml]")
    parser.add_argument(
        "--configfile",
        type=Path,
        action="append",
        default=[],
        help="the experiment file of the run, layered on --config as snakemake does "
        "(e.g. experiments/full.yaml: its results_dir, results/full, and cache_dir)",
    )


def run_folders(args: argparse.Namespace) -> tuple[Path, Path]:
    """(results, cache_dir): each as given, else from the layered config (the built-in defaults
    when --config does not exist, e.g. outside a checkout)."""
    results, cache_dir = args.results, args.cache_dir
    if cache_dir is None or results is None:
        config = layered_config(args.config if args.config.exists() else None, args.configfile)
        cache_dir = cache_dir or Path(config.cache_dir)
        results = results or Path(config.results_dir)
    return results, cache_dir
