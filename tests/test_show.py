"""`extrembench show`: one sample of a run read back from its artifacts and cache, printed with
every part apart, and untrusted model text made safe for a terminal (issue 37)."""

from __future__ import annotations

from pathlib import Path

import pytest

from extrembench.cli import main
from extrembench.core.artifacts import SCHEMAS, read_artifact, write_artifact
from extrembench.llm.cache import GenerationCache, cache_key
from extrembench.report.audit.show import answer_or_tail, safe_text

BENCH, MODEL = "extrem", "my-model"
ESC = "\x1b"


def _row(kind: str, **fields) -> dict:
    row = dict.fromkeys(SCHEMAS[kind].names)
    unknown = set(fields) - set(row)
    assert not unknown, unknown
    row.update(benchmark=BENCH, model=MODEL, **fields)
    return row


def _run(tmp_path: Path, samples: list[dict]) -> tuple[Path, Path]:
    """A results folder with one shard per stage and the cache entries of `samples`: each a dict
    with problem_id, trial, content, reasoning, extracted, status, miss_class (and optional witness)."""
    results, cache_dir = tmp_path / "results", tmp_path / "cache"
    cache = GenerationCache(cache_dir)
    gens, grades, misses = [], [], []
    for s in samples:
        request = {"messages": [{"role": "user", "content": f"Find the minimum of {s['problem_id']}."}], "seed": 1}
        key = cache_key(request)
        finish = s.get("finish", "stop")
        response = {"content": s["content"], "reasoning_content": s["reasoning"], "finish_reason": finish}
        cache.put(key, request, response, {"host": "h"})
        common = {"problem_id": s["problem_id"], "trial": s["trial"], "cache_key": key}
        gens.append(
            _row(
                "generations",
                **common,
                content=s["content"],
                reasoning_content=s["reasoning"],
                finish_reason=finish,
                prompt_tokens=10,
                completion_tokens=20,
            )
        )
        grades.append(_row("grades", **common, gold="2", extracted=s["extracted"], status=s["status"]))
        misses.append(
            _row(
                "misses",
                **common,
                gold="2",
                extracted=s["extracted"],
                miss_class=s["miss_class"],
                witness_json=s.get("witness"),
                claim_value=s.get("claim"),
            )
        )
    write_artifact(gens, results / BENCH / "generate" / MODEL / "shard-0.parquet", "generations")
    write_artifact(grades, results / BENCH / "grade" / MODEL / "shard-0.parquet", "grades")
    write_artifact(misses, results / BENCH / "misses" / MODEL / "shard-0.parquet", "misses")
    return results, cache_dir


SAMPLES = [
    {
        "problem_id": "p1",
        "trial": 0,
        "reasoning": "try a=b=1",
        "content": "The minimum is \\boxed{3}.",
        "extracted": "3",
        "status": "wrong",
        "miss_class": "suboptimal_attained",
        "witness": "[1, 1]",
        "claim": "3",
    },
    {
        "problem_id": "p1",
        "trial": 1,
        "reasoning": None,
        "content": "The answer is \\boxed{2}.",
        "extracted": "2",
        "status": "correct",
        "miss_class": "correct",
    },
    {
        "problem_id": "p2",
        "trial": 0,
        "reasoning": "thinking",
        # a hostile response: clears the screen, sets the title, rewrites the line, reorders text
        "content": f"{ESC}[2J{ESC}]0;pwned\x07 ok\rfake verdict: correct \u202eevil" + "x" * 5000 + " the end",
        "extracted": None,
        "status": "no_answer",
        "miss_class": "no_answer",
        "finish": f"stop{ESC}[31m",  # the server's finish_reason is untrusted text too
    },
]


def _show(tmp_path, capsys, *args) -> tuple[int, str, str]:
    results, cache_dir = _run(tmp_path, SAMPLES)
    rc = main(
        [
            "show",
            "--benchmark",
            BENCH,
            "--model",
            MODEL,
            "--results",
            str(results),
            "--cache-dir",
            str(cache_dir),
            *args,
        ]
    )
    out, err = capsys.readouterr()
    return rc, out, err


def test_one_sample_shows_every_part_apart(tmp_path, capsys):
    rc, out, _ = _show(tmp_path, capsys, "--problem", "p1", "--trial", "0")
    assert rc == 0
    assert "=== extrem / my-model / p1 / trial 0 ===" in out
    parts = [
        "--- prompt\n[user] Find the minimum of p1.",
        "--- reasoning\ntry a=b=1",
        "--- response (final content)\nThe minimum is \\boxed{3}.",
        "extracted: 3",
        "gold:      2",
        "verdict:   wrong",
        "miss class: suboptimal_attained",
        "witness: [1, 1]",
    ]
    positions = [out.index(part) for part in parts]
    assert positions == sorted(positions)
    assert "trial 1" not in out


def test_every_trial_of_a_problem_without_trial(tmp_path, capsys):
    rc, out, _ = _show(tmp_path, capsys, "--problem", "p1")
    assert rc == 0 and out.count("=== extrem / my-model / p1 / trial") == 2


def test_untrusted_response_is_escaped_and_cut(tmp_path, capsys):
    rc, out, _ = _show(tmp_path, capsys, "--problem", "p2")
    assert rc == 0
    for raw in (ESC, "\x07", "\r", "\u202e"):
        assert raw not in out
    assert "\\x1b[2J\\x1b]0;pwned\\x07 ok\\rfake verdict" in out and "\\u202eevil" in out
    assert "characters left out; --full shows all" in out and out.rstrip().endswith("the end") is False
    assert "x the end" in out  # the tail, where the answer would be, is kept
    rc, full, _ = _show(tmp_path, capsys, "--problem", "p2", "--full")
    assert "left out" not in full and "x" * 5000 in full and ESC not in full


def test_misses_lists_every_missed_sample_in_full(tmp_path, capsys):
    rc, out, _ = _show(tmp_path, capsys, "--misses")
    assert rc == 0
    assert "/ p1 / trial 0 ===" in out and "/ p2 / trial 0 ===" in out and "/ p1 / trial 1 ===" not in out


def test_without_a_problem_the_samples_are_listed(tmp_path, capsys):
    rc, out, _ = _show(tmp_path, capsys)
    assert rc == 0
    assert "p1 trial 0: wrong suboptimal_attained  answer '3'" in out
    assert "p2 trial 0: no_answer  no answer; response ends '…" in out and "x the end'" in out
    assert ESC not in out


def test_an_unknown_problem_names_the_known_ones(tmp_path, capsys):
    rc, _, err = _show(tmp_path, capsys, "--problem", "nope")
    assert rc == 2 and "no such sample" in err and "p1, p2" in err


def test_an_unknown_model_names_the_folder_and_the_models_there(tmp_path, capsys):
    results, cache_dir = _run(tmp_path, SAMPLES)
    rc = main(
        ["show", "--benchmark", BENCH, "--model", "other", "--results", str(results), "--cache-dir", str(cache_dir)]
    )
    err = capsys.readouterr().err
    assert rc == 2 and f"{results}/{BENCH}/generate/other" in err and "my-model" in err


@pytest.mark.parametrize("name", ["../etc", "a/b", "$(id)"])
def test_a_model_name_that_is_not_an_identifier_is_refused(tmp_path, capsys, name):
    results, cache_dir = _run(tmp_path, SAMPLES)
    rc = main(["show", "--benchmark", BENCH, "--model", name, "--results", str(results), "--cache-dir", str(cache_dir)])
    assert rc == 2 and "is not allowed as a name" in capsys.readouterr().err


def test_audit_names_the_response_tail_of_a_no_answer_miss(tmp_path):
    results, _ = _run(tmp_path, SAMPLES)
    no_answer = {"benchmark": BENCH, "model": MODEL, "extracted": float("nan")}
    key = read_artifact(results / BENCH / "misses" / MODEL / "shard-0.parquet").to_pylist()[2]["cache_key"]
    text = answer_or_tail({**no_answer, "cache_key": key}, results)
    assert "nan" not in text and text.startswith("no answer; response ends '…")
    assert text.endswith("(finish stop\\x1b[31m)")
    assert "x the end'" in text and ESC not in text
    assert answer_or_tail({**no_answer, "extracted": "3", "cache_key": key}, results) == "answer '3'"


def test_safe_text_keeps_newlines_tabs_and_unicode_math():
    assert safe_text("a\n\tb ≤ √2 ∑") == "a\n\tb ≤ √2 ∑"
    assert safe_text("\x9b31m") == "\\x9b31m"  # the 8-bit CSI
