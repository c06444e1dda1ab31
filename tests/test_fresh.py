"""data/fresh/ (issue 40): problems from competitions held in 2025 or later, newer than the
training data of most models a run compares, so a model cannot have read their published answers
before its cut-off. Each file dates its source problem, cites competition, year and problem number
(typed by the competitions table, not by keywords), is written in our words, belongs to a family no
other folder holds, and is answered by no cheap guess; the folder is a benchmark of its own,
`extrem-fresh`, beside the headline and never in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from extrembench.generation.cheap import answering_guess
from extrembench.generation.constant import most_frequent_answer
from extrembench.problems.duplicates import find_duplicates
from extrembench.problems.problem import load_problem
from extrembench.report.problem_set.competitions import COMPETITION_TYPES, cite
from extrembench.verify.validate import check_problem

REPO = Path(__file__).resolve().parents[1]
FRESH = sorted((REPO / "data/fresh").glob("*.yaml"))
OTHER_FOLDERS = ("problems", "guessable", "unnumbered", "instances")


@pytest.fixture(scope="module")
def fresh():
    return [load_problem(path) for path in FRESH]


def test_every_file_is_dated_2025_or_later(fresh):
    undated = [p.id for p in fresh if p.date is None or int(p.date[:4]) < 2025]
    assert fresh and not undated, f"the fresh slice takes contests held in 2025 or later, dated: {undated}"


def test_every_file_cites_a_competition_year_and_number_matching_its_date_and_family(fresh):
    wrong = {}
    for p in fresh:
        citation = cite(p.source["reference"])
        if not (citation.kind in COMPETITION_TYPES and citation.complete and citation.year == p.date[:4]):
            wrong[p.id] = citation
        elif p.family != f"{citation.competition}-{citation.year}-p{citation.number}".lower():
            wrong[p.id] = (p.family, citation)
    assert not wrong, f"cite the competition (a row of competitions.py), year and problem number: {wrong}"


def test_every_statement_is_written_here(fresh):
    assert all(p.source["text_origin"] == "written-here" for p in fresh)


def test_no_family_or_id_is_in_another_folder(fresh):
    others = [load_problem(path) for folder in OTHER_FOLDERS for path in (REPO / "data" / folder).glob("*.yaml")]
    families = {p.family for p in others}
    ids = {p.id for p in others}
    clash = [p.id for p in fresh if p.family in families or p.id in ids]
    assert not clash and len({p.family for p in fresh}) == len(fresh), f"one file per source problem: {clash}"


@pytest.mark.slow  # ~10 s: three guesses per file
def test_no_cheap_guess_answers_a_fresh_problem(fresh):
    headline = most_frequent_answer(load_problem(path).answer for path in (REPO / "data/problems").glob("*.yaml"))
    # a run over extrem-fresh has no constant (its answers are all distinct): the headline's is tried
    assert most_frequent_answer(p.answer for p in fresh) is None
    answered = [p.id for p in fresh if answering_guess(p, headline)]
    assert not answered, f"a cheap guess answers these: {answered}"


@pytest.mark.slow  # ~20 s: the detector over the headline and this folder
def test_no_fresh_problem_is_the_same_mathematics_as_another(fresh):
    headline = [load_problem(path) for path in sorted((REPO / "data/problems").glob("*.yaml"))]
    found = [
        d for d in find_duplicates(headline + fresh) if d.first.startswith("fresh") or d.second.startswith("fresh")
    ]
    assert not found, f"near-duplicate pairs: {found}"


@pytest.mark.slow  # the checks: a few seconds to two minutes each
@pytest.mark.parametrize("path", FRESH, ids=lambda p: p.stem)
def test_every_fresh_problem_is_confirmed(path):
    result = check_problem(load_problem(path))
    assert result.status == "confirmed", result.reason


# Issue 40 asks for at least 30.
def test_the_fresh_slice_holds_at_least_30_problems():
    assert len(FRESH) >= 30, f"issue 40 asks for at least 30 fresh problems, the folder holds {len(FRESH)}"


def test_fresh_is_a_benchmark_of_its_own_beside_the_headline():
    from extrembench.core.config import load_config_file

    config = load_config_file(REPO / "config.yaml")
    assert config.benchmarks["extrem-fresh"].problems == "data/fresh"
    assert config.benchmarks["extrem"].problems == "data/problems"
