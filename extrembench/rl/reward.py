"""The reward: the project's grader on a trainer's completion, with one thin adapter per trainer.

`rewards(responses, golds)` grades a batch exactly as `extrembench grade` does (the same
`grade_math_in_process`: the same extraction, the same equivalence, the same 4-decimal rule, in
default mode), in the grader's worker processes under its hard time limit, so untrusted text never
runs in the trainer's process and a runaway parse costs `timeout` seconds, then 0. The answer is
taken only after the last closing think tag; a reply with an opening tag and no closing one was cut
off inside its reasoning and scores 0, however right a box inside it is. With
`require_think=True` (a chat template that opens the thinking block in the prompt, so the reply
shows only the closing tag) a reply without any closing tag scores 0 too.

Score 1.0 for a correct answer, else 0.0 (wrong, no answer, ungraded). Given the row's facts
(rows.ground_truth_facts: sense, the gold's 50-digit decimal, the cheap guesses' values), each
result also names the miss, cheaply and without search: `beyond_extremum` (past the proven
extremum: an impossible claim), `suboptimal_attained` with kind `all_equal` or `boundary` (the value
of that cheap guess), `no_answer`, `unparsable`, `non_real`, else `undecided`; and `guess` names the
cheap guess (all_equal, boundary, constant) whose value the answer is, right or wrong, so a trainer
can watch for reward hacking by guessing. The full classes (with the validator's search) are the
misses stage's (docs/metrics.md).

Adapters: `compute_score` (verl), `trl_reward` (TRL GRPOTrainer), `reward_func` (OpenRLHF's
remote reward function file), `verifiers_reward` (a verifiers Rubric function).
"""

from __future__ import annotations

import atexit
import json
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from extrembench.grading.pool import HardTimeoutPool

TIMEOUT_S = 5.0  # the grader's default hard limit per completion
MAX_FACTS_CHARS = 20_000  # facts longer than this are not read (they come from our export: a few hundred)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)  # the grader's closing tag (grading/extract.py)


@dataclass(frozen=True)
class Reward:
    score: float  # 1.0 correct, else 0.0
    correct: bool | None  # the grader's verdict (None: ungraded)
    status: str  # correct | wrong | no_answer | ungraded
    reason: str  # the grader's rule, or why there was no verdict
    extracted: str | None
    miss_class: str | None = None  # with facts: correct | no_answer | beyond_extremum | suboptimal_attained | ...
    kind: str | None = None  # suboptimal_attained: all_equal | boundary
    guess: str | None = None  # the cheap guess whose value the answer is

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------- worker side
def reward_task(argument: dict) -> dict:
    """Worker entry point (JSON in, JSON out): the grader's verdict, and the miss when facts are given."""
    # deferred: these load sympy and Math-Verify, which only the worker processes need
    from extrembench.grading.grade import grade_math_in_process

    result = grade_math_in_process(argument["gold"], argument["response"], "number", "default").as_dict()
    if argument.get("facts") is not None:
        result.update(miss_of(result, argument["facts"]))
    return result


def miss_of(result: dict, facts: dict) -> dict:
    """The cheap miss reading of a graded answer (module docstring)."""
    # deferred: the claim reader and sympy are worker-side only
    import sympy

    from extrembench.report.misses.classify import read_claim  # deferred: worker-side only, as above

    extracted = result["extracted"]
    if result["status"] == "no_answer" or extracted is None:
        return {"miss_class": "no_answer" if result["status"] == "no_answer" else "undecided"}
    claim = read_claim(extracted, list(facts.get("variables") or []))
    if claim.form != "number":
        return {"miss_class": "correct" if result["correct"] else claim.form}
    digits = 50
    value = sympy.N(claim.value, digits)
    guess = None
    for name in ("all_equal", "boundary", "constant"):
        text = facts.get(f"{name}_decimal")
        if text is not None:
            target = sympy.Float(text, digits)
            if abs(value - target) <= claim.tolerance + sympy.Float("1e-11", digits) * (1 + abs(target)):
                guess = name
                break
    if result["correct"]:
        return {"miss_class": "correct", "guess": guess}
    if result["status"] != "wrong" or facts.get("answer_decimal") is None:
        return {"miss_class": "undecided", "guess": guess}
    gold = sympy.Float(facts["answer_decimal"], digits)
    sign = 1 if facts.get("sense") == "min" else -1
    if sign * (gold - value) > claim.tolerance + sympy.Float("1e-30", digits) * (1 + abs(gold)):
        return {"miss_class": "beyond_extremum", "guess": guess}
    if guess in ("all_equal", "boundary"):
        return {"miss_class": "suboptimal_attained", "kind": guess, "guess": guess}
    return {"miss_class": "undecided", "guess": guess}


# ---------------------------------------------------------------- trainer side
_pools: dict[int, HardTimeoutPool] = {}
_pools_lock = threading.Lock()


def _pool(workers: int) -> HardTimeoutPool:
    """One long-lived pool per size: a trainer calls the reward every step."""
    with _pools_lock:
        if workers not in _pools:
            _pools[workers] = HardTimeoutPool("extrembench.rl.reward:reward_task", workers)
        return _pools[workers]


@atexit.register
def close_pools() -> None:
    with _pools_lock:
        for pool in _pools.values():
            pool.close()
        _pools.clear()


def _default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def read_facts(value: Any) -> dict | None:
    """Facts from a dict or its JSON text (verl's extra_info, a TRL column, an OpenRLHF label);
    None when absent or unreadable (the reward is then the verdict alone)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and 0 < len(value) <= MAX_FACTS_CHARS and value.lstrip().startswith("{"):
        try:
            facts = json.loads(value)
        except ValueError:
            return None
        return facts if isinstance(facts, dict) else None
    return None


def rewards(
    responses: Sequence[str],
    golds: Sequence[str],
    *,
    facts: Sequence[dict | None] | None = None,
    timeout: float = TIMEOUT_S,
    workers: int | None = None,
    require_think: bool = False,
) -> list[Reward]:
    """Grade a batch of completions against their golds; one Reward each, in order."""
    if len(responses) != len(golds) or (facts is not None and len(facts) != len(golds)):
        raise ValueError(
            f"{len(responses)} responses, {len(golds)} golds, {len(facts or golds)} facts: give one of each per completion"
        )
    out: list[Reward | None] = [None] * len(responses)
    tasks, where = [], []
    for index, (response, gold) in enumerate(zip(responses, golds)):
        response = response if isinstance(response, str) else ""
        if require_think and not _THINK_CLOSE.search(response):
            out[index] = Reward(0.0, False, "no_answer", "think-missing", None, "no_answer" if facts else None)
            continue
        tasks.append({"gold": str(gold), "response": response, "facts": facts[index] if facts else None})
        where.append(index)
    if tasks:
        outcomes = _pool(workers or min(_default_workers(), len(tasks))).map(tasks, timeout)
        for index, outcome in zip(where, outcomes):
            if outcome.timed_out or outcome.error is not None:
                reason = "timeout" if outcome.timed_out else f"grader-error:{outcome.error[:120]}"
                out[index] = Reward(0.0, None, "ungraded", reason, None, "undecided" if facts else None)
                continue
            value = outcome.value
            out[index] = Reward(
                1.0 if value["correct"] else 0.0,
                value["correct"],
                value["status"],
                value["reason"],
                value["extracted"],
                value.get("miss_class"),
                value.get("kind"),
                value.get("guess"),
            )
    return out  # type: ignore[return-value]


def reward(response: str, gold: str, *, facts: dict | None = None, **options) -> Reward:
    """One completion (see `rewards`)."""
    return rewards([response], [gold], facts=[facts] if facts is not None else None, **options)[0]


# ---------------------------------------------------------------- adapters
def _text_of(completion: Any) -> str:
    """A completion as text: a string, or chat messages (the last assistant message's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                content = message.get("content")
                return content if isinstance(content, str) else ""
    return ""


def compute_score(
    data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None, **kwargs
) -> dict:
    """verl's custom reward function (`custom_reward_function.name=compute_score`): a dict with
    `score` (the reward), `acc` and `pred`, and the miss reading when extra_info carries facts."""
    facts = read_facts((extra_info or {}).get("facts")) if isinstance(extra_info, dict) else None
    result = reward(solution_str, ground_truth, facts=facts, require_think=bool(kwargs.get("require_think", False)))
    return {
        "score": result.score,
        "acc": bool(result.correct),
        "pred": result.extracted or "",
        "status": result.status,
        "miss_class": result.miss_class or "",
        "guess": result.guess or "",
    }


def trl_reward(completions: list, answer: list[str], facts: list | None = None, **kwargs) -> list[float]:
    """TRL GRPOTrainer reward function: the dataset's `answer` (and `facts`) columns arrive as
    keyword lists beside `completions` (strings or chat messages); one float per completion."""
    read = [read_facts(f) for f in facts] if facts is not None else None
    results = rewards([_text_of(c) for c in completions], answer, facts=read)
    log_metric = kwargs.get("log_metric")
    if read is not None and callable(log_metric) and results:
        for name in ("beyond_extremum", "suboptimal_attained"):
            log_metric(f"extrembench/{name}", sum(r.miss_class == name for r in results) / len(results))
        log_metric("extrembench/guess", sum(r.guess is not None for r in results) / len(results))
    return [r.score for r in results]


def _after_prompt(query: str, prompt: str) -> str:
    """The response in an OpenRLHF query (the prompt and the response, decoded with the special
    tokens): after the prompt, or after its last occurrence when decoding changed what precedes it.
    Never the whole query when the prompt is in it: the grader would stop at the prompt's end-of-turn
    token and read the prompt's empty box."""
    if not isinstance(prompt, str) or not prompt:
        return query
    if query.startswith(prompt):
        return query[len(prompt) :]
    at = query.rfind(prompt)
    return query[at + len(prompt) :] if at >= 0 else query


def reward_func(queries: list[str], prompts: list[str], labels: list[str], **kwargs) -> dict:
    """OpenRLHF's remote reward function (`--remote_rm_url <file defining reward_func>`, with
    `--label_key label`, or `--label_key facts` for the miss reading): the response is the query
    after its prompt. Returns rewards and scores (a torch tensor when torch is there) and extra logs."""
    responses = [_after_prompt(q, p) for q, p in zip(queries, prompts)]
    facts = [read_facts(label) for label in labels]
    golds = [
        f["answer"] if f is not None and isinstance(f.get("answer"), str) else label for f, label in zip(facts, labels)
    ]
    results = rewards(responses, golds, facts=facts if all(f is not None for f in facts) else None)
    scores = [r.score for r in results]
    try:
        import torch  # optional: OpenRLHF runs with torch; without it plain lists serve
    except ImportError:
        torch = None
    values = torch.tensor(scores, dtype=torch.float) if torch is not None else scores
    accuracy = sum(scores) / len(scores) if scores else 0.0
    return {"rewards": values, "scores": values, "extra_logs": {"extrembench_accuracy": accuracy}}


def verifiers_reward(completion: Any, answer: str, info: dict | None = None, **kwargs) -> float:
    """A verifiers Rubric reward function (its arguments are matched by name)."""
    facts = read_facts(info.get("facts")) if isinstance(info, dict) else None
    return reward(_text_of(completion), answer, facts=facts).score
