"""data/unnumbered/ (issue 27): olympiad problems whose problem number no source we reached states,
kept out of the headline, where every olympiad reference carries its number. A file here must cite a
competition and lack the number (with the number it belongs back in data/problems/), must still be a
certified problem, and the folder is a benchmark of its own beside the headline, never in it."""

from pathlib import Path

import pytest

from extrembench.problems.problem import load_problem
from extrembench.report.problem_set.competitions import COMPETITION_TYPES, cite
from extrembench.verify.validate import check_problem

REPO = Path(__file__).resolve().parents[1]
UNNUMBERED = sorted((REPO / "data/unnumbered").glob("*.yaml"))


def test_every_file_here_cites_a_competition_without_its_number():
    citations = {path.name: cite(load_problem(path).source["reference"]) for path in UNNUMBERED}
    assert citations
    not_a_competition = [name for name, c in citations.items() if c.kind not in COMPETITION_TYPES]
    complete = [name for name, c in citations.items() if c.complete]
    assert not not_a_competition, f"these cite no competition, so the number rule does not apply: {not_a_competition}"
    assert not complete, f"these carry a year and problem number now; git mv them to data/problems/: {complete}"


@pytest.mark.slow  # 0.2-4 s each: a check with certificates
@pytest.mark.parametrize("path", UNNUMBERED, ids=lambda p: p.stem)
def test_every_file_here_is_still_a_confirmed_problem(path):
    result = check_problem(path)
    assert result.status == "confirmed", f"{path.name}: {result.status}: {result.reason}"


def test_unnumbered_is_a_benchmark_of_its_own_beside_the_headline():
    from extrembench.core.config import layered_config

    config = layered_config(REPO / "config.yaml", [REPO / "experiments" / "unnumbered.yaml"])
    assert config.benchmarks["extrem-unnumbered"].problems == "data/unnumbered"
    assert config.benchmarks["extrem"].problems == "data/problems"
    assert {"extrem", "extrem-unnumbered"} <= set(config.evaluate.benchmarks)
