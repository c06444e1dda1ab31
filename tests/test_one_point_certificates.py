"""The one-point certificate (checker/point.py): an sos proof that sum (v - w_v)^2 <= 0 on the
feasible set, with w the exact witness. The trusted checker accepts the one the validator writes
and refuses every way of stretching it to a claim it does not prove."""

from __future__ import annotations

import copy

import pytest
from support.problems import make_problem as make
from support.problems import pos

from extrembench.verify.checker.verify import verify
from extrembench.verify.validate import check_problem


@pytest.fixture(scope="module")
def certificate():
    result = check_problem(make("max", pos("xy"), "x - y", "0", ["x + y <= 2", "x*y >= 1"]))
    assert result.status == "confirmed", result.reason
    return result.certificate


def test_the_checker_accepts_it(certificate):
    ok, reason = verify(certificate)
    assert ok, reason


def _tampered(certificate, change):
    doc = copy.deepcopy(certificate)
    change(doc)
    return verify(doc)


TAMPERINGS = {
    # a set with more than one point: the identity no longer holds
    "wider set": lambda d: d["spec"].update(constraints=["x + y <= 3", "x*y >= 1"]),
    "another claim": lambda d: d["spec"].update(answer="1"),
    "point dropped": lambda d: d["body"].pop("point"),
    "point not true": lambda d: d["body"].update(point="yes"),
    "a slack": lambda d: d.update(epsilon="1/10000000000"),
    "another witness": lambda d: d.update(witness={"x": "3/2", "y": "1/2"}),
    "with sorted groups": lambda d: d["body"].update(ordered=[["x", "y"]]),
    "a gram entry": lambda d: d["body"]["gram"][0].__setitem__(0, "1"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_every_tampering_is_refused(certificate, name):
    ok, reason = _tampered(certificate, TAMPERINGS[name])
    assert not ok, f"{name}: accepted ({reason})"
