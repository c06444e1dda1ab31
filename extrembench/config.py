"""The one config model: config.yaml validated against schemas/config.schema.yaml, defaults filled.

A bad key or value stops the run before any job is planned, with a message naming the key path,
the offending value and what is allowed.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import yaml

SCHEMA_PATH = files("extrembench").joinpath("schemas/config.schema.yaml")


class ConfigError(ValueError):
    """Invalid configuration; the message names the key and the fix."""


def load_schema() -> dict:
    return yaml.safe_load(SCHEMA_PATH.read_text(encoding="utf-8"))


def _with_defaults(validator_class):
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if "default" in subschema and name not in instance:
                    instance[name] = copy.deepcopy(subschema["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


_Validator = _with_defaults(jsonschema.Draft202012Validator)


def _key_path(error: jsonschema.ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path) or "<top level>"


def _explain(error: jsonschema.ValidationError) -> str:
    where = _key_path(error)
    if error.absolute_path and error.absolute_path[-1] == "api_key_env":
        # never echo the value: a key pasted here by mistake must not reach the console or logs
        return (f"{where}: must be the NAME of an environment variable (letters, digits, _; e.g. "
                "OPENAI_API_KEY), not the key itself; the value is not shown")
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        return f"{where}: unknown key(s) {extra}; allowed keys: {allowed}"
    if error.validator == "enum":
        return f"{where}: {error.instance!r} is not allowed; choose one of {error.validator_value}"
    if error.validator == "required":
        return f"{where}: {error.message}"
    return f"{where}: {error.message}"


def validate_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Return a validated deep copy of `raw` with every default filled in."""
    config = copy.deepcopy(dict(raw))
    errors = sorted(_Validator(load_schema()).iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(_explain(e) for e in errors))
    _derive_variant_benchmarks(config)
    _check_references(config)
    return config


def _derive_variant_benchmarks(config: dict[str, Any]) -> None:
    """`<name>-variants` under evaluate.benchmarks asks the vary stage's variants of extremal
    benchmark <name>: its entry is derived here (same shards as the parent, since a variant lives
    in its parent's shard) unless the config spells it out."""
    suffix = "-variants"
    for name in config["evaluate"]["benchmarks"]:
        parent = name[: -len(suffix)] if name.endswith(suffix) else None
        if name in config["benchmarks"] or parent not in config["benchmarks"]:
            continue
        spec = config["benchmarks"][parent]
        if spec["kind"] != "extremal":
            raise ConfigError(f"evaluate.benchmarks: {name!r}: variants are made of extremal benchmarks only; "
                              f"{parent!r} is {spec['kind']}")
        variants = spec["variants"]
        if variants is None:
            variants = spec["variants"] = _validated_defaults("variants")
        config["benchmarks"][name] = {"kind": "variants", "parent": parent, "shards": spec["shards"],
                                      "trials": variants["trials"] or spec["trials"], "limit": None,
                                      "variants": None}
    for name, spec in config["benchmarks"].items():
        if spec["kind"] != "variants":
            continue
        parent = config["benchmarks"].get(spec.get("parent"))
        if name != f"{spec.get('parent')}{suffix}" or parent is None or parent["kind"] != "extremal":
            raise ConfigError(f"benchmarks.{name}: a variants benchmark must be named <parent>-variants after "
                              f"an extremal benchmark (parent: {spec.get('parent')!r})")
        if spec["shards"] != parent["shards"]:
            raise ConfigError(f"benchmarks.{name}.shards: must equal benchmarks.{spec['parent']}.shards "
                              f"({parent['shards']}): a variant lives in its parent's shard")
        if parent["variants"] is None:
            parent["variants"] = _validated_defaults("variants")


def _validated_defaults(key: str) -> dict[str, Any]:
    """The defaults of one benchmark sub-mapping, as the schema fills them."""
    schema = load_schema()["properties"]["benchmarks"]["additionalProperties"]["properties"][key]
    value: dict[str, Any] = {}
    _Validator(schema).validate(value)
    return value


def _check_references(config: dict[str, Any]) -> None:
    problems: list[str] = []
    models, benchmarks = config["models"], config["benchmarks"]
    for name in config["evaluate"]["models"]:
        if name not in models:
            problems.append(f"evaluate.models: {name!r} is not in the model registry; known: {sorted(models)}")
    for name in config["evaluate"]["benchmarks"]:
        if name not in benchmarks:
            problems.append(f"evaluate.benchmarks: {name!r} is not a configured benchmark; known: {sorted(benchmarks)}")
    for name, bench in benchmarks.items():
        if bench["kind"] == "extremal" and not bench.get("problems"):
            problems.append(f"benchmarks.{name}.problems: required for kind 'extremal' (a directory of problem YAML files)")
        if bench["kind"] == "ingested" and not bench.get("dataset"):
            problems.append(f"benchmarks.{name}.dataset: required for kind 'ingested'")
        if bench["kind"] == "formalized" and not bench.get("statements"):
            problems.append(f"benchmarks.{name}.statements: required for kind 'formalized' (a JSONL file of "
                            "id, statement, answer)")
    for name, model in models.items():
        if model["size_class"] not in config["resources"]:
            problems.append(
                f"models.{name}.size_class: {model['size_class']!r} has no entry under `resources`; "
                f"known: {sorted(config['resources'])}"
            )
        if model["backend"] == "openai" and not model["openai"].get("base_url"):
            problems.append(f"models.{name}.openai.base_url: required for backend 'openai'")
        if model["backend"] == "sglang" and not model.get("hf_id"):
            problems.append(f"models.{name}.hf_id: required for backend 'sglang'")
        if model["backend"] == "sglang" and model["size_class"] in config["resources"]:
            gpus = config["resources"][model["size_class"]]["gpu"]
            needed = model["sglang"]["tp"] * model["sglang"]["dp"]
            if gpus != needed:
                problems.append(f"models.{name}: size class {model['size_class']!r} gives {gpus} GPU(s) but "
                                f"sglang tp × dp = {needed}; make them equal")
    for stage in ("translate", "convert"):
        chosen = config[stage]["model"]
        if chosen is not None and chosen not in models:
            problems.append(f"{stage}.model: {chosen!r} is not in the model registry; known: {sorted(models)}")
    judge = config["grading"]["judge_model"]
    if judge is not None and judge not in models:
        problems.append(f"grading.judge_model: {judge!r} is not in the model registry; known: {sorted(models)}")
    if "cpu" not in config["resources"]:
        problems.append("resources.cpu: required (the resources of every non-GPU rule)")
    if problems:
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(problems))


def load_config_file(path: str | Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        raw = yaml.safe_load(handle)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    return validate_config(raw)


def config_hash(config: Mapping[str, Any]) -> str:
    """Stable hash of the validated config (key order does not matter)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()
