"""Convert an inequality problem into an extremal-problem spec with an LLM (the source paper's
rule), and formalize statement + answer pairs the rule-based formalizer cannot read.

The model replies with a JSON object; `json` reads it (data only) and extrembench.problems.problem checks it
against the problem schema and parses every expression with the safe parser — nothing the model
writes is evaluated. A reply that fails is sent back with the error, up to `max_attempts` calls in
all; then the outcome is a failure that keeps every raw reply and counts the attempts.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from extrembench.llm.calls import LLMCaller
from extrembench.problems.expr import ExpressionError, parse_expression
from extrembench.problems.latex import FormalizeError, latex_to_text
from extrembench.problems.problem import ProblemError, problem_from_dict, problem_to_dict
from extrembench.sources.formalize import formalize_statement

log = logging.getLogger(__name__)

CONVERT_SEED = 0
SPEC_KEYS = ("sense", "variables", "constraints", "objective", "answer", "statement")

_FORMAT = (
    "Reply with one JSON object and nothing else, with exactly these keys:\n"
    '  "sense": "min" or "max";\n'
    '  "variables": an object mapping each variable name to its domain: "positive", "nonnegative", '
    '"real", or an interval written as text such as "[0, 1]" or "(0, pi/2]";\n'
    '  "constraints": a list of relations "lhs OP rhs" with OP one of = >= <= > < (conditions beyond '
    "the domains; [] when there are none);\n"
    '  "objective": the expression to minimize or maximize;\n'
    '  "answer": the extremum, an expression without variables;\n'
    '  "statement": the extremal problem in English, formulas in LaTeX between $...$.\n'
    "Expressions use + - * / ^ and parentheses, numbers, the declared variables, pi, E and the "
    "functions sqrt, cbrt, Abs, Max, Min, exp, log, sin, cos, tan (write 2*a or 2a, a^2, sqrt(a*b))."
)

CONVERT_SYSTEM = (
    "You convert olympiad inequality problems into extremal problems by this rule:\n"
    "1. Keep every condition of the problem: the domains of the variables and every constraint.\n"
    "2. 'Prove A >= B' (or A > B) becomes 'find the minimum value of A - B'; 'prove A <= B' (or A < B) "
    "becomes 'find the maximum value of A - B'.\n"
    "3. Move the constant terms out: the objective holds only the terms of A - B that depend on the "
    "variables, and the answer is minus the sum of the constant terms.\n"
    "Example: 'Let a, b, c be positive reals with abc = 1. Prove that a/b + b/c + c/a >= 3.' becomes "
    '{"sense": "min", "variables": {"a": "positive", "b": "positive", "c": "positive"}, '
    '"constraints": ["a*b*c = 1"], "objective": "a/b + b/c + c/a", "answer": "3", '
    '"statement": "Let $a, b, c$ be positive real numbers such that $abc = 1$. Find the minimum value '
    'of $\\\\frac{a}{b} + \\\\frac{b}{c} + \\\\frac{c}{a}$."}\n' + _FORMAT
)

FORMALIZE_SYSTEM = (
    "You write extremal problems (find the minimum or maximum of an expression under conditions) "
    "as machine-readable specs. Keep every condition of the problem and the stated answer.\n" + _FORMAT
)

_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)```", re.S)


class SpecReplyError(ValueError):
    """A reply that is not a valid problem spec; the message is what the model is told."""


@dataclass(frozen=True)
class SpecOutcome:
    spec: dict[str, Any] | None  # the problem spec (file form), None when every attempt failed
    produced_by: str | None  # 'rules' | 'llm:<model>' | None on failure
    attempts: int  # LLM calls made (0 when the rules sufficed)
    error: str | None  # why it failed (the last attempt's reason)
    attempt_errors: tuple[str, ...]  # the reason each rejected attempt got
    raw_outputs: tuple[str | None, ...]  # every reply, in order
    call_keys: tuple[str, ...]  # cache keys of the calls, in order


def conversion_messages(problem_text: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": CONVERT_SYSTEM},
        {"role": "user", "content": f"Convert this problem:\n\n{problem_text}"},
    ]


def formalization_messages(statement: str, answer: Any) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": FORMALIZE_SYSTEM},
        {"role": "user", "content": f"Problem:\n{statement}\n\nStated answer: {answer}"},
    ]


def extract_json_object(reply: str) -> Any:
    """The JSON object of a reply: inside a code fence if there is one, else from the first '{'."""
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    start = text.find("{")
    if start < 0:
        raise SpecReplyError("the reply holds no JSON object; reply with one JSON object only")
    try:
        value, _end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise SpecReplyError(f"the JSON object does not parse: {exc.msg} at character {exc.pos - start}") from None
    return value


def spec_from_reply(problem_id: str, reply: str, *, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Parse and check one reply; raises SpecReplyError naming the field and the fix."""
    value = extract_json_object(reply)
    if not isinstance(value, dict):
        raise SpecReplyError(f"expected a JSON object with keys {', '.join(SPEC_KEYS)}, got {type(value).__name__}")
    unknown = sorted(set(value) - set(SPEC_KEYS))
    if unknown:
        raise SpecReplyError(f"unknown key(s) {', '.join(unknown)}; use only {', '.join(SPEC_KEYS)}")
    missing = [key for key in SPEC_KEYS if key not in value]
    if missing:
        raise SpecReplyError(f"missing key(s) {', '.join(missing)}")
    data = {"id": problem_id, **value, **(overrides or {})}
    try:
        return problem_to_dict(problem_from_dict(data))
    except ProblemError as exc:
        raise SpecReplyError(f"{exc.field}: {exc.reason}") from None


def feedback_message(reason: str) -> dict[str, str]:
    return {
        "role": "user",
        "content": f"That reply was rejected: {reason}. Reply again with only the corrected JSON object.",
    }


def request_spec(
    problem_id: str,
    messages: list[dict[str, str]],
    caller: LLMCaller,
    *,
    max_attempts: int,
    overrides: dict[str, Any] | None = None,
) -> SpecOutcome:
    """Ask for a spec; feed each rejection back, up to `max_attempts` calls in all."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1 (config key convert.max_attempts)")
    conversation = list(messages)
    errors: list[str] = []
    raws: list[str | None] = []
    keys: list[str] = []
    for _attempt in range(max_attempts):
        result = caller.call(conversation, seed=CONVERT_SEED)
        raws.append(result.content)
        keys.append(result.key)
        if result.error is not None:
            # The server refused the request itself (e.g. context overflow): a longer retry won't pass.
            errors.append(result.unusable_reason())
            break
        try:
            if result.unusable_reason() is not None:
                raise SpecReplyError(result.unusable_reason())
            spec = spec_from_reply(problem_id, result.content, overrides=overrides)
        except SpecReplyError as exc:
            errors.append(str(exc))
            conversation += [{"role": "assistant", "content": result.content or ""}, feedback_message(str(exc))]
            continue
        return SpecOutcome(spec, caller.label, len(keys), None, tuple(errors), tuple(raws), tuple(keys))
    error = f"{caller.label}: no valid spec after {len(keys)} attempt(s): {errors[-1]}"
    log.warning("%s: %s", problem_id, error)
    return SpecOutcome(None, None, len(keys), error, tuple(errors), tuple(raws), tuple(keys))


def convert_with_llm(problem_id: str, problem_text: str, caller: LLMCaller, *, max_attempts: int) -> SpecOutcome:
    """Convert an (English) inequality problem by the paper's rule."""
    return request_spec(problem_id, conversion_messages(problem_text), caller, max_attempts=max_attempts)


def dataset_answer_text(answer: Any) -> str | None:
    """The dataset's answer in the expression syntax, or None when the rules cannot read it."""
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        return None
    if not isinstance(answer, str):
        return repr(answer)
    try:
        text = latex_to_text(answer.strip().strip("$"))
        parse_expression(text, ())  # a number: no names left (the rules read 'no idea' as n*o*i*d*E*a)
    except (FormalizeError, ExpressionError):
        return None
    return text


def formalize_with_fallback(
    problem_id: str, statement: str, answer: Any, caller: LLMCaller | None, *, max_attempts: int = 3
) -> SpecOutcome:
    """Rule-based formalize_statement first; on FormalizeError the LLM writes the spec. The
    statement is kept as given, and so is the answer whenever the rules can read it (the dataset's
    gold is not the model's to change)."""
    try:
        spec = formalize_statement(problem_id, statement, answer)
    except FormalizeError as exc:
        rule_error = f"rules: {exc}"
    else:
        return SpecOutcome(spec, "rules", 0, None, (), (), ())
    if caller is None:
        return SpecOutcome(None, None, 0, f"{rule_error}; no LLM configured for the fallback", (rule_error,), (), ())
    overrides = {"statement": statement}
    gold = dataset_answer_text(answer)
    if gold is not None:
        overrides["answer"] = gold
    outcome = request_spec(
        problem_id, formalization_messages(statement, answer), caller, max_attempts=max_attempts, overrides=overrides
    )
    if outcome.spec is None:
        return SpecOutcome(
            None,
            None,
            outcome.attempts,
            f"{rule_error}; {outcome.error}",
            (rule_error, *outcome.attempt_errors),
            outcome.raw_outputs,
            outcome.call_keys,
        )
    return outcome


def conversion_columns(outcome: SpecOutcome) -> dict[str, Any]:
    """The columns of a conversions row for an LLM outcome (spec fields, or the failure record)."""
    spec = outcome.spec or {}
    return {
        "sense": spec.get("sense"),
        "variables_json": json.dumps(spec["variables"]) if spec else None,
        "constraints_json": json.dumps(spec.get("constraints", [])) if spec else None,
        "objective": spec.get("objective"),
        "answer": spec.get("answer"),
        "statement": spec.get("statement"),
        "converted_by": outcome.produced_by,
        "error": outcome.error,
        "error_field": None if outcome.spec else "llm-conversion",
        "llm_attempts": outcome.attempts,
        "llm_raw_outputs_json": json.dumps(list(outcome.raw_outputs), ensure_ascii=False),
        "llm_call_keys": list(outcome.call_keys),
    }
