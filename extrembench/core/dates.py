"""Partial calendar dates (YYYY, YYYY-MM or YYYY-MM-DD): the problem files' `date` and the model
registry's `release_date`/`knowledge_cutoff` read through one validator, and the span of days each
form stands for (accuracy by date, issue 40)."""

from __future__ import annotations

import calendar
import datetime
import re
from typing import Any

from pydantic_core import PydanticCustomError

from extrembench.core.untrusted_yaml import shown


def calendar_date(value: Any) -> Any:
    """A pydantic before-validator: YYYY, YYYY-MM or YYYY-MM-DD as text; YAML reads an unquoted
    full date as a date and an unquoted year as an int, both taken as the text they were."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", value):
        raise PydanticCustomError("date", "{value} is not a date YYYY, YYYY-MM or YYYY-MM-DD", {"value": shown(value)})
    try:
        date_span(value)
    except ValueError:
        raise PydanticCustomError("date", "{value} is not a calendar date", {"value": shown(value)}) from None
    return value


def date_span(text: str) -> tuple[datetime.date, datetime.date]:
    """(first day, last day) a partial date stands for: '2025' → Jan 1 to Dec 31, '2025-02' →
    Feb 1 to Feb 28, '2025-02-03' → that day. ValueError when it is no calendar date."""
    parts = [int(p) for p in text.split("-")]
    if len(parts) == 3:
        day = datetime.date(*parts)
        return day, day
    year, month = parts[0], parts[1] if len(parts) == 2 else None
    if month is None:
        return datetime.date(year, 1, 1), datetime.date(year, 12, 31)
    return datetime.date(year, month, 1), datetime.date(year, month, calendar.monthrange(year, month)[1])
