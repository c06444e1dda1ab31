"""Verdicts a reader can re-check: deterministic search, exact refutations, feasibility at 0, the
statement's LaTeX read by the one reader. Each class has its own hand-made examples."""

import copy
import json
import multiprocessing
import time
from pathlib import Path

import numpy as np
import pytest

from extrembench.core.config import Validation
from extrembench.problems.problem import problem_from_dict
from extrembench.verify.numeric.search import FEAS_TOL, Effort, build_model
from extrembench.verify.provers.refutation import verify_refutation, witness_certificate
from extrembench.verify.validate import _refute_by_witness, check_problem

ROOT = Path(__file__).resolve().parents[1]


def make(sense, variables, objective, answer, constraints=(), statement=None):
    data = {
        "id": "r",
        "sense": sense,
        "variables": variables,
        "constraints": list(constraints),
        "objective": objective,
        "answer": answer,
    }
    if statement is not None:
        data["statement"] = statement
    return problem_from_dict(data)


POS = {n: "positive" for n in "abcde"}
REAL = {n: "real" for n in "xyzwv"}


def pos(k):
    return {n: "positive" for n in "abcde"[:k]}


def real(k):
    return {n: "real" for n in "xyzwv"[:k]}


# ---------------------------------------------------------------- class 1: float-only feasibility


@pytest.mark.parametrize(
    "variables, objective, constraints, answer, spurious",
    [
        # b = 1 - 1e-9 with a = 1e20 meets 1/a + 1/b = 1 to 1e-9 relative, and there b + 1/(b-1) ~ -1e9;
        # exactly feasible points need b > 1, where the objective is >= 3
        (pos(2), "b + 1/(b-1)", ["1/a + 1/b = 1"], "3", {"a": 1e20, "b": 1 - 1e-9}),
        (pos(3), "c + 1/(c-1)", ["1/a + 1/b + 1/c = 1"], "3", {"a": 1e20, "b": 1e20, "c": 1 - 1e-9}),
        (pos(4), "d + 1/(d-1)", ["1/a + 1/b + 1/c + 1/d = 1"], "3", {"a": 1e20, "b": 1e20, "c": 1e20, "d": 1 - 1e-9}),
        (
            pos(5),
            "e + 1/(e-1)",
            ["1/a + 1/b + 1/c + 1/d + 1/e = 1"],
            "3",
            {"a": 1e20, "b": 1e20, "c": 1e20, "d": 1e20, "e": 1 - 1e-9},
        ),
    ],
)
def test_a_point_feasible_only_to_tolerance_never_refutes(variables, objective, constraints, answer, spurious):
    problem = make("min", variables, objective, answer, constraints)
    model, parsed = build_model(problem)
    xs = [np.float64(spurious[n]) for n in model.names]
    value, violation = model.values(xs)
    assert violation <= FEAS_TOL and value < float(answer) - 1  # the float search would call it feasible and better
    certificate, why = witness_certificate(parsed, answer, spurious)
    assert certificate is None, why
    t = tuple(c.t(spurious[n]) for c, n in zip(model.coords, model.names))
    from extrembench.verify.numeric.search import Candidate

    result = _refute_by_witness(problem, model, [Candidate(t, float(value), float(violation))], time.monotonic() + 60)
    assert result.status == "inconclusive" and result.certificate is None
    assert "no exactly feasible point near it beats the claim" in result.reason
    assert check_problem(problem).status == "confirmed"  # and the real check confirms the right answer


# ---------------------------------------------------------------- exact refutations


@pytest.mark.parametrize(
    "sense, variables, objective, answer, constraints, method",
    [
        ("min", pos(3), "a/(b+c) + b/(c+a) + c/(a+b)", "2", [], "witness"),
        ("min", pos(3), "a + b + c", "2", ["a^2 + b^2 + c^2 = 3"], "witness"),  # algebraic coordinate
        ("max", pos(3), "a*b + b*c + c*a", "2.9", ["a + b + c = 3"], "witness"),
        ("min", pos(4), "a^2 + b^2 + c^2 + d^2", "1.1", ["a + b + c + d = 2"], "witness"),
        ("min", pos(5), "a*b*c*d*e + 1/(a*b*c*d*e)", "2.5", [], "witness"),
        # claims past the extremum: a level proof, sos at the level tried before branch and bound
        ("min", pos(2), "(1 + 1/a)*(1 + 1/b)", "8", ["a + b = 1"], "sos"),
        ("min", pos(3), "a^2/b + b^2/c + c^2/a", "2.97", ["a + b + c = 3"], "bound"),
    ],
)
def test_refuted_only_with_a_certificate_that_verifies(sense, variables, objective, answer, constraints, method):
    problem = make(sense, variables, objective, answer, constraints)
    result = check_problem(problem)
    assert result.status == "refuted", result.reason
    certificate = json.loads(json.dumps(result.certificate))  # JSON-serialisable
    assert certificate["kind"] == "refutation" and certificate["method"] == method
    assert verify_refutation(certificate, problem)[0]
    assert json.loads(json.dumps(result.to_json()))["certificate"] == certificate


def _tampered(certificate):
    """The same certificate with one number changed."""
    changed = copy.deepcopy(certificate)
    if changed["method"] == "witness":
        name = next(n for n, v in changed["point"].items() if isinstance(v, str))
        changed["point"][name] = str(float(changed["point"][name]) + 0.01)
    else:
        changed["claim"] = str(float(changed["claim"]) + 0.5)
    return changed


@pytest.mark.parametrize(
    "variables, objective, answer, constraints",
    [
        (pos(3), "a/(b+c) + b/(c+a) + c/(a+b)", "2", ["a + b + c = 3"]),
        (pos(2), "(1 + 1/a)*(1 + 1/b)", "8", ["a + b = 1"]),
    ],
)
def test_a_changed_certificate_does_not_verify(variables, objective, answer, constraints):
    problem = make("min", variables, objective, answer, constraints)
    certificate = check_problem(problem).certificate
    tampered = _tampered(certificate)
    other = make("min", variables, objective, tampered["claim"], constraints)
    ok, why = verify_refutation(tampered, other if tampered["claim"] != answer else problem)
    assert not ok, why


@pytest.mark.parametrize(
    "certificate, reason",
    [
        (
            {"kind": "refutation", "method": "witness", "sense": "min", "claim": "2", "point": {"a": "1", "b": "1"}},
            "constraint",
        ),  # a + b = 1 fails
        (
            {"kind": "refutation", "method": "witness", "sense": "min", "claim": "2", "point": {"a": "0", "b": "1"}},
            "outside its domain",
        ),
        (
            {
                "kind": "refutation",
                "method": "witness",
                "sense": "min",
                "claim": "2",
                "point": {"a": "1/2", "b": {"root_of": ["1", "0", "-2"], "interval": ["0", "1"]}},
            },
            "change sign",
        ),
        (
            {
                "kind": "refutation",
                "method": "branch-and-bound",
                "sense": "min",
                "claim": "2",
                "eliminate": {},
                "tree": "o",
            },
            "retired",
        ),
        ({"kind": "confirmed"}, "kind must be"),
    ],
)
def test_bad_certificates_are_rejected_with_a_reason(certificate, reason):
    problem = make("min", pos(2), "a + b + 1", "2", ["a + b = 1"])
    ok, why = verify_refutation(certificate, problem)
    assert not ok and (reason in why or reason == "constraint"), why


# ---------------------------------------------------------------- class 2: feasible sets at 0


@pytest.mark.parametrize(
    "sense, variables, objective, answer, constraints",
    [
        ("min", real(3), "x^2 + y^2 + z^2", "0", ["x + y + z = 0"]),
        (
            "min",
            {"x": "[-1, 1]", "y": "[-1, 1]", "z": "[-1, 1]", "w": "[-1, 1]"},
            "x^4 + y^2 + z^2 + w^2",
            "0",
            ["x + y = 0", "z - 2*w = 0"],
        ),
        ("min", real(5), "x^2 + y^2 + z^2 + w^2 + v^2", "0", ["x + y = z", "z + w = v", "x - v = 0"]),
        ("min", real(2), "x + y", "0", ["x^2 + y^2 = 0"]),  # single point
        ("max", {"a": "real", "b": "real", "c": "real"}, "a + 2*b + 3*c", "0", ["a^2 + (b-1)^2 + c^2 = 1 - 2*b"]),
        ("min", {"x": "nonnegative", "y": "nonnegative", "z": "real"}, "x + y + z^2", "0", ["x^2 + y^2 + z^4 = 0"]),
    ],
)
def test_an_exactly_feasible_point_at_the_origin_is_not_an_empty_set(sense, variables, objective, answer, constraints):
    result = check_problem(make(sense, variables, objective, answer, constraints))
    assert result.status == "confirmed", result.reason


def test_an_empty_set_is_still_invalid():
    """Issue 29: invalid with the exact argument (the equalities eliminate a to b^2 - b + 1 = 0)."""
    result = check_problem(make("min", pos(2), "a + b", "1", ["a + b = 1", "a*b = 1"]))
    assert result.status == "invalid", result.reason
    assert "b**2 - b + 1 = 0, which has no real root" in result.reason


# ---------------------------------------------------------------- class 3: statements with \max\{...\}


@pytest.mark.parametrize(
    "variables, objective, answer, constraints, statement, sense",
    [
        (
            {"a": "nonnegative", "b": "nonnegative", "c": "nonnegative"},
            "Max(a, b, c)",
            "1/3",
            ["a + b + c = 1"],
            r"Let $a, b, c \ge 0$ with $a + b + c = 1$. Find the minimum value of $\max\{a, b, c\}$.",
            "min",
        ),
        (
            {"a": "nonnegative", "b": "nonnegative", "c": "nonnegative", "d": "nonnegative"},
            "Max(a + b, b + c, c + d)",
            "1/2",
            ["a + b + c + d = 1"],
            r"Let $a,b,c,d$ be nonnegative reals with $a+b+c+d=1$. Find the least value of $\max\left\{a+b,\ b+c,\ c+d\right\}$.",
            "min",
        ),
        (
            {"x": "[0, 1]", "y": "[0, 1]"},
            "Min(x, 1 - y)",
            "1",
            [],
            r"For $x, y \in [0, 1]$ find the largest value of $\min\{x, 1-y\}$.",
            "max",
        ),
        (
            {"a": "positive", "b": "positive", "c": "positive"},
            "a/(b+c) + b/(c+a) + c/(a+b)",
            "3/2",
            [],
            r"Let $a,b,c>0$. Find the minimum value of $P = \sum_{cyc} \frac{a}{b+c}$.",
            "min",
        ),
    ],
)
def test_statement_with_max_min_of_a_list_reads_back(variables, objective, answer, constraints, statement, sense):
    result = check_problem(make(sense, variables, objective, answer, constraints, statement))
    assert result.status == "confirmed", result.reason


def test_statement_with_a_different_list_is_invalid():
    item = make(
        "min",
        {"a": "nonnegative", "b": "nonnegative", "c": "nonnegative"},
        "Max(a, b, c)",
        "1/3",
        ["a + b + c = 1"],
        r"Let $a, b, c \ge 0$ with $a + b + c = 1$. Find the minimum of $\max\{a, 2b, c\}$.",
    )
    result = check_problem(item)
    assert result.status == "invalid" and "no formula in the statement equals the objective" in result.reason


# ---------------------------------------------------------------- class 4: determinism under load


def _spin(stop_at: float) -> None:
    while time.monotonic() < stop_at:
        pass


def _validated_bytes(tmp_path: Path, files: list[str]) -> bytes:
    """Validate through the real stage code; the same paths each time (their names are lineage)."""
    import shutil

    from extrembench.sources.convert import convert_shard
    from extrembench.sources.translate import translate_shard
    from extrembench.verify.stage import validate_shard

    out = tmp_path / "run"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    translate_shard(files, out / "t.parquet", benchmark="b", dag_node="n")
    convert_shard(files, out / "t.parquet", out / "c.parquet", benchmark="b", dag_node="n")
    validate_shard(
        files, out / "c.parquet", out / "p.parquet", benchmark="b", dag_node="n", settings=Validation(starts=14)
    )
    return (out / "p.parquet").read_bytes()


@pytest.mark.slow  # ~8 s
def test_validation_is_byte_identical_under_load(tmp_path):
    files = sorted(str(p) for p in (ROOT / "data" / "problems").glob("*.yaml"))[:4]
    for name in ("wrong-answer-high", "wrong-answer-low"):  # refutations too, without the expected_status key
        text = (ROOT / "data" / "rejected" / f"{name}.yaml").read_text(encoding="utf-8")
        (tmp_path / f"{name}.yaml").write_text(text.replace("expected_status: refuted\n", ""), encoding="utf-8")
        files.append(str(tmp_path / f"{name}.yaml"))
    quiet = _validated_bytes(tmp_path, files)
    spinner = multiprocessing.get_context("spawn").Process(target=_spin, args=(time.monotonic() + 120,))
    spinner.start()
    try:
        busy = _validated_bytes(tmp_path, files)
    finally:
        spinner.terminate()
        spinner.join()
    assert quiet == busy
    import pyarrow.parquet as pq

    statuses = pq.read_table(tmp_path / "run" / "p.parquet").column("status").to_pylist()
    assert statuses.count("refuted") == 2 and statuses.count("confirmed") == 4


def test_effort_is_counted_not_timed():
    problem = make("min", pos(3), "a^2/b + b^2/c + c^2/a", "3", ["a + b + c = 3"])
    assert check_problem(problem, effort=Effort(starts=2)) == check_problem(problem, effort=Effort(starts=2))
    capped = check_problem(problem, effort=Effort(time_cap_s=1e-9))
    assert capped.status == "inconclusive" and capped.reason.startswith("time cap")


@pytest.mark.parametrize("transform", ["as-written", "reversed-variables", "reversed-constraints"])
def test_a_refutation_verifies_against_the_problem_in_any_order(transform):
    """The check refutes the canonical order (problem.canonical_problem); a reader re-checks the
    certificate with the file as written, or reordered, and must get the same answer. ineq-0181's
    sos refutation of a claim 1 % high once failed against the file's own order."""
    from dataclasses import replace

    from support.metamorphic import ORDER_ONLY

    from extrembench.problems.problem import load_problem

    problem = load_problem(ROOT / "data" / "problems" / "ineq-0181.yaml")
    wrong = replace(problem, answer="101/25", source=None, statement=None)
    result = check_problem(wrong)
    assert result.status == "refuted" and result.certificate["method"] == "sos", result.reason
    reader = wrong if transform == "as-written" else ORDER_ONLY[transform](wrong)
    ok, why = verify_refutation(result.certificate, reader)
    assert ok, why
