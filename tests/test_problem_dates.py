"""Issue 40: every shipped file dates its source problem where the citation says when it was set.
The year is the family's (`imo-2001-p2` -> "2001"), else the one year the reference names; a
classical result the citation gives no year for stays undated rather than getting a guessed one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from extrembench.problems.problem import load_problem

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("problems", "guessable", "unnumbered", "instances", "fresh")
FILES = sorted(path for folder in FOLDERS for path in (REPO / "data" / folder).glob("*.yaml"))
YEAR = re.compile(r"\b((?:19|20)\d\d)\b")


def cited_year(problem) -> str | None:
    in_family = re.findall(r"-((?:19|20)\d\d)(?:-|$)", problem.family or "")
    if in_family:
        return in_family[0]
    named = set(YEAR.findall((problem.source or {}).get("reference") or ""))
    return named.pop() if len(named) == 1 else None


@pytest.fixture(scope="module")
def problems():
    return [load_problem(path) for path in FILES]


def test_every_file_cited_with_a_year_is_dated_in_that_year(problems):
    wrong = {p.id: (p.date, cited_year(p)) for p in problems if cited_year(p) and (p.date or "")[:4] != cited_year(p)}
    assert not wrong, f"date (file, cited year) disagree; set `date:` to the contest date: {wrong}"


def test_a_file_cited_with_no_year_has_no_date(problems):
    guessed = [p.id for p in problems if p.date and cited_year(p) is None]
    assert not guessed, f"dated, but neither the family nor the reference names a year: {guessed}"
