"""The config model: defaults filled, every bad key or value named with what is allowed."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from extrembench.core.config import ConfigError, config_hash, layered_config, load_config_file, validate_config

REPO = Path(__file__).resolve().parents[1]
DEFAULT = yaml.safe_load((REPO / "config.yaml").read_text())


def test_default_config_validates_and_fills_defaults():
    config = validate_config(DEFAULT)
    assert config.grading.model_dump() == {
        "mode": "default",
        "timeout_s": 5,
        "judge_model": None,
        "judge_votes": 5,
        "scope": "final",
        "ungraded": "wrong",
    }
    assert (
        config.models["gemma3-270m"].sampling.max_tokens == DEFAULT["models"]["gemma3-270m"]["sampling"]["max_tokens"]
    )
    assert config.models["reference-solver"].sampling.temperature == 0.6
    assert yaml.safe_load((REPO / "config.yaml").read_text()) == DEFAULT, "validation must not mutate its input"


def _with(path: str, value):
    config = copy.deepcopy(DEFAULT)
    *parents, last = path.split(".")
    node = config
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value
    return config


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("benchmarks.extrem.shardz", 3, "benchmarks.extrem: unknown key(s) ['shardz']"),
        ("benchmarks.extrem.shards", 0, "benchmarks.extrem.shards: 0 is less than the minimum of 1"),
        (
            "benchmarks.extrem.kind",
            "csv",
            "benchmarks.extrem.kind: 'csv' is not allowed; choose one of ['extremal', 'ingested', 'formalized', 'variants']",
        ),
        (
            "models.gemma3-270m.backend",
            "vllm",
            "choose one of ['sglang', 'openai', 'llamacpp', 'reference-solver', 'symmetric-guess', 'boundary-guess', "
            "'constant-guess']",
        ),
        (
            "models.gemma3-270m.sampling.top_p",
            1.5,
            "models.gemma3-270m.sampling.top_p: 1.5 is greater than the maximum of 1",
        ),
        (
            "models.gemma3-270m.size_class",
            "b200-xl",
            "models.gemma3-270m.size_class: 'b200-xl' has no entry under `resources`",
        ),
        ("evaluate.models", ["gpt-5"], "evaluate.models: 'gpt-5' is not in the model registry"),
        (
            "grading.mode",
            "lenient",
            "grading.mode: 'lenient' is not allowed; choose one of ['default', 'math-verify', 'amo-official']",
        ),
        ("translate.model", "nope", "translate.model: 'nope' is not in the model registry"),
        ("cache", "x", "<top level>: unknown key(s) ['cache']"),
        ("models.gemma3-270m.sglang", {"tp": 1}, "models.gemma3-270m: unknown key(s) ['sglang']"),
        (
            "models.gemma3-270m.llamacpp.n_threads",
            "2",
            "models.gemma3-270m.llamacpp.n_threads: Input should be a valid integer, not '2'",
        ),
        (
            "benchmarks.extrem.variants.kinds",
            ["rename", "rename"],
            "benchmarks.extrem.variants.kinds: ['rename', 'rename'] lists a kind twice",
        ),
        (
            "benchmarks.extrem.variants.kinds",
            ["swap"],
            "benchmarks.extrem.variants.kinds.0: 'swap' is not allowed; choose one of ['constants', 'rename', 'rephrase']",
        ),
        ("benchmarks.aime", {"kind": "ingested"}, "benchmarks.aime.dataset: required"),
        (
            "benchmarks.aime",
            {"dataset": "aime2025"},
            "benchmarks.aime.kind: required; choose one of ['extremal', 'ingested', 'formalized', 'variants']",
        ),
        ("resources.cpu.gpu", -1, "resources.cpu.gpu: -1 is less than the minimum of 0"),
        # issue 30 items 6 and 8: duplicates would be double-counted; these passed silently
        (
            "evaluate.models",
            ["gemma3-270m", "reference-solver", "gemma3-270m"],
            "evaluate.models: lists 'gemma3-270m' more than once; list each once",
        ),
        ("evaluate.benchmarks", ["extrem", "extrem"], "evaluate.benchmarks: lists 'extrem' more than once"),
        ("cache_dir", "", "cache_dir: Value error, must name a directory"),
        (
            "models.gemma3-270m",
            {"backend": "openai", "openai": {"base_url": "ftp://x"}},
            "models.gemma3-270m.openai.base_url: 'ftp://x' is not an http:// or https:// URL",
        ),
    ],
)
def test_bad_values_are_named(path, value, message):
    with pytest.raises(ConfigError) as error:
        validate_config(_with(path, value))
    assert message in str(error.value)


def test_config_hash_ignores_key_order():
    config = validate_config(DEFAULT)
    reordered = validate_config(dict(reversed(list(DEFAULT.items()))))
    assert config_hash(config) == config_hash(reordered)


def test_dump_validates_back_to_the_same_config():
    """Snakemake's `config` holds the dump: scripts rebuild the typed config from it with one call,
    and the derived variants benchmark is accepted again as spelled out."""
    config = validate_config(DEFAULT)
    again = validate_config(config.model_dump(mode="json"))
    assert again == config and config_hash(again) == config_hash(config)


def test_explicit_defaults_hash_like_omitted_ones():
    explicit = _with("grading", {"mode": "default", "timeout_s": 5, "judge_votes": 5})
    assert config_hash(validate_config(explicit)) == config_hash(validate_config(DEFAULT))


def test_a_key_given_twice_is_named_with_file_and_line(tmp_path):
    """Issue 30 item 8: plain YAML kept the second `sampling` and dropped the first unseen."""
    path = tmp_path / "c.yaml"
    path.write_text("models:\n  m:\n    backend: openai\n    backend: sglang\n")
    with pytest.raises(ConfigError, match=r"c\.yaml:4: duplicate key 'backend': a key may appear once"):
        load_config_file(path)
    with pytest.raises(ConfigError, match="duplicate key 'backend'"):
        layered_config(None, [path])


def test_load_config_file_rejects_non_mapping(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config_file(path)


@pytest.mark.slow  # ~3 s each
@pytest.mark.parametrize(
    "overlay, message",
    [
        ({"grading": {"mode": "lenient"}}, "grading.mode: 'lenient' is not allowed"),
        # issue 30 item 6: a model listed twice is rejected before any job, not double-counted
        (
            {"evaluate": {"models": ["reference-solver", "reference-solver"]}},
            "evaluate.models: lists 'reference-solver' more than once",
        ),
        # issue 30 item 8: a repeated key, and a problem folder without problems
        ("grading:\n  mode: default\ngrading:\n  mode: math-verify\n", "bad.yaml:3: duplicate key 'grading'"),
    ],
)
def test_snakemake_stops_before_any_job_on_a_bad_key(tmp_path, overlay, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(overlay if isinstance(overlay, str) else yaml.safe_dump(overlay))
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", str(bad)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert message in result.stdout + result.stderr
    assert "rule translate" not in result.stdout and "rule generate" not in result.stdout


def test_sglang_gpu_count_must_match_parallelism():
    config = copy.deepcopy(DEFAULT)
    config["resources"]["b200x2"] = {"gpu": 2, "gpu_model": "b200"}
    config["models"]["qwen"] = {
        "backend": "sglang",
        "hf_id": "Qwen/Qwen3-8B",
        "size_class": "b200x2",
        "sglang": {"tp": 1, "dp": 1},
    }
    with pytest.raises(ConfigError, match=r"models\.qwen: size class 'b200x2' gives 2 GPU\(s\) but sglang tp × dp = 1"):
        validate_config(config)
    config["models"]["qwen"]["sglang"]["dp"] = 2
    validate_config(config)


@pytest.mark.parametrize("value", ["sk-proj-abc123SECRET", "Bearer abc", "my key", "1ABC", ""])
def test_api_key_env_must_be_a_variable_name_and_is_never_echoed(value):
    """A key pasted into api_key_env is refused without printing it (issue 12, finding 8)."""
    raw = copy.deepcopy(DEFAULT)
    raw["models"]["remote"] = {
        "backend": "openai",
        "openai": {"base_url": "http://127.0.0.1:9/v1", "api_key_env": value},
    }
    with pytest.raises(ConfigError) as info:
        validate_config(raw)
    assert "models.remote.openai.api_key_env: must be the NAME of an environment variable" in str(info.value)
    assert value not in str(info.value).replace("api_key_env", "") or value == ""


def test_api_key_env_accepts_variable_names():
    raw = copy.deepcopy(DEFAULT)
    raw["models"]["remote"] = {
        "backend": "openai",
        "openai": {"base_url": "http://127.0.0.1:9/v1", "api_key_env": "OPENAI_API_KEY"},
    }
    assert validate_config(raw).models["remote"].openai.api_key_env == "OPENAI_API_KEY"


def test_variants_benchmark_is_derived_from_its_parent():
    config = validate_config(DEFAULT)
    derived = config.benchmarks["extrem-variants"]
    assert derived.kind == "variants" and derived.parent == "extrem"
    assert derived.shards == config.benchmarks["extrem"].shards
    assert derived.trials == DEFAULT["benchmarks"]["extrem"]["variants"]["trials"]
    assert config.benchmarks["extrem"].variants.per_problem == 2


def test_variants_without_a_block_get_the_defaults_and_trials_of_the_parent():
    config = copy.deepcopy(DEFAULT)
    del config["benchmarks"]["extrem"]["variants"]
    validated = validate_config(config)
    assert validated.benchmarks["extrem"].variants.model_dump() == {
        "per_problem": 2,
        "seed": 0,
        "kinds": ["constants", "rename", "rephrase"],
        "share": 1.0,
        "trials": None,
    }
    assert validated.benchmarks["extrem-variants"].trials == DEFAULT["benchmarks"]["extrem"]["trials"]


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"extrem-variants": {"kind": "variants", "parent": "extrem", "shards": 3}},
            "benchmarks.extrem-variants.shards: must equal benchmarks.extrem.shards",
        ),
        ({"other-variants": {"kind": "variants", "parent": "extrem", "shards": 4}}, "must be named <parent>-variants"),
        ({"aime": {"kind": "ingested", "dataset": "aime2025"}}, None),
    ],
)
def test_variants_benchmark_errors_name_the_fix(change, message):
    config = copy.deepcopy(DEFAULT)
    config["benchmarks"].update(change)
    if message is None:  # variants of an ingested benchmark
        config["evaluate"]["benchmarks"] = ["aime-variants"]
        message = "variants are made of extremal benchmarks only"
    with pytest.raises(ConfigError, match=message):
        validate_config(config)


@pytest.mark.parametrize(
    "name, top_keys",
    [
        (
            "config",
            {
                "benchmarks",
                "models",
                "evaluate",
                "resources",
                "cluster",
                "cache_dir",
                "results_dir",
                "validation",
                "aggregate",
                "grading",
                "translate",
                "convert",
            },
        ),
        (
            "problem",
            {
                "id",
                "sense",
                "variables",
                "constraints",
                "objective",
                "answer",
                "statement",
                "source",
                "technique",
                "difficulty",
                "family",
                "difficulty_reason",
                "date",
            },
        ),
    ],
)
def test_schema_command_prints_the_generated_json_schema(capsys, name, top_keys):
    """`extrembench schema config|problem`: the schema users read comes from the models that validate."""
    from extrembench.cli import main

    assert main(["schema", name]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert set(schema["properties"]) == top_keys and schema["additionalProperties"] is False


def test_config_schema_documents_each_kind_backend_and_default():
    from extrembench.core.config import config_json_schema

    defs = config_json_schema()["$defs"]
    assert {
        d["properties"]["kind"]["const"] for n, d in defs.items() if n.endswith("Benchmark") and n != "BenchmarkBase"
    } == {"extremal", "ingested", "formalized", "variants"}
    assert {d["properties"]["backend"]["const"] for d in defs.values() if "backend" in d.get("properties", {})} == {
        "sglang",
        "openai",
        "llamacpp",
        "reference-solver",
        "symmetric-guess",
        "boundary-guess",
        "constant-guess",
    }
    assert defs["Sampling"]["properties"]["temperature"]["default"] == 0.6


@pytest.mark.parametrize("value", ["/abs/results", "../results", "results/../../x", "has space", ""])
def test_results_dir_must_stay_inside_the_working_directory(value):
    base = yaml.safe_load((REPO / "config.yaml").read_text())
    with pytest.raises(ConfigError, match="results_dir: .*must be a relative path inside the working directory"):
        validate_config({**base, "results_dir": value})


def test_every_experiment_has_its_own_results_dir():
    seen = {}
    for path in sorted((REPO / "experiments").glob("*.yaml")):
        # amo-bench.yaml is layered on paper.yaml (its model registry); the last layer names the folder
        config = layered_config(REPO / "config.yaml", [REPO / "experiments" / "paper.yaml", path])
        assert config.results_dir == f"results/{path.stem}", path.name
        seen[config.results_dir] = path.name
    assert validate_config(yaml.safe_load((REPO / "config.yaml").read_text())).results_dir == "results"
    assert len(seen) == len(list((REPO / "experiments").glob("*.yaml")))


@pytest.mark.slow  # ~3 s
def test_snakemake_says_when_a_benchmark_has_no_problem_file(tmp_path):
    """Issue 30 item 8: an empty problem set used to surface only as an empty grade table at the end."""
    overlay = tmp_path / "empty.yaml"
    overlay.write_text(yaml.safe_dump({"benchmarks": {"extrem": {"problems": "no/such/folder"}}}))
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", str(overlay)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "benchmarks.extrem.problems: 'no/such/folder' holds no *.yaml problem file" in result.stderr


# ---------------------------------------------------------------- names are identifiers (issue 42)
HOSTILE_NAMES = [
    "$(touch x-marker)",
    "`id`",
    "a b",
    "..",
    "a/../b",
    "x..y",
    ".hidden",
    "-rf",
    "a'b",
    'a"b',
    "a;b",
    "",
    "é",
]


def _renamed(section: str, old: str, new: str) -> dict:
    config = copy.deepcopy(DEFAULT)
    config[section] = {new if k == old else k: v for k, v in config[section].items()}
    for key in ("models", "benchmarks"):
        config["evaluate"][key] = [new if n == old else n for n in config["evaluate"][key]]
    return config


@pytest.mark.parametrize("name", HOSTILE_NAMES)
@pytest.mark.parametrize(("section", "old"), [("models", "reference-solver"), ("benchmarks", "extrem")])
def test_model_and_benchmark_names_must_be_identifiers(section, old, name):
    """A name reaches the SLURM submit line (`--wrap="... --target-jobs '...model=<name>...'"`) and
    every results path: `$(...)` ran on the submit host, `..` wrote outside results_dir."""
    with pytest.raises(ConfigError) as error:
        validate_config(_renamed(section, old, name))
    message = str(error.value)
    assert f"{section}: " in message and "is not allowed as a name" in message
    assert "[A-Za-z0-9_][A-Za-z0-9._-]" in message and "no '..'" in message


@pytest.mark.parametrize("name", ["m.v1_x-2", "Qwen3-0.6B", "_x", "a.b.c", "7b"])
def test_identifier_names_with_dots_dashes_underscores_are_kept(name):
    config = validate_config(_renamed("models", "reference-solver", name))
    assert name in config.models and name in config.evaluate.models


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        ("cluster.gpu_partition", "gpu;id", "cluster.gpu_partition"),
        ("resources.cpu.partition", "$(id)", "resources.cpu.partition"),
        ("grading.judge_model", "../x", "grading.judge_model"),
        ("benchmarks.extrem.problems", "data/$(id)", "benchmarks.extrem.problems"),
        ("benchmarks.extrem.problems", "data/my problems", "benchmarks.extrem.problems"),
        ("evaluate.models", ["$(id)"], "evaluate.models.0"),
    ],
)
def test_values_reaching_a_shell_or_path_are_refused_naming_the_key(path, value, key):
    with pytest.raises(ConfigError) as error:
        validate_config(_with(path, value))
    assert f"{key}: " in str(error.value) and "is not allowed" in str(error.value)


@pytest.mark.parametrize("value", ["results/.hidden", "results/-x", "results/a..b", "results/$(id)"])
def test_results_dir_folders_are_names(value):
    with pytest.raises(ConfigError, match="results_dir: .*each folder in it is a name"):
        validate_config({**DEFAULT, "results_dir": value})


def test_results_dir_is_normalised():
    assert validate_config({**DEFAULT, "results_dir": "./results//paper/"}).results_dir == "results/paper"


def test_cache_dir_tilde_is_the_home_folder(tmp_path, monkeypatch):
    """`cache_dir: "~/x"` created a folder literally named `~` in the working directory."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config = validate_config({**DEFAULT, "cache_dir": "~/extrembench-cache"})
    assert config.cache_dir == str(tmp_path / "home" / "extrembench-cache")
    assert validate_config({**DEFAULT, "cache_dir": "cache"}).cache_dir == "cache"
