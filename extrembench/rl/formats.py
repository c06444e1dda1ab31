"""The canonical rows in the layouts RL trainers read (docs/rl.md cites the upstream file that
defines each, with its version). One file per split present, named after the split.

- verl: Parquet with `data_source`, `prompt` (chat messages), `ability`, `reward_model`
  {style, ground_truth} and `extra_info` (a struct; our facts for the reward ride in it).
- trl: Parquet a `datasets.load_dataset("parquet", ...)` reads: `prompt` (chat messages), the gold
  as its own column `answer`, and `facts` (JSON text); GRPOTrainer hands every extra column to the
  reward function as a keyword argument.
- openrlhf: JSONL with `input` (the prompt text), `label` (the gold) and `facts` (JSON text), read
  with `--input_key input --label_key label` (or `--label_key facts` to let the reward name misses).
- verifiers: JSONL with `question`, `answer` and `info`, and an environment module
  `extrembench_env.py` whose `load_environment()` builds a `SingleTurnEnv` on it with our reward.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from extrembench.core.files import atomic_output
from extrembench.rl.rows import ground_truth_facts

FORMATS = ("verl", "trl", "openrlhf", "verifiers")
DATA_SOURCE = "extrembench"
ABILITY = "math"

_s = pa.string()
_messages = pa.list_(pa.struct([("role", _s), ("content", _s)]))
EXTRA_INFO = pa.struct(
    [
        ("split", _s),
        ("index", pa.int64()),
        ("id", _s),
        ("family", _s),
        ("kind", _s),
        ("certificate_kind", _s),
        ("facts", _s),
    ]
)
VERL = pa.schema(
    [
        ("data_source", _s),
        ("prompt", _messages),
        ("ability", _s),
        ("reward_model", pa.struct([("style", _s), ("ground_truth", _s)])),
        ("extra_info", EXTRA_INFO),
    ]
)
TRL = pa.schema([("prompt", _messages), ("answer", _s), ("id", _s), ("facts", _s)])


def _facts(row: dict) -> str:
    return json.dumps(ground_truth_facts(row), sort_keys=True, ensure_ascii=False)


def _messages_of(row: dict) -> list[dict]:
    return [{"role": "user", "content": row["prompt"]}]


def _write_parquet(rows: list[dict], schema: pa.Schema, path: Path) -> None:
    table = pa.Table.from_pylist(rows, schema=schema)
    with atomic_output(path) as tmp:
        pq.write_table(table, tmp, compression="zstd", write_statistics=False)


def _write_jsonl(records: list[dict], path: Path) -> None:
    with atomic_output(path) as tmp, open(tmp, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")


def verl_records(rows: list[dict]) -> list[dict]:
    return [
        {
            "data_source": DATA_SOURCE,
            "prompt": _messages_of(row),
            "ability": ABILITY,
            "reward_model": {"style": "rule", "ground_truth": row["answer"]},
            "extra_info": {
                "split": row["split"],
                "index": index,
                "id": row["id"],
                "family": row["family"],
                "kind": row["kind"],
                "certificate_kind": row["certificate_kind"],
                "facts": _facts(row),
            },
        }
        for index, row in enumerate(rows)
    ]


def trl_records(rows: list[dict]) -> list[dict]:
    return [
        {"prompt": _messages_of(row), "answer": row["answer"], "id": row["id"], "facts": _facts(row)} for row in rows
    ]


def openrlhf_records(rows: list[dict]) -> list[dict]:
    return [{"input": row["prompt"], "label": row["answer"], "id": row["id"], "facts": _facts(row)} for row in rows]


def verifiers_records(rows: list[dict]) -> list[dict]:
    return [
        {"question": row["prompt"], "answer": row["answer"], "info": {"id": row["id"], "facts": _facts(row)}}
        for row in rows
    ]


ENVIRONMENT_MODULE = '''"""A verifiers environment over extrembench's proven answers (written by `extrembench export-rl
--format verifiers`). Install extrembench and verifiers, then load it with
`verifiers.load_environment` or call `load_environment()` here."""

from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_environment(split: str = "train", **kwargs):
    # deferred: neither package is needed to read or copy this folder
    import verifiers as vf
    from datasets import load_dataset

    from extrembench.rl.reward import verifiers_reward

    dataset = load_dataset("json", data_files=str(HERE / f"{{split}}.jsonl"), split="train")
    rubric = vf.Rubric(funcs=[verifiers_reward], weights=[1.0])
    return vf.SingleTurnEnv(dataset=dataset, rubric=rubric, **kwargs)
'''


# The file a trainer is pointed at for its reward (verl: custom_reward_function.path with
# name=compute_score; OpenRLHF: --reward.remote_url <file>.py, which must define reward_func).
REWARD_SHIMS = {
    "verl": "compute_score",
    "openrlhf": "reward_func",
}
REWARD_SHIM = '''"""The reward of extrembench.rl.reward for {fmt} (written by `extrembench export-rl`)."""

from extrembench.rl.reward import {name}  # noqa: F401 (the trainer looks this name up)
'''


def write_format(rows: list[dict], fmt: str, out: Path) -> list[Path]:
    """Write `rows` in layout `fmt` under `out`, one file per split present; the paths written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for split in sorted({row["split"] for row in rows}):
        part = [row for row in rows if row["split"] == split]
        if fmt == "verl":
            path = out / f"{split}.parquet"
            _write_parquet(verl_records(part), VERL, path)
        elif fmt == "trl":
            path = out / f"{split}.parquet"
            _write_parquet(trl_records(part), TRL, path)
        elif fmt == "openrlhf":
            path = out / f"{split}.jsonl"
            _write_jsonl(openrlhf_records(part), path)
        else:
            path = out / f"{split}.jsonl"
            _write_jsonl(verifiers_records(part), path)
        written.append(path)
    if fmt in REWARD_SHIMS:
        shim = out / "extrembench_reward.py"
        with atomic_output(shim) as tmp:
            Path(tmp).write_text(REWARD_SHIM.format(fmt=fmt, name=REWARD_SHIMS[fmt]), encoding="utf-8")
        written.append(shim)
    if fmt == "verifiers":
        module = out / "extrembench_env.py"
        with atomic_output(module) as tmp:
            Path(tmp).write_text(ENVIRONMENT_MODULE.replace("{{split}}", "{split}"), encoding="utf-8")
        written.append(module)
    return written
