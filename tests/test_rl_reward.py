"""The reward (issue 41): every adapter (verl, TRL, OpenRLHF, verifiers) gives `extrembench grade`'s
verdict on a fixed set of >= 200 completions made from shipped problems, no wrong answer is
rewarded, a reply cut off inside its reasoning scores 0, untrusted text runs under the grader's hard
time limit, and the miss reading names guesses and claims past the proven extremum."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import sympy

from extrembench.problems.expr import parse_expression
from extrembench.rl.completions import KINDS, as_grade_cases, completion_set
from extrembench.rl.reward import compute_score, read_facts, reward, reward_func, rewards, trl_reward, verifiers_reward

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = sorted((REPO / "data/problems").glob("*.yaml"))[:36]
PROMPT = "Find the extremum.\n\n"


@pytest.fixture(scope="module")
def completions():
    made = completion_set(PROBLEMS)
    assert len(made) >= 200
    assert set(Counter(c.kind for c in made)) == set(KINDS)
    return made


@pytest.fixture(scope="module")
def grade_cli(completions, tmp_path_factory):
    cases = tmp_path_factory.mktemp("grade") / "cases.jsonl"
    cases.write_text(as_grade_cases(completions))
    result = subprocess.run(
        [sys.executable, "-m", "extrembench.cli", "grade", "--input", str(cases)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    return [row["correct"] is True for row in sorted(rows, key=lambda r: r["id"])]


@pytest.mark.slow
def test_every_adapter_gives_the_graders_verdict_and_no_wrong_answer_is_rewarded(completions, grade_cli):
    responses = [c.response for c in completions]
    golds = [c.gold for c in completions]
    facts = [json.dumps(c.facts) for c in completions]
    core = [r.score == 1.0 for r in rewards(responses, golds)]
    verl = [
        compute_score("extrembench", r, g, {"facts": f})["score"] == 1.0 for r, g, f in zip(responses, golds, facts)
    ]
    trl = trl_reward([[{"role": "assistant", "content": r}] for r in responses], answer=golds, facts=facts)
    openrlhf = reward_func([PROMPT + r for r in responses], [PROMPT] * len(responses), golds)["rewards"]
    verifiers = [
        verifiers_reward([{"role": "assistant", "content": r}], g, info={"facts": f})
        for r, g, f in zip(responses, golds, facts)
    ]
    assert [x == 1.0 for x in trl] == core
    assert [float(x) == 1.0 for x in openrlhf] == core
    assert [x == 1.0 for x in verifiers] == core
    assert verl == core
    assert grade_cli == core
    expected = [c.should_reward() for c in completions]
    wrongly_rewarded = [
        (c.problem_id, c.kind, c.value) for c, got, want in zip(completions, core, expected) if got and not want
    ]
    assert wrongly_rewarded == []
    missed = [(c.problem_id, c.kind, c.value) for c, got, want in zip(completions, core, expected) if want and not got]
    assert missed == []
    assert not any(got for c, got in zip(completions, core) if c.kind == "truncated")
    assert all(got for c, got in zip(completions, core) if c.kind in ("correct", "correct_decimal"))


@pytest.mark.slow
def test_the_miss_reading_names_claims_past_the_extremum_and_all_equal_guesses(completions):
    results = rewards(
        [c.response for c in completions], [c.gold for c in completions], facts=[c.facts for c in completions]
    )
    seen = Counter()
    for c, r in zip(completions, results):
        if r.score == 1.0 or c.value is None:
            assert r.miss_class == ("correct" if r.score == 1.0 else "no_answer")
            continue
        gold, stated = parse_expression(c.facts["answer_text"], []), parse_expression(c.value, [])
        past = (1 if c.facts["sense"] == "min" else -1) * sympy.N(gold - stated, 50) > 0
        assert (r.miss_class == "beyond_extremum") == bool(past), (c.problem_id, c.kind, r)
        if c.kind == "all_equal":
            assert (r.miss_class, r.kind, r.guess) == ("suboptimal_attained", "all_equal", "all_equal"), (
                c.problem_id,
                r,
            )
        seen[r.miss_class] += 1
    assert seen["beyond_extremum"] and seen["suboptimal_attained"]


@pytest.mark.slow
def test_a_reply_cut_off_inside_its_reasoning_scores_zero():
    gold = "\\frac{3}{2}"
    assert reward("<think>so it is \\boxed{\\frac{3}{2}}", gold).score == 0.0
    assert reward("<think>so</think> it is \\boxed{\\frac{3}{2}}", gold).score == 1.0
    # a template that opens the block in the prompt: the reply shows only the closing tag
    assert reward("so it is \\boxed{\\frac{3}{2}}", gold, require_think=True).score == 0.0
    assert reward("so</think> it is \\boxed{\\frac{3}{2}}", gold, require_think=True).score == 1.0
    assert compute_score("extrembench", "so it is \\boxed{3/2}", gold, None, require_think=True)["score"] == 0.0


@pytest.mark.slow
def test_untrusted_text_runs_under_the_hard_time_limit_and_the_batch_goes_on():
    stuck = (
        "\\boxed{" + "(" * 400 + "1" + ")" * 400 + "}"
    )  # Math-Verify's parser takes far longer (test_grading_timeout)
    started = time.monotonic()
    results = rewards([stuck, "\\boxed{2}"], ["3", "2"], timeout=2.0, workers=1)
    assert time.monotonic() - started < 2.0 + 5.0
    assert (results[0].score, results[0].status, results[0].reason) == (0.0, "ungraded", "timeout")
    assert results[1].score == 1.0


def test_facts_are_read_from_a_dict_or_its_json_and_nothing_else():
    assert read_facts({"answer": "1"}) == {"answer": "1"}
    assert read_facts('{"answer": "1"}') == {"answer": "1"}
    assert read_facts("\\frac{1}{2}") is None
    assert read_facts("{not json") is None
    assert read_facts("{" + " " * 30_000 + "}") is None  # over the size cap: not parsed
    assert read_facts(None) is None


@pytest.mark.slow
def test_each_adapter_takes_the_call_its_trainer_makes():
    """The calls as the upstream files cited in docs/rl.md make them."""
    gold, facts = (
        "\\frac{3}{2}",
        json.dumps({"answer": "\\frac{3}{2}", "answer_decimal": "1.5", "sense": "min", "variables": ["a"]}),
    )
    reply = "<think>\nequal values</think>\nThe minimum is $\\boxed{\\frac{3}{2}}$.<|im_end|>"
    # verl/workers/reward_manager/naive.py: keywords, extra_info grown by the manager
    extra_info = {"facts": facts, "num_turns": None, "rollout_reward_scores": {}}
    verl = compute_score(data_source="extrembench", solution_str=reply, ground_truth=gold, extra_info=extra_info)
    assert (verl["score"], verl["acc"], verl["pred"]) == (1.0, True, "\\frac{3}{2}")
    # trl/trainer/grpo_trainer.py _calculate_rewards: keywords, every column but prompt, and its own
    logged = {}
    trl = trl_reward(
        prompts=[[{"role": "user", "content": "Q"}]] * 2,
        completions=[[{"role": "assistant", "content": reply}], [{"role": "assistant", "content": "\\boxed{1}"}]],
        completion_ids=[[1, 2], [3]],
        answer=[gold, gold],
        id=["p", "p"],
        facts=[facts, facts],
        trainer_state=None,
        log_extra=lambda *args, **kwargs: None,
        log_metric=lambda name, value: logged.__setitem__(name, value),
    )
    assert trl == [1.0, 0.0] and logged["extrembench/beyond_extremum"] == 0.5
    # openrlhf/utils/agent.py: positional lists of one, from a worker thread; the query is the chat
    # template's prompt and the reply decoded with its special tokens
    prompt = "<|im_start|>user\nFind it within \\boxed{}.<|im_end|>\n<|im_start|>assistant\n"
    result = asyncio.run(asyncio.to_thread(reward_func, [prompt + reply], [prompt], [gold]))
    assert list(result["rewards"]) == [1.0] and list(result["scores"]) == [1.0]
    # a decoded query whose start differs from the prompt string (a BOS token): still the reply, not
    # the whole query (whose first end-of-turn token, the prompt's, would end the content)
    plain = "The minimum value is $\\frac{3}{2}$.<|im_end|>"
    assert list(reward_func(["<s>" + prompt + plain], [prompt], [gold])["rewards"]) == [1.0]
    # verifiers/rubrics/rubric.py: a **kwargs function gets every named argument
    state = {"responses": []}
    verifiers = verifiers_reward(
        prompt=[{"role": "user", "content": "Q"}],
        completion=[{"role": "assistant", "content": reply}],
        answer=gold,
        state=state,
        task="default",
        info={"facts": facts},
        parser=None,
    )
    assert verifiers == 1.0
