"""benchmarks/validate_all.py's determinism figure ("identical bytes when built twice") rebuilds a
certificate with the inputs the check used. It once rebuilt numeric certificates without the
search's orthant record, so the 12 numeric files that carry one were reported as not identical
(stop 44) though the check itself gives the same bytes every time."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from validate_all import certify_one  # noqa: E402


def test_a_numeric_certificate_with_an_orthant_record_is_rebuilt_byte_for_byte():
    row = certify_one(str(REPO / "data/problems/ineq-0451.yaml"))  # numeric, records its orthants, < 1 s
    assert row["kind"] == "numeric" and row["verified"]
    assert row["same_bytes"] is True
