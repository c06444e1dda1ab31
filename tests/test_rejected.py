"""Every file of data/rejected/ gets the verdict it declares (what `extrembench check
--expect-declared data/rejected/*.yaml` asserts), and the set holds at least 30 mistakes."""

from pathlib import Path

import pytest
import yaml

from extrembench.verify.validate import check_problem

REJECTED = sorted((Path(__file__).resolve().parents[1] / "data/rejected").glob("*.yaml"))


def test_at_least_thirty_rejected_examples():
    assert len(REJECTED) >= 30


@pytest.mark.parametrize("path", REJECTED, ids=lambda p: p.stem)
def test_rejected_file_gets_its_declared_verdict(path):
    declared = yaml.safe_load(path.read_text(encoding="utf-8"))["expected_status"]
    result = check_problem(path)
    assert result.status == declared, f"{path.name}: {result.status} ({result.reason})"
    assert declared != "confirmed"
