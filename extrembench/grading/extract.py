"""Final-answer extraction from a response's final content (never from its reasoning).

Order of evidence: thinking tags decide whether there is final content at all; then the last
"### The final answer is:" section (AMO-Bench's format); then the last box that is not an
equality-case witness; then an "the minimum value is X" / "the answer is X" sentence.
Every scan here is linear in the response length (responses may be 100,000 characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extrembench.grading.answer_value import drop_qualifier, is_witness, stated_value
from extrembench.grading.normalize import normalize_unicode, strip_delimiters, strip_presentation

_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_FINAL_MARKER = re.compile(r"#+\s*(?:the\s+)?final\s+answer\s+is\s*:?", re.IGNORECASE)
_BOX_COMMAND = re.compile(r"\\(?:boxed|fbox)\b\s*")
# Only the last few boxes are examined, so a response full of unterminated boxes cannot make
# the scan quadratic.
_MAX_BOXES_EXAMINED = 32
_TAIL_FOR_DESCRIPTION = 2000
# "The minimum value is X" counts only as an ending, not anywhere in a long derivation.
_TAIL_FOR_PHRASE = 3000


@dataclass(frozen=True)
class Extraction:
    answer: str | None  # None: the response states no final answer
    reason: str


# Chat-template tokens leaked into the text: whatever follows one is not the model's answer.
_TEMPLATE_TOKEN = re.compile(r"<\|(?:im_start|im_end|endoftext|eot_id|end)\|>")


def final_content(response: str) -> tuple[str | None, str]:
    """The text after thinking, or None when the response was cut off inside thinking.

    A chat template may inject the opening tag into the prompt, so only a closing tag appears
    in the output; what follows the last closing tag is the final content either way.
    """
    closes = list(_THINK_CLOSE.finditer(response))
    if closes:
        return response[closes[-1].end() :], "think-closed"
    if _THINK_OPEN.search(response):
        return None, "think-truncated"
    return response, "no-think"


def closes_thinking(response: str) -> bool:
    """Whether `response` holds a closing think tag."""
    return _THINK_CLOSE.search(response) is not None


def _braced_group(text: str, open_index: int) -> tuple[str, int] | None:
    """Content of the brace group opening at text[open_index] == '{', and the index after it."""
    depth = 0
    i = open_index
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2  # an escaped character (\{, \}) never opens or closes a group
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[open_index + 1 : i], i + 1
        i += 1
    return None


def boxed_contents(text: str) -> list[str]:
    """Contents of the last complete \\boxed{...} / \\fbox{...} groups, in text order."""
    starts = [m.end() for m in _BOX_COMMAND.finditer(text)][-_MAX_BOXES_EXAMINED:]
    contents = []
    for start in starts:
        if start < len(text) and text[start] == "{":
            group = _braced_group(text, start)
            if group is not None:
                contents.append(group[0])
        elif start < len(text):
            # "\boxed 5": a single token
            token = re.match(r"[^\s$]+", text[start:])
            if token:
                contents.append(token.group(0))
    return contents


def _last_value_box(text: str) -> tuple[str | None, str]:
    """The last box that states a value; boxes holding only an equality case are skipped."""
    boxes = boxed_contents(text)
    for content in reversed(boxes):
        value = stated_value(drop_qualifier(strip_delimiters(content)))
        if value and not is_witness(content):
            return value, "boxed"
    if boxes:
        return None, "witness-only-box"
    return None, "no-box"


_MATH_SPAN = r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]|\*\*(.+?)\*\*"
_PLAIN_SPAN = r"([^\s$*][^\n]*?)(?=\.\s|\.?$|\n|,\s+(?:which|attained|achieved|when|at)\b)"
_SEPARATOR = r"(?:\s*(?:is|equals|=|:|为|是))"
_FILLER = r"(?:[^.\n$]|\$[^$\n]{0,40}\$){0,80}?"
_VALUE_WORDS = (
    r"(?:minimum|maximum|minimal|maximal|least|greatest|smallest|largest|min|max)"
    r"(?:\s+possible)?\s+value|最小值|最大值"
)
_PHRASE = re.compile(
    r"(?:(?:" + _VALUE_WORDS + ")" + _FILLER + _SEPARATOR + "+"
    r"|(?:final\s+)?answer" + _FILLER + _SEPARATOR + "*|答案" + _SEPARATOR + "*)"
    r"\s*(?:" + _MATH_SPAN + "|" + _PLAIN_SPAN + ")",
    re.IGNORECASE | re.DOTALL,
)
_FINAL_ANSWER_WORDS = re.compile(r"final\s+answer", re.IGNORECASE)
_LAST_IS = re.compile(r".*\b(?:is|equals|=)\s+(.+)$", re.IGNORECASE | re.DOTALL)
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z{])[A-Za-z]{3,}")


def _phrase_answer(text: str) -> str | None:
    """X from the last 'the minimum value is X' / 'the answer is X' / 'Answer: X' sentence."""
    last = None
    for match in _PHRASE.finditer(text[-_TAIL_FOR_PHRASE:]):
        last = match
    if last is None:
        return None
    span = strip_delimiters(next(g for g in last.groups() if g is not None).lstrip(":*： "))
    # "Final Answer: The largest $n$ is 34" -> "34"
    inner = _LAST_IS.match(span)
    if _PROSE_WORD.search(re.sub(r"\$[^$]*\$", "", span)) and inner:
        span = strip_delimiters(inner.group(1))
    span = drop_qualifier(span)
    if _PROSE_WORD.search(strip_presentation(span)):
        return None
    value = stated_value(span)
    return value or None


_MAX_BARE_LENGTH = 200


def _bare_answer(content: str) -> str | None:
    """Content that is nothing but a short formula ('$9$', '\\frac{1}{2}') is the answer."""
    text = strip_delimiters(content.strip())
    if not text or len(text) > _MAX_BARE_LENGTH or "\n" in text or _PROSE_WORD.search(strip_presentation(text)):
        return None
    return stated_value(text)


def extract_answer(response: str, answer_type: str = "number") -> Extraction:
    """The final answer stated in a response's final content, with the rule that found it."""
    content, think_reason = final_content(normalize_unicode(response))
    if content is None:
        return Extraction(None, think_reason)
    leak = _TEMPLATE_TOKEN.search(content)
    if leak:
        content = content[: leak.start()]
    if not content.strip():
        return Extraction(None, "empty-after-think" if think_reason == "think-closed" else "empty")

    markers = list(_FINAL_MARKER.finditer(content))
    section = content[markers[-1].end() :] if markers else content
    source = "final-answer-marker" if markers else "content"

    if answer_type == "description":
        if markers:
            return Extraction(section.strip(), source)
        boxes = boxed_contents(content)
        if boxes:
            return Extraction(boxes[-1].strip(), "boxed")
        return Extraction(content[-_TAIL_FOR_DESCRIPTION:].strip(), "content-tail")

    # "Final Answer: X" written after the last box overrides that (intermediate) box.
    final_phrases = list(_FINAL_ANSWER_WORDS.finditer(section[-_TAIL_FOR_PHRASE:]))
    if final_phrases:
        offset = max(0, len(section) - _TAIL_FOR_PHRASE) + final_phrases[-1].start()
        if offset > max(section.rfind("\\boxed"), section.rfind("\\fbox")):
            late = _phrase_answer(section[offset:])
            if late is not None and not is_witness(late):
                return Extraction(late, "final-answer-phrase")
    value, box_reason = _last_value_box(section)
    if value is not None:
        return Extraction(value, f"{source}-boxed" if markers else "boxed")
    phrase = _phrase_answer(section)
    if phrase is not None and not is_witness(phrase):
        return Extraction(phrase, f"{source}-phrase" if markers else "phrase")
    if markers and section.strip():
        return Extraction(stated_value(strip_delimiters(section.strip())), source)
    bare = _bare_answer(content)
    if bare is not None and box_reason == "no-box":
        return Extraction(bare, "bare")
    return Extraction(None, box_reason if box_reason == "witness-only-box" else "no-answer-found")


def reasoning_answer(content: str | None, reasoning: str | None) -> str | None:
    """The last boxed value written inside the reasoning (the reasoning field, or the part of the
    content inside <think>...</think> or cut off inside it): what graders that take the last box
    anywhere in the response would read when the final section states nothing (`grading.scope`)."""
    parts = [reasoning or ""]
    if content is not None:
        text = normalize_unicode(content)
        final, _ = final_content(text)
        parts.append(text if final is None else text[: len(text) - len(final)])
    for box in reversed(boxed_contents(normalize_unicode("\n".join(parts)))):
        value = stated_value(drop_qualifier(strip_delimiters(box)))
        if value and not is_witness(box):
            return value
    return None
