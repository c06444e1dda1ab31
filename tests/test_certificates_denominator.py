"""sos for objectives whose denominator has no sign by its coefficients (issue 26): a denominator
c * s^2 proven >= 0 by a rank-one Gram block (body.denominator = {basis, gram}), or any
denominator D cleared into the target D * (N - answer * D) (body.denominator = "cleared"). Shipped
problems that certify through it, claims just past the answer that must not, and forged bodies
the checker must reject."""

import dataclasses
import json
from pathlib import Path

import pytest
from support.problems import make_problem as make

from extrembench.problems.problem import load_problem
from extrembench.verify.certificates import sos_search
from extrembench.verify.certificates.certify import certify
from extrembench.verify.certificates.document import canonical, embed_spec, spec_problem
from extrembench.verify.certificates.verify import verify
from extrembench.verify.certificates.witness import parse_witness
from extrembench.verify.validate import check_problem

REPO = Path(__file__).resolve().parents[1]

# (problem id, the form body.denominator takes): numeric-only before the denominator modes
SHIPPED = [
    ("ineq-0105", "gram"),  # IMO 2008/2(a): (x-1)^2 (y-1)^2 (z-1)^2 with xyz = 1
    ("ineq-0198", "gram"),  # (a-b)^2 (b-c)^2 (c-a)^2 over all reals
    ("ineq-0291", "cleared"),  # (y - x)/(x + 4y): x + 4y of either sign
]


@pytest.mark.parametrize("pid, mode", SHIPPED)
def test_shipped_problem_certifies_through_its_denominator(pid, mode):
    result = check_problem(REPO / "data" / "problems" / f"{pid}.yaml", seed=0)
    certificate = json.loads(canonical(result.certificate))
    assert result.status == "confirmed" and certificate["kind"] == "sos", certificate["body"].get("not_certified")
    denominator = certificate["body"]["denominator"]
    assert (denominator == "cleared") if mode == "cleared" else set(denominator) == {"basis", "gram"}
    ok, why = verify(certificate, embed_spec(load_problem(REPO / "data" / "problems" / f"{pid}.yaml")))
    assert ok, why
    moved = dict(certificate["spec"], answer=f"{certificate['spec']['answer']} + 1/1000")
    assert not verify({**certificate, "spec": moved})[0]
    plain = {k: v for k, v in certificate["body"].items() if k != "denominator"}
    ok, why = verify({**certificate, "body": plain})
    assert not ok and "denominator" in why, why


@pytest.mark.parametrize("pid, _mode", SHIPPED)
def test_a_claim_just_past_the_answer_gets_no_denominator_proof(pid, _mode):
    """min: answer + 1/1000 is above the minimum (max: below), so no identity may exist."""
    problem = load_problem(REPO / "data" / "problems" / f"{pid}.yaml")
    result = check_problem(problem, seed=0)
    past = "+" if problem.sense == "min" else "-"
    wrong = dataclasses.replace(problem, answer=f"({problem.answer}) {past} 1/1000")
    parsed = spec_problem(embed_spec(wrong))
    exact = parse_witness(parsed, result.certificate["witness"])
    body, why = sos_search.attempt(parsed, exact)
    assert body is None and why, why


XY = {"x": "real", "y": "real"}


@pytest.mark.parametrize(
    "problem, witness, mode",
    [
        # a square denominator: x^2 + y^2 >= (x - y)^2 / 2, equality at x = -y
        (make("min", XY, "(x^2 + y^2)/(x - y)^2", "1/2"), {"x": 1.0, "y": -1.0}, "gram"),
        # x + y of either sign by its variables, positive by the constraints: s/2 + 1/(2s) >= 1 at s = x + y = 1
        (
            make("min", XY, "(x^2 + y^2 + 1/2)/(x + y)", "1", ["x + y >= 1", "x + y <= 2"]),
            {"x": 0.5, "y": 0.5},
            "cleared",
        ),
    ],
)
def test_denominator_modes_certify(problem, witness, mode):
    certificate = json.loads(canonical(certify(problem, witness)))
    assert certificate["kind"] == "sos", certificate["body"].get("not_certified")
    denominator = certificate["body"]["denominator"]
    assert (denominator == "cleared") if mode == "cleared" else isinstance(denominator, dict)
    assert verify(certificate, embed_spec(problem))[0]


def test_a_denominator_of_either_sign_is_never_taken_as_positive():
    """x < 0 makes (x^2 + 1)/x negative: only y >= 0 and xy = 1 exclude it, and without them the
    claim 2 is false; a Gram block for D = x cannot exist, and 'cleared' cannot prove the false claim."""
    false_claim = make("min", {"x": "real"}, "(x^2 + 1)/x", "2")
    body, why = sos_search.attempt(spec_problem(embed_spec(false_claim)), None)
    assert body is None and "cleared" in why, why


def test_forged_denominator_blocks_fail():
    problem, witness = make("min", XY, "(x^2 + y^2)/(x - y)^2", "1/2"), {"x": 1.0, "y": -1.0}
    certificate = json.loads(canonical(certify(problem, witness)))
    body = certificate["body"]
    block = body["denominator"]
    half = {**block, "gram": [[str(2 * float(x)) for x in row] for row in block["gram"]]}  # 2 D, not D
    negative = {**block, "gram": [[f"-{x}" if not x.startswith("-") else x[1:] for x in row] for row in block["gram"]]}
    for forged, why in (
        (half, "neither"),
        (negative, "semidefinite"),
        ("positive", "Gram block"),
        ("cleared", "identity"),
    ):
        ok, reason = verify({**certificate, "body": {**body, "denominator": forged}})
        assert not ok and why in reason, (forged, reason)
