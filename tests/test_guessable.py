"""data/guessable/ (issue 27): the problems one of the two cheap guesses answers, moved out of the
headline so that their share there stays at most 30 %. Each file here must really be answered by a
guess (else it belongs back in data/problems/), and the folder is a benchmark of its own beside the
headline, never in it."""

from pathlib import Path

import pytest

from extrembench.generation.boundary import boundary_guess
from extrembench.problems.problem import load_problem
from extrembench.report.problem_set import guess_matches

REPO = Path(__file__).resolve().parents[1]
GUESSABLE = sorted((REPO / "data/guessable").glob("*.yaml"))
PROBLEMS = sorted((REPO / "data/problems").glob("*.yaml"))


@pytest.mark.slow  # ~10 s: both guesses for every file
def test_every_file_here_is_answered_by_a_cheap_guess():
    unanswered = [
        path.name
        for path in GUESSABLE
        if not (guess_matches(problem := load_problem(path)) or guess_matches(problem, boundary_guess))
    ]
    assert GUESSABLE and not unanswered, f"no cheap guess answers these; move them back to data/problems/: {unanswered}"


@pytest.mark.slow  # ~20 s: both guesses for every headline file
def test_the_headline_share_answered_by_a_guess_is_at_most_30_percent():
    guessed = [
        path.name
        for path in PROBLEMS
        if guess_matches(problem := load_problem(path)) or guess_matches(problem, boundary_guess)
    ]
    assert len(guessed) <= 0.30 * len(PROBLEMS), f"{len(guessed)} of {len(PROBLEMS)} headline problems: {guessed}"


def test_guessable_is_a_benchmark_of_its_own_beside_the_headline():
    from extrembench.core.config import layered_config

    config = layered_config(REPO / "config.yaml", [REPO / "experiments" / "guessable.yaml"])
    assert config.benchmarks["extrem-guessable"].problems == "data/guessable"
    assert config.benchmarks["extrem"].problems == "data/problems"
    assert {"extrem", "extrem-guessable"} <= set(config.evaluate.benchmarks)
