"""Meaningless changes give the same verdict, over the whole shipped set (issue 35): the variables
reversed or shuffled, the constraints reversed, the variables renamed into another alphabet, the
spec as the pipeline reads it back from a Parquet row (sorted variables, no statement).

Order changes and the Parquet row: every check runs on canonical_problem, and the certificate is
built from it alone (its id, sense, variables, constraints, objective and answer), so a canonical
problem equal field for field in order gives the same bytes; that is asserted for every file, and
the bytes themselves for the twelve files whose verdict or certificate kind once changed with the
order. Renaming changes the names the proofs print, so renamed files are checked again, and status
and certificate kind compared (their bytes differ by the names) with the verdicts the pipeline's
own path recorded for the files as shipped (YAML against Parquet row too): the files whose verdict
once changed with their names on every run, the whole set when EXTREMBENCH_RENAMED_WHOLE_SET=1."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from support.metamorphic import ORDER_ONLY, ORDER_SENSITIVE, TRANSFORMS, verdicts
from support.problems import shipped

from extrembench.problems.problem import canonical_problem, load_problem
from extrembench.verify.checker.document import embed_spec

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "benchmarks"))  # benchmarks/figures.py: the recorded whole-set verdicts
import figures  # noqa: E402

SHIPPED = sorted(str(p) for p in (REPO / "data" / "problems").glob("*.yaml"))
SENSITIVE = [str(shipped(problem_id)) for problem_id in ORDER_SENSITIVE]  # ineq-0161 is in data/guessable


def _checked_form(problem) -> tuple:
    canonical = canonical_problem(problem)
    spec = embed_spec(canonical)
    return (
        canonical.id,
        list(spec["variables"].items()),
        spec["constraints"],
        spec["objective"],
        spec["answer"],
        spec["sense"],
    )


@pytest.fixture(scope="module")
def shipped_verdicts() -> dict[str, list]:
    """Every shipped file's (status, certificate kind) through the pipeline's stage functions, as
    recorded by `python benchmarks/figures.py measure --whole-set` (tests/test_readme_figures.py
    holds that the record was made on this checkout's code and files, and
    tests/test_shipped_certificates.py measures it again): the as-shipped run is not repeated here."""
    recorded = figures.load_record()["whole-set"]["verdicts"]
    assert sorted(recorded) == sorted(Path(p).stem for p in SHIPPED)
    return {pid: list(verdict) for pid, verdict in recorded.items()}  # verdicts() gives lists too


@pytest.mark.slow  # ~10 s: every shipped file canonicalised twice
@pytest.mark.parametrize("transform", [*sorted(ORDER_ONLY), "parquet-row"])
def test_an_order_change_checks_the_same_problem_for_every_shipped_file(transform):
    changed = [
        Path(path).stem
        for path in SHIPPED
        if _checked_form(TRANSFORMS[transform](problem := load_problem(path))) != _checked_form(problem)
    ]
    assert changed == []


@pytest.fixture(scope="module")
def sensitive_shipped() -> dict[str, tuple]:
    """The order-sensitive files checked as shipped: once for the four changes compared with them."""
    return verdicts(SENSITIVE)


@pytest.mark.slow  # ~1 min: the twelve order-sensitive files checked changed (and once as shipped)
@pytest.mark.parametrize("transform", [*sorted(ORDER_ONLY), "parquet-row"])
def test_an_order_change_gives_the_same_certificate_bytes(transform, sensitive_shipped):
    shipped = sensitive_shipped
    changed = verdicts(SENSITIVE, transform)
    differ = {pid: (shipped[pid][:2], changed[pid][:2]) for pid in shipped if changed[pid] != shipped[pid]}
    assert differ == {}


# The whole shipped set checked again, renamed: ~15 min of both cores on the CI machine, which with
# the suite's other whole-set runs (the record measured again, the moved answers) and the SLURM
# pipeline passed CI's 90 minutes. Opt-in until renaming is checked on canonical forms the way the
# order changes are (a few seconds); the files whose verdict once changed with their names are
# checked renamed on every run (test_a_renamed_file_takes_the_same_search_path).
@pytest.mark.skipif(
    os.environ.get("EXTREMBENCH_RENAMED_WHOLE_SET") != "1",
    reason="the whole set renamed (~15 min): set EXTREMBENCH_RENAMED_WHOLE_SET=1 to run it",
)
@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_renamed_variables_give_the_same_status_and_certificate_kind(shipped_verdicts):
    renamed = verdicts(SHIPPED, "renamed-variables")
    differ = {
        pid: (shipped_verdicts[pid][:2], renamed[pid][:2])
        for pid in shipped_verdicts
        if renamed[pid][:2] != shipped_verdicts[pid][:2]
    }
    assert differ == {}
    assert all(status == "confirmed" for status, *_ in shipped_verdicts.values())


@pytest.mark.slow  # ~5 s
@pytest.mark.parametrize("problem_id", ["ineq-0504", "ineq-0024", "ineq-0463"])
def test_a_renamed_file_takes_the_same_search_path(problem_id):
    """Renamed, ineq-0504 went from bound to inconclusive and 0024 from sos to numeric: sympy
    ordered the terms of the search's float functions by the variables' names. ineq-0463 went from
    sos to bound: the bound plan broke a tie among equally large witness values by name."""
    path = str(REPO / "data" / "problems" / f"{problem_id}.yaml")
    shipped, renamed = verdicts([path], workers=1), verdicts([path], "renamed-variables", workers=1)
    assert renamed[problem_id][:2] == shipped[problem_id][:2]
    assert shipped[problem_id][0] == "confirmed"
