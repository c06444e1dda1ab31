"""Accuracies the source papers report (data/published/*.csv), keyed to a run's names.

The CSVs use the dataset names of `extrembench.sources.ingest.DATASETS` and lower-case Hugging Face
repository names; a run names its benchmarks and models freely in config.yaml, so
`aliases_from_config` derives the renaming from each benchmark's `dataset` and each model's
`hf_id`, and `align_published` applies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from extrembench.core.config import Config

COLUMNS = ("benchmark", "model", "accuracy_percent", "exact", "metric", "setting", "source", "locator", "note")
REQUIRED = ("benchmark", "model", "accuracy_percent", "source")
# the loaded table: the fraction `accuracy` beside the file's columns
LOADED = ("benchmark", "model", "accuracy", *[c for c in COLUMNS if c not in ("benchmark", "model")])


def normalise_name(name: str) -> str:
    """'Qwen/Qwen3-4B-Thinking-2507' → 'qwen3-4b-thinking-2507': organisation dropped, lower case."""
    return name.rsplit("/", 1)[-1].strip().lower()


def _read_one(path: Path) -> pd.DataFrame:
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in REQUIRED if c not in table.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}; every published CSV needs {list(REQUIRED)}")
    for line, row in table.iterrows():
        where = f"{path}, data row {line + 1}"
        for column in REQUIRED:
            if not row[column].strip():
                raise ValueError(f"{where}: field {column!r} is empty; give the value and its citation or drop the row")
        try:
            value = float(row["accuracy_percent"])
        except ValueError:
            raise ValueError(
                f"{where}: field 'accuracy_percent' is {row['accuracy_percent']!r}, not a number"
            ) from None
        if not 0 <= value <= 100:
            raise ValueError(
                f"{where}: field 'accuracy_percent' is {value}, outside 0–100 (write percent, not a fraction)"
            )
    for column in COLUMNS:
        if column not in table.columns:
            table[column] = ""
    return table[list(COLUMNS)]


def load_published(path: str | Path = "data/published") -> pd.DataFrame:
    """Every published accuracy under `path` (a directory of CSVs, or one CSV): columns
    benchmark, model, accuracy (a fraction, like the leaderboard), accuracy_percent, exact, metric,
    setting, source, locator, note; sorted by benchmark, model."""
    path = Path(path)
    files = sorted(path.glob("*.csv")) if path.is_dir() else [path]
    if not files or not files[0].exists():
        raise FileNotFoundError(f"{path}: no published-accuracy CSV found (expected data/published/*.csv)")
    table = pd.concat([_read_one(f).assign(_file=str(f)) for f in files], ignore_index=True)
    table["model"] = table["model"].map(normalise_name)
    duplicated = table[table.duplicated(["benchmark", "model"], keep=False)]
    if not duplicated.empty:
        pairs = sorted(set(zip(duplicated["benchmark"], duplicated["model"])))
        where = ", ".join(sorted(set(duplicated["_file"])))
        raise ValueError(f"{where}: (benchmark, model) given more than once: {pairs}; keep one row per pair")
    table["accuracy_percent"] = table["accuracy_percent"].astype(float)
    table["accuracy"] = table["accuracy_percent"] / 100.0
    table["exact"] = table["exact"].str.lower().ne("false")
    return table[list(LOADED)].sort_values(["benchmark", "model"], kind="stable").reset_index(drop=True)


def published_for_run(path: str | Path | None, config: Config) -> pd.DataFrame:
    """The published accuracies under a run's own benchmark and model names (config aliases);
    empty when the run has no published numbers (a workflow copied without data/published)."""
    return align_published(
        load_published_if_any(path), **dict(zip(("benchmarks", "models"), aliases_from_config(config)))
    )


def load_published_if_any(path: str | Path | None) -> pd.DataFrame:
    """`load_published`, or an empty table when `path` is empty: comparison columns stay empty,
    no result changes."""
    if not path:
        return pd.DataFrame(columns=list(LOADED)).astype({"accuracy": float})
    return load_published(path)


def aliases_from_config(config: Config) -> tuple[dict[str, str], dict[str, str]]:
    """(dataset name → benchmark name, normalised hf_id → model name) from a validated config."""
    benchmarks = {entry.dataset: name for name, entry in config.benchmarks.items() if entry.kind == "ingested"}
    models = {normalise_name(entry.hf_id): name for name, entry in config.models.items() if entry.hf_id}
    return benchmarks, models


def align_published(
    published: pd.DataFrame, *, benchmarks: Mapping[str, str] | None = None, models: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Rename published keys to a run's names (unmapped names are kept as they are)."""
    benchmarks = dict(benchmarks or {})
    models = {normalise_name(k): v for k, v in (models or {}).items()}
    aligned = published.copy()
    aligned["benchmark"] = aligned["benchmark"].map(lambda b: benchmarks.get(b, b))
    aligned["model"] = aligned["model"].map(lambda m: models.get(normalise_name(m), m))
    return aligned


def compare_published(leaderboard: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Reproduced beside published for every (benchmark, model) in either: accuracy_reproduced,
    ci_low, ci_high, accuracy_published, difference (reproduced − published), inside_ci, source."""
    reproduced = leaderboard[["benchmark", "model", "accuracy_mean", "ci_low", "ci_high"]].rename(
        columns={"accuracy_mean": "accuracy_reproduced"}
    )
    quoted = published[["benchmark", "model", "accuracy", "exact", "source"]].rename(
        columns={"accuracy": "accuracy_published", "exact": "published_exact"}
    )
    table = reproduced.merge(quoted, on=["benchmark", "model"], how="outer")
    table["difference"] = table["accuracy_reproduced"] - table["accuracy_published"]
    inside = (table["accuracy_published"] >= table["ci_low"]) & (table["accuracy_published"] <= table["ci_high"])
    both = table["accuracy_reproduced"].notna() & table["accuracy_published"].notna()
    table["inside_ci"] = inside.astype("boolean").where(both, pd.NA)  # NA: nothing to compare
    return table.sort_values(["benchmark", "model"], kind="stable").reset_index(drop=True)
