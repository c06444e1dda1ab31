"""The typed shape of one model response: what the client accepts from a 200 and what the cache
stores and serves back.

A server's 200 is untrusted input. Before anything is cached, the fields we keep are checked here
(strictly: no coercion of "10" to 10 or 1 to "1"), so a reply whose content is a dict, whose
finish_reason is a number, whose token count is "ten", -5, 1e308 or NaN, or whose text holds a
lone surrogate (valid JSON, not encodable as UTF-8: it would crash the cache and Parquet writes)
is a failed request, never an answer. The cache runs the same check on read, so an entry written
before this check existed reads as absent and is requested again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

# Token counts land in int64 Parquet columns and in cost sums; no context holds a billion tokens,
# so anything above is a server bug, not a count.
MAX_TOKEN_COUNT = 10**9
MAX_FINISH_REASON = 64  # characters: "stop", "length", "tool_calls", ... never a paragraph


class ChatReply(BaseModel):
    """The fields of a response we keep. Every field may be absent (None): a solver backend or an
    old test entry leaves some out; what is present must have exactly this type."""

    # extra="allow": entries may carry bookkeeping (http_status, latency) we do not type here
    model_config = ConfigDict(strict=True, extra="allow")

    content: str | None = None
    reasoning_content: str | None = None
    finish_reason: str | None = Field(default=None, min_length=1, max_length=MAX_FINISH_REASON)
    prompt_tokens: int | None = Field(default=None, ge=0, le=MAX_TOKEN_COUNT)
    completion_tokens: int | None = Field(default=None, ge=0, le=MAX_TOKEN_COUNT)
    error: str | None = None
    latency_s: float | None = Field(default=None, ge=0)

    @field_validator("content", "reasoning_content", "finish_reason", "error")
    @classmethod
    def _encodable(cls, text: str | None) -> str | None:
        if text is not None:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError(f"not encodable as UTF-8 (a lone surrogate at character {exc.start})") from None
        return text

    @field_validator("latency_s")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("not a finite number")
        return value


def reply_problem(response: Any) -> str | None:
    """Why `response` is not a well-typed response (one short line per bad field), or None."""
    if not isinstance(response, Mapping):
        return f"a response must be an object, got {type(response).__name__}"
    try:
        ChatReply.model_validate(dict(response), strict=True)
    except ValidationError as exc:
        # the value itself is left out: it is untrusted and may be huge; the field and the rule say enough
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_input=False))
    return None
