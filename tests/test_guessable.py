"""data/guessable/ (issues 27 and 36): the problems a cheap guess answers (symmetric-guess,
boundary-guess, constant-guess), moved out of the headline so that their share there stays at most
30 %. Each file here must really be answered by a guess (else it belongs back in data/problems/),
and the folder is a benchmark of its own beside the headline, never in it."""

from pathlib import Path

import pytest

from extrembench.generation.cheap import answering_guess
from extrembench.generation.constant import most_frequent_answer
from extrembench.problems.problem import load_problem

REPO = Path(__file__).resolve().parents[1]
GUESSABLE = sorted((REPO / "data/guessable").glob("*.yaml"))
PROBLEMS = sorted((REPO / "data/problems").glob("*.yaml"))


def _headline_constant() -> str | None:
    """The constant guess's answer as a run over the headline makes it (its most frequent answer):
    a file moved here for constant-guess was moved for that one."""
    return most_frequent_answer(load_problem(path).answer for path in PROBLEMS)


@pytest.mark.slow  # ~15 s: three guesses for every file
def test_every_file_here_is_answered_by_a_cheap_guess():
    constant = _headline_constant()
    unanswered = [path.name for path in GUESSABLE if not answering_guess(load_problem(path), constant)]
    assert GUESSABLE and not unanswered, f"no cheap guess answers these; move them back to data/problems/: {unanswered}"


# Issue 36: the cap holds for the union of all three guesses (54 of 180, 30.0 %, data/guessable/
# README.md): eleven new, distinct, cited problems no guess answers each replaced one guessed problem.
# (The union bounds any one guess's share, the issue 27 cap on symmetric- and boundary-guess included.)
@pytest.mark.slow  # ~25 s: three guesses for every headline file
def test_the_headline_share_answered_by_any_cheap_guess_is_at_most_30_percent():
    constant = _headline_constant()
    guessed = [path.name for path in PROBLEMS if answering_guess(load_problem(path), constant)]
    assert len(guessed) <= 0.30 * len(PROBLEMS), f"{len(guessed)} of {len(PROBLEMS)} headline problems: {guessed}"


def test_guessable_is_a_benchmark_of_its_own_beside_the_headline():
    from extrembench.core.config import layered_config

    config = layered_config(REPO / "config.yaml", [REPO / "experiments" / "guessable.yaml"])
    assert config.benchmarks["extrem-guessable"].problems == "data/guessable"
    assert config.benchmarks["extrem"].problems == "data/problems"
    assert {"extrem", "extrem-guessable"} <= set(config.evaluate.benchmarks)
