"""sos for objectives whose denominator has no sign by its coefficients (issue 26): a denominator
c * s^2 proven >= 0 by a rank-one Gram block (body.denominator = {basis, gram}), or any
denominator D cleared into the target D * (N - answer * D) (body.denominator = "cleared"): what
certifies, what must not, and forged bodies the checker must reject. The shipped problems it
certifies are in test_sos_reach.py."""

import json

import pytest
from support.problems import make_problem as make

from extrembench.verify.checker.document import canonical, embed_spec, spec_problem
from extrembench.verify.checker.verify import verify
from extrembench.verify.provers import sos as sos_search
from extrembench.verify.provers.certify import certify
from extrembench.verify.provers.routes import ROUTES

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
    body, why = sos_search.attempt(spec_problem(embed_spec(false_claim)), None, extended=True)
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


def test_only_the_extended_route_clears_denominators():
    """The older sos routes keep their translation (and so every certificate they give keeps its
    bytes): without `extended` a denominator of no sign still declines as before verifier 9."""
    problem = make("min", XY, "(x^2 + y^2)/(x - y)^2", "1/2")
    body, why = sos_search.attempt(spec_problem(embed_spec(problem)), None)
    assert body is None and "the denominator of the objective has coefficients of both signs" in why, why
    others = tuple(route for route in ROUTES if route.name != "sos, extended")
    assert len(others) == len(ROUTES) - 1
    certificate = certify(problem, {"x": 1.0, "y": -1.0}, routes=others)
    assert certificate["kind"] != "sos"
