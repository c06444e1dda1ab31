"""The cost ledger per (benchmark, model): GPU-hours, output tokens, throughput, price, and
accuracy per GPU-hour, summed from the generation rows' `gpu_seconds` / `wall_seconds` (each
response's share of the job attempt that produced it: generation/ledger.py).

A row whose producing attempt left no ledger entry has unknown cost: it is counted in
`cost_unknown_rows` and left out of the sums, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from extrembench.core.config import Cluster, Model

COLUMNS = [
    "gpu_hours",
    "wall_hours",
    "output_tokens",
    "tokens_per_s_per_gpu",
    "cost",
    "cost_basis",
    "cost_unknown_rows",
]
GENERATION_COLUMNS = ["benchmark", "model", "prompt_tokens", "completion_tokens", "gpu_seconds", "wall_seconds"]


def read_generations(paths: Sequence[str]) -> pd.DataFrame:
    """Only the columns the ledger needs (not the model text)."""
    import pyarrow.parquet as pq  # deferred: pyarrow costs start-up time and only this path needs it

    frames = [pq.read_table(p, columns=GENERATION_COLUMNS).to_pandas() for p in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=GENERATION_COLUMNS)


def _ledger_row(frame: pd.DataFrame, model_cfg: Model | None, cluster: Cluster) -> dict[str, Any]:
    known = frame[frame["gpu_seconds"].notna()]
    gpu_seconds = float(known["gpu_seconds"].sum())
    on_gpu = known[known["gpu_seconds"] > 0]
    completion = float(frame["completion_tokens"].fillna(0).sum())
    prompt = float(frame["prompt_tokens"].fillna(0).sum())
    if model_cfg is not None and model_cfg.price_per_million_output_tokens is not None:
        cost = (
            completion * model_cfg.price_per_million_output_tokens
            + prompt * (model_cfg.price_per_million_input_tokens or 0.0)
        ) / 1e6
        basis = "per million tokens"
    elif cluster.gpu_hour_cost is not None:
        cost, basis = gpu_seconds / 3600 * cluster.gpu_hour_cost, "per GPU-hour"
    else:
        cost, basis = float("nan"), "no price configured"
    return {
        "gpu_hours": gpu_seconds / 3600,
        "wall_hours": float(known["wall_seconds"].sum()) / 3600,
        "output_tokens": int(completion),
        "tokens_per_s_per_gpu": (
            float(on_gpu["completion_tokens"].fillna(0).sum()) / gpu_seconds if gpu_seconds > 0 else float("nan")
        ),
        "cost": cost,
        "cost_basis": basis,
        "cost_unknown_rows": int(len(frame) - len(known)),
    }


def cost_table(generations: pd.DataFrame, models: Mapping[str, Model], cluster: Cluster) -> pd.DataFrame:
    """One row per (benchmark, model) with COLUMNS; a model not in `models` has no price."""
    rows = [
        {"benchmark": benchmark, "model": model, **_ledger_row(frame, models.get(model), cluster)}
        for (benchmark, model), frame in generations.groupby(["benchmark", "model"], sort=True)
    ]
    return pd.DataFrame(rows, columns=["benchmark", "model", *COLUMNS])


def with_cost_columns(board: pd.DataFrame, costs: pd.DataFrame) -> pd.DataFrame:
    """The leaderboard plus the ledger columns and accuracy per GPU-hour (NaN without GPU time)."""
    merged = board.merge(costs, on=["benchmark", "model"], how="left")
    gpu_hours = merged["gpu_hours"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        merged["accuracy_per_gpu_hour"] = np.where(gpu_hours > 0, merged["accuracy_mean"] / gpu_hours, np.nan)
    return merged
