"""One problem per family (issue 27): data/problems/ holds one file per source problem, and the other
instances of a family (other n or constants) live in data/instances/, out of every run over
data/problems/ and so out of the headline accuracy. data/guessable/ holds the problems a cheap guess
answers, and data/unnumbered/ the olympiad problems whose problem number is not verified, both moved
out of the headline; a family is in one of these folders, never two."""

from collections import Counter
from pathlib import Path

import pytest

from extrembench.problems.problem import load_problem
from extrembench.report.problem_set.competitions import family_prefix

REPO = Path(__file__).resolve().parents[1]
PROBLEMS = sorted((REPO / "data/problems").glob("*.yaml"))
INSTANCES = sorted((REPO / "data/instances").glob("*.yaml"))
GUESSABLE = sorted((REPO / "data/guessable").glob("*.yaml"))
UNNUMBERED = sorted((REPO / "data/unnumbered").glob("*.yaml"))


@pytest.fixture(scope="module")
def problems():
    return [load_problem(path) for path in PROBLEMS]


@pytest.fixture(scope="module")
def instances():
    return [load_problem(path) for path in INSTANCES]


@pytest.fixture(scope="module")
def side_sets():
    """Every file kept beside the headline: the guessable and the unnumbered ones."""
    return [load_problem(path) for path in GUESSABLE + UNNUMBERED]


def test_every_problem_declares_a_family(problems, side_sets):
    missing = [p.id for p in problems + side_sets if p.family is None]
    assert not missing, f"add `family: <competition>-<year>-p<n>` after the id line of: {missing}"


def test_no_two_problems_share_a_family(problems, side_sets):
    """Across the headline and the folders beside it: moving a problem out of the headline must not
    leave (or later admit) a second file of its family in either."""
    both = problems + side_sets
    counts = Counter(p.family for p in both)
    shared = {family: sorted(p.id for p in both if p.family == family) for family, n in counts.items() if n > 1}
    assert not shared, (
        f"families with more than one file in data/problems/, data/guessable/, data/unnumbered/ (keep the most general "
        f"instance, move the others to data/instances/): {shared}"
    )


def test_every_instance_belongs_to_one_representative(problems, side_sets, instances):
    representatives = {p.family: p.id for p in problems + side_sets}
    orphans = [i.id for i in instances if i.family not in representatives]
    assert instances and not orphans, (
        f"instances whose family has no file in data/problems/, data/guessable/ or data/unnumbered/: {orphans}"
    )
    ids = [p.id for p in problems + side_sets + instances]
    assert len(ids) == len(set(ids)), (
        "an id is in more than one of data/problems, data/guessable, data/unnumbered, data/instances"
    )


def test_family_names_the_cited_competition_and_year(problems, side_sets, instances):
    """A family starts with the competition and year its reference cites (`usamo-1977-...`), so a
    file cannot be put in another source's family by mistake. The one exception is computed, not
    listed: an instance that is the same mathematics as its representative from another source
    (issue 36: Balkan 1985 Problem 2 is USAMO 1978 Problem 1 through x = sin w) when the duplicate
    detector flags the pair with both families removed."""
    representatives = {p.family: p for p in problems + side_sets}
    wrong = []
    for p in problems + side_sets + instances:
        prefix = family_prefix((p.source or {}).get("reference"))
        if prefix is None or p.family == prefix or p.family.startswith(prefix + "-"):
            continue
        twin = representatives.get(p.family) if p in instances else None
        if twin is not None and _same_mathematics(p, twin):
            continue
        wrong.append(f"{p.id}: family {p.family!r} does not start with {prefix!r}")
    assert not wrong, "\n".join(wrong)


def _same_mathematics(first, second) -> bool:
    import dataclasses

    from extrembench.problems.duplicates import find_duplicates

    return bool(find_duplicates([dataclasses.replace(first, family=None), dataclasses.replace(second, family=None)]))


def test_a_family_from_another_source_needs_the_detector():
    """The exception above is earned: a file of one source put in an unrelated family of another
    is still wrong (Balkan 1985 Problem 2 is not IMO 2003 Problem 5)."""
    balkan = load_problem(REPO / "data/instances/ineq-0297.yaml")
    assert _same_mathematics(balkan, load_problem(REPO / "data/problems/ineq-0189.yaml"))
    assert not _same_mathematics(balkan, load_problem(REPO / "data/problems/ineq-0181.yaml"))


def test_instances_are_a_benchmark_of_their_own_beside_the_headline():
    """experiments/instances.yaml asks data/instances/ as `extrem-instances`: a row of its own on the
    leaderboard, while `extrem` (the headline) reads data/problems/ only."""
    from extrembench.core.config import layered_config

    config = layered_config(REPO / "config.yaml", [REPO / "experiments" / "instances.yaml"])
    assert config.benchmarks["extrem-instances"].problems == "data/instances"
    assert config.benchmarks["extrem"].problems == "data/problems"
    assert {"extrem", "extrem-instances"} <= set(config.evaluate.benchmarks)
