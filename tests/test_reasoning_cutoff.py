"""Belt and braces (issue 39): for a model whose registry entry says it reasons, a reply stopped by
max_tokens with no closing think tag and nothing split off as reasoning is a thought cut off, not
an answer, whatever split the server made. Checked on the whole corpus under the worst split (the
raw text handed over as content, as a parser that does not know the template's opening tag does);
the split SGLang's own parsers make is checked in tests/test_sglang_oracle.py."""

from __future__ import annotations

import pytest
from support.reasoning_corpus import CORPUS, grade, verdict

CUT = [entry for entry in CORPUS if entry.get("cut_in_reasoning")]


def test_the_corpus_covers_every_family_and_both_endings():
    assert len(CORPUS) >= 25
    assert len({entry["id"] for entry in CORPUS}) == len(CORPUS)
    families = {entry["family"] for entry in CORPUS}
    assert families == {"qwen3-hybrid", "qwen3-thinking-2507", "r1-distill", "gpt-oss"}
    for family in families:
        mine = [entry for entry in CORPUS if entry["family"] == family]
        assert {entry["finish"] for entry in mine} == {"stop", "length"}, family
        assert any(entry.get("cut_in_reasoning") for entry in mine), family
        assert any(entry.get("reasoning_box") for entry in mine), family


@pytest.mark.parametrize("entry", CUT, ids=[entry["id"] for entry in CUT])
def test_a_reasoning_model_cut_off_in_its_thought_has_no_answer_whatever_the_split(entry):
    row = grade(entry, entry["text"], None, reasons=True)
    assert verdict(row) == "no_answer", row
    assert row["extracted"] is None
    assert row["reasoning_answer"] == entry.get("reasoning_box"), row
    assert "cut off inside the reasoning" in row["reason"] or "think" in row["reason"]


def test_without_the_registry_field_a_cut_off_thought_is_graded_as_an_answer():
    """What the field guards against: the same worst split graded as plain content gives credit
    for a value written halfway through the reasoning."""
    graded = {entry["id"]: verdict(grade(entry, entry["text"], None, reasons=False)) for entry in CUT}
    assert {"t-cut-boxed", "r-cut-boxed", "t-cut-phrase"} <= {k for k, v in graded.items() if v == "correct"}


@pytest.mark.parametrize(
    "entry", [e for e in CORPUS if e["finish"] == "length" and not e.get("cut_in_reasoning")], ids=lambda e: e["id"]
)
def test_an_answer_written_after_the_reasoning_closed_still_counts(entry):
    """Stopped by max_tokens while writing the final answer: the reasoning was split off (or its
    closing tag is in the content), so the stated answer is graded."""
    reasoning, _, final = entry["text"].rpartition("</think>")
    if not reasoning:  # gpt-oss: the analysis channel is the reasoning
        reasoning, _, final = entry["text"].partition("<|start|>assistant<|channel|>final<|message|>")
    assert verdict(grade(entry, final, reasoning, reasons=True)) == entry["expect"] == "correct"
    assert verdict(grade(entry, entry["text"], None, reasons=True)) in {"correct", "no_answer"}


def test_docs_state_the_corpus_size():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[1] / "docs" / "models.md").read_text()
    assert f"reasoning_corpus.yaml`, {len(CORPUS)} raw outputs" in docs
