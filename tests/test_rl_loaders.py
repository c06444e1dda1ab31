"""The exports load with the data loading the trainers use (issue 41): Hugging Face `datasets`, at the
version of pyproject's `rl` extra, reads each layout as verl's RLHFDataset (Parquet), TRL's
GRPOTrainer (a Parquet dataset), OpenRLHF (JSONL) and the verifiers environment module (JSONL) read
it, with the nested chat messages and structs intact. `datasets` is in the test extra, so this runs
wherever the suite does; the Hub is switched off (nothing is downloaded at test time)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from extrembench.cli import main

os.environ["HF_HUB_OFFLINE"] = "1"  # read before datasets loads: local files only
import datasets  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    root = tmp_path_factory.mktemp("rl-loaders")
    folder = root / "problems"
    folder.mkdir()
    shutil.copy(REPO / "data/guessable/ineq-0004.yaml", folder)
    shutil.copy(REPO / "data/unnumbered/ineq-0111.yaml", folder)
    first = ["export-rl", "--format", "verl", "--out", str(root / "verl"), "--directory", str(REPO)]
    assert main([*first, "--problems", str(folder), "--per-problem", "0"]) == 0
    for fmt in ("trl", "openrlhf", "verifiers"):
        assert (
            main(
                [
                    "export-rl",
                    "--format",
                    fmt,
                    "--out",
                    str(root / fmt),
                    "--from-rows",
                    str(root / "verl" / "rows.parquet"),
                ]
            )
            == 0
        )
    return root


@pytest.mark.slow
def test_verl_and_trl_parquet_load_with_datasets(exports):
    verl = datasets.load_dataset("parquet", data_files=str(exports / "verl" / "train.parquet"), split="train")
    assert set(verl.column_names) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    row = verl[0]
    assert row["prompt"][0]["role"] == "user" and "\\boxed{}" in row["prompt"][0]["content"]
    assert row["reward_model"]["style"] == "rule" and row["reward_model"]["ground_truth"]
    assert json.loads(row["extra_info"]["facts"])["answer"] == row["reward_model"]["ground_truth"]
    trl = datasets.load_dataset("parquet", data_files=str(exports / "trl" / "train.parquet"), split="train")
    assert {"prompt", "answer"} <= set(trl.column_names) and len(trl) == len(verl) == 2
    assert isinstance(trl[0]["prompt"], list) and trl[0]["prompt"][0]["role"] == "user"


@pytest.mark.slow
def test_openrlhf_and_verifiers_jsonl_load_with_datasets(exports):
    openrlhf = datasets.load_dataset("json", data_files=str(exports / "openrlhf" / "train.jsonl"), split="train")
    assert {"input", "label"} <= set(openrlhf.column_names) and all(openrlhf["label"])
    verifiers = datasets.load_dataset("json", data_files=str(exports / "verifiers" / "train.jsonl"), split="train")
    assert {"question", "answer", "info"} <= set(verifiers.column_names)
    assert json.loads(verifiers[0]["info"]["facts"])["answer"] == verifiers[0]["answer"]
