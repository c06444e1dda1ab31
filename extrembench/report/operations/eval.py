"""`extrembench eval`: one model on one benchmark, in one command, through the ordinary workflow.

    extrembench eval --base-url http://127.0.0.1:8000/v1 --model google/gemma-3-270m --benchmark extrem --limit 5
    extrembench eval --model gemma3-270m --benchmark extrem          # a model of the registry

It writes a small experiment file into the run's own results folder (results/eval/<key>/<benchmark>/
experiment.yaml), layered on config.yaml as any `--configfile` is, runs Snakemake with it up to the
leaderboard (and the misses table of an extremal benchmark), and prints the result rows. Nothing
else is special: the artifacts, the cache and the lineage are those of every run, so
`extrembench audit --configfile <that file> ...` and `extrembench show` work on the result, and
rerunning the command (or Snakemake with that file) sends only the requests not cached yet.

With --base-url, --model is what the server is asked for (the request's `model` field, which the
registry takes from `hf_id`); the registry key, which names folders and Snakemake jobs, must be an
identifier, so it is derived from the name (e.g. google/gemma-3-270m -> google-gemma-3-270m-<hash>)
unless --name gives one. The API key is read by the generate jobs from the environment variable
--api-key-env names; neither this command nor the experiment file ever holds the key itself.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from extrembench.core.config import (
    NAME_RULE,
    Config,
    ConfigError,
    OpenAIModel,
    layered_config,
    name_error,
)
from extrembench.core.errors import InputError

PACKAGE_CHECKOUT = Path(__file__).resolve().parents[3]  # the Snakefile beside the package (editable install)
EXPERIMENT_FILE = "experiment.yaml"


def registry_key(name: str, taken: set[str] = frozenset(), salt: str = "") -> str:
    """An identifier (core.config.NAME_PATTERN) for a served model's name: the name itself when it
    is one and free; else its characters outside [A-Za-z0-9._-] become '-', and a short hash of the
    name (and `salt`, the URL) keeps two names that read alike apart."""
    if name_error(name) is None and name not in taken:
        return name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name)
    stem = re.sub(r"\.{2,}", ".", stem).lstrip(".-")[:100] or "model"
    digest = hashlib.sha256(f"{name}\0{salt}".encode()).hexdigest()[:8]
    key = f"{stem}-{digest}"
    assert name_error(key) is None, key
    return key


def _dump(section: Any) -> dict:
    # every field as validated, None left out (the config model fills it in again)
    return section.model_dump(mode="json", exclude_none=True)


def _model_entry(
    base: Config, *, model: str, base_url: str | None, api_key_env: str | None, name: str | None
) -> tuple[str, dict]:
    """(registry key, model entry): a registry model as configured, or a new OpenAI-compatible one."""
    if base_url is None:
        if model not in base.models:
            raise InputError(
                f"--model: {model!r} is not in the model registry; known: {sorted(base.models)}. For a model "
                "behind an OpenAI-compatible server give --base-url too (then --model is the name it serves)"
            )
        if name is not None and name != model:
            raise InputError("--name: only with --base-url (a registry model keeps its registry name)")
        return model, _dump(base.models[model])
    if name is not None and name_error(name):
        raise InputError(f"--name: {name_error(name)}")
    key = name or registry_key(model, set(base.models), salt=base_url)
    if key in base.models and not isinstance(base.models[key], OpenAIModel):
        raise InputError(f"--name: {key!r} is a {base.models[key].backend} model of the registry; choose another")
    openai = {"base_url": base_url, **({"api_key_env": api_key_env} if api_key_env else {})}
    return key, {"backend": "openai", "hf_id": model, "size_class": "cpu", "openai": openai}


def experiment(
    base: Config,
    *,
    benchmark: str,
    model: str,
    base_url: str | None,
    api_key_env: str | None,
    name: str | None,
    limit: int | None,
    trials: int | None,
    sampling: dict[str, Any],
    settings: dict[str, Any],
    results_root: str,
) -> tuple[str, dict]:
    """(registry key, experiment overlay): self-contained over config.yaml (the model, the
    benchmark and their resources are spelled out), so `--configfile` of it alone reproduces it."""
    if benchmark not in base.benchmarks:
        raise InputError(
            f"--benchmark: {benchmark!r} is not a configured benchmark; known: {sorted(base.benchmarks)} "
            "(a benchmark of an experiment file: add --configfile experiments/<file>.yaml)"
        )
    key, entry = _model_entry(base, model=model, base_url=base_url, api_key_env=api_key_env, name=name)
    entry = {**entry, **settings}
    if sampling:
        entry["sampling"] = {**entry.get("sampling", {}), **sampling}
    bench = _dump(base.benchmarks[benchmark])
    benchmarks = {benchmark: bench}
    if bench["kind"] == "variants":
        benchmarks[bench["parent"]] = _dump(base.benchmarks[bench["parent"]])
    elif limit is not None:
        bench["limit"] = limit
        bench["shards"] = min(bench["shards"], limit)  # no shard without a problem
    if trials is not None:
        bench["trials"] = trials
    size_classes = {"cpu", entry.get("size_class", "cpu")}
    overlay = {
        "results_dir": f"{results_root}/{key}/{benchmark}",
        "cache_dir": base.cache_dir,
        "models": {key: entry},
        "benchmarks": benchmarks,
        "resources": {c: _dump(base.resources[c]) for c in sorted(size_classes) if c in base.resources},
        "evaluate": {"models": [key], "benchmarks": [benchmark]},
    }
    return key, overlay


def _snakefile(workdir: Path) -> Path:
    for folder in (workdir, PACKAGE_CHECKOUT):
        if (folder / "Snakefile").is_file():
            return folder / "Snakefile"
    raise InputError(f"no Snakefile in {workdir} or {PACKAGE_CHECKOUT}: run extrembench eval from the checkout")


def result_table(results: Path, benchmark: str, key: str) -> str:
    """The leaderboard row of the run, as the Markdown table results/leaderboard.md holds."""
    import pandas as pd  # deferred: pandas costs start-up time and only this path needs it

    from extrembench.report.results.leaderboard import markdown_table  # deferred with pandas, which it imports

    board = pd.read_parquet(results / "leaderboard.parquet")
    return markdown_table(board[(board["benchmark"] == benchmark) & (board["model"] == key)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        required=True,
        help="with --base-url: the model name the server serves (the request's `model` field); "
        "without: a registry name of the config",
    )
    parser.add_argument("--benchmark", required=True, help="a configured benchmark, e.g. extrem")
    parser.add_argument("--base-url", help="http(s)://host:port/v1 of an OpenAI-compatible server")
    parser.add_argument(
        "--api-key-env",
        help="NAME of the environment variable holding the API key (the key itself is never written anywhere)",
    )
    parser.add_argument("--name", help="registry key for a --base-url model (default: derived from --model)")
    parser.add_argument("--limit", type=int, help="ask only N problems (a stable sample of the benchmark)")
    parser.add_argument("--trials", type=int, help="answers per problem (default: the benchmark's)")
    parser.add_argument(
        "--max-tokens", type=int, help="sampling.max_tokens (default: the model's, 32768 for a new one)"
    )
    parser.add_argument("--temperature", type=float, help="sampling.temperature")
    parser.add_argument("--context-length", type=int, help="the model's context length [4096 for a new model]")
    parser.add_argument("--concurrency", type=int, help="requests in flight [256 for a new model]")
    parser.add_argument("--config", type=Path, default=Path("config.yaml"), help="config file [config.yaml]")
    parser.add_argument(
        "--configfile",
        type=Path,
        action="append",
        default=[],
        help="an experiment file whose benchmarks or models to use (e.g. experiments/companions-offline.yaml)",
    )
    parser.add_argument("--results-root", default="results/eval", help="folder of eval runs [results/eval]")
    parser.add_argument("--profile", help="Snakemake profile [profiles/local beside the Snakefile]")
    parser.add_argument("--cores", type=int, help="Snakemake --cores (default: the profile's)")
    parser.add_argument(
        "--dry-run", action="store_true", help="write the experiment file and show the jobs (snakemake -n)"
    )


def _validated(args: argparse.Namespace) -> None:
    for flag, value, low in (
        ("--limit", args.limit, 1),
        ("--trials", args.trials, 1),
        ("--max-tokens", args.max_tokens, 1),
        ("--context-length", args.context_length, 256),
        ("--concurrency", args.concurrency, 1),
    ):
        if value is not None and value < low:
            raise InputError(f"{flag}: {value} is less than the minimum of {low}")
    if args.api_key_env and not args.base_url:
        raise InputError("--api-key-env: only with --base-url (a registry model names its key variable itself)")
    if args.api_key_env and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,127}", args.api_key_env):
        # never echo it: a key pasted here by mistake must not reach the console
        raise InputError(
            "--api-key-env: must be the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself; "
            "the value is not shown"
        )
    if args.api_key_env and not os.environ.get(args.api_key_env):
        raise InputError(f"--api-key-env: the environment variable {args.api_key_env} is not set; export it first")
    if name_error(args.benchmark):
        raise InputError(f"--benchmark: {name_error(args.benchmark)}")


def _experiment_of(args: argparse.Namespace, base: Config) -> tuple[str, dict]:
    """`experiment` with the command line's flags (a flag not given leaves the configured value)."""
    sampling = {k: v for k, v in (("max_tokens", args.max_tokens), ("temperature", args.temperature)) if v is not None}
    settings = {
        k: v for k, v in (("context_length", args.context_length), ("concurrency", args.concurrency)) if v is not None
    }
    return experiment(
        base,
        benchmark=args.benchmark,
        model=args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        name=args.name,
        limit=args.limit,
        trials=args.trials,
        sampling=sampling,
        settings=settings,
        results_root=args.results_root.rstrip("/"),
    )


def _write_experiment(args: argparse.Namespace, key: str, overlay: dict, path: Path) -> None:
    """The experiment file, kept only when it is valid as Snakemake will read it."""
    header = (
        f"# written by `extrembench eval` ({key} on {args.benchmark}), layered on {args.config} as any experiment file:\n"
        f"#   snakemake --profile profiles/local --configfile {path}\n"
        f"#   extrembench audit --configfile {path} --benchmark {args.benchmark} --model {key}\n"
    )
    path.write_text(header + yaml.safe_dump(overlay, sort_keys=False), encoding="utf-8")
    # valid as Snakemake will read it (config.yaml, then this file alone), or no run at all
    try:
        layered_config(args.config, [path])
    except ConfigError as error:
        path.unlink()
        raise InputError(f"the eval experiment for {key!r} is not a valid config: {error}") from None


def _snakemake_command(args: argparse.Namespace, base: Config, results: Path, path: Path, workdir: Path) -> list[str]:
    """Snakemake on the experiment file, up to the leaderboard (and the misses table of an extremal benchmark)."""
    snakefile = _snakefile(workdir)
    profile = args.profile or str(snakefile.parent / "profiles" / "local")
    targets = [str(results / "leaderboard.parquet"), str(results / "leaderboard.md")]
    if base.benchmarks[args.benchmark].kind in ("extremal", "variants", "formalized"):
        targets += [str(results / "tables" / "misses.csv"), str(results / "tables" / "misses.sha256")]
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--configfile",  # first: it takes every word up to the next option
        str(path),
        "--snakefile",
        str(snakefile),
        "--directory",
        str(workdir),
        "--profile",
        profile,
        *(["--cores", str(args.cores)] if args.cores else []),
        *(["--dry-run"] if args.dry_run else []),
        *targets,
    ]


def run(args: argparse.Namespace) -> int:
    _validated(args)
    workdir = Path.cwd()
    if not args.config.is_file():
        raise InputError(
            f"{args.config}: no such config file here ({workdir}); run extrembench eval from the checkout "
            "(the folder with config.yaml), or pass --config"
        )
    base = layered_config(args.config, args.configfile)
    key, overlay = _experiment_of(args, base)
    results = Path(overlay["results_dir"])
    path = results / EXPERIMENT_FILE
    if key != args.model:
        print(
            f"extrembench eval: registry key {key!r} for model {args.model!r} (names must be identifiers; {NAME_RULE}); "
            f"the request's model field stays {args.model!r}",
            file=sys.stderr,
        )
    results.mkdir(parents=True, exist_ok=True)
    _write_experiment(args, key, overlay, path)
    command = _snakemake_command(args, base, results, path, workdir)
    print(f"extrembench eval: {' '.join(command[1:])}", file=sys.stderr, flush=True)
    returncode = subprocess.run(command, cwd=workdir).returncode
    if returncode != 0:
        print(
            f"extrembench eval: snakemake exited with {returncode}; its log above names the failed job", file=sys.stderr
        )
        return 1
    if args.dry_run:
        return 0
    print()
    print(result_table(results, args.benchmark, key), end="")
    print(f"\nresults: {results}/leaderboard.md")
    print(f"samples: extrembench show --configfile {path} --benchmark {args.benchmark} --model {key} --misses")
    print(f"audit:   extrembench audit --configfile {path} --benchmark {args.benchmark} --model {key}")
    return 0
