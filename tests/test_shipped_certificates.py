"""Every certificate of the shipped problem set verifies after a real validate run: the stage jobs
(translate, convert, validate) write real Parquet tables, and `extrembench verify-certificate`
re-checks what they hold, where each spec is read back from its row (variables in sorted order)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from extrembench.verify.checker.verify import verify
from extrembench.verify.validate import check_problem

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "benchmarks"))  # benchmarks/figures.py and the scripts it imports
import figures  # noqa: E402

SHIPPED = sorted(str(p.relative_to(REPO)) for p in (REPO / "data" / "problems").glob("*.yaml"))


@pytest.mark.slow  # the whole shipped set validated with certificates: ~10 min on 2 cores for 180 problems
@pytest.mark.timeout(2400)  # past the suite's 20-minute watchdog, as the renamed whole-set run
def test_every_shipped_certificate_verifies_after_a_real_validate_run(tmp_path, monkeypatch):
    """The record's counts, verdicts and certificate bytes, measured again. The jobs run where the
    environment asks OpenBLAS for SkylakeX kernels, as a cluster node of another CPU would:
    extrembench pins one float path before numpy loads (extrembench/verify/blas.py,
    tests/test_float_path.py), so the bytes must still be the record's, made in the environment as
    it was. One whole-set run checks both: the suite cannot afford two."""
    monkeypatch.chdir(REPO)  # the jobs record problem paths relative to the checkout, as under Snakemake
    monkeypatch.setenv("OPENBLAS_CORETYPE", "SkylakeX")  # inherited by the spawned validate processes
    tables = figures.validate_whole_set(str(tmp_path))  # what the figures' record was measured with
    result = subprocess.run(
        [sys.executable, "-m", "extrembench.cli", "verify-certificate", *tables],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=1800,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert sum(line.startswith("ok ") for line in result.stdout.splitlines()) == len(SHIPPED), result.stdout[-3000:]
    # the counts README and docs state (rendered from docs/figures/measured.json) are these
    counts = figures.whole_set_counts(pd.concat(pd.read_parquet(t) for t in tables))
    recorded = figures.load_record()["whole-set"]
    assert counts == {key: recorded[key] for key in counts}, "run `python benchmarks/figures.py measure --whole-set`"


def test_a_certificate_verifies_whatever_the_order_of_the_spec_variables():
    """ineq-0239's file declares {s, p}; its Parquet row holds the spec with sorted keys, {p, s}.
    The sos certificate records the order it was proved in and verified only against that one."""
    result = check_problem(REPO / "data" / "problems" / "ineq-0239.yaml", seed=0)
    assert result.status == "confirmed" and result.certificate["kind"] == "sos"
    assert result.certificate["body"]["variables"] == ["s", "p"]
    row_spec = json.loads(json.dumps({**result.certificate["spec"]}, sort_keys=True))
    assert list(row_spec["variables"]) == ["p", "s"]
    assert verify(json.loads(json.dumps(result.certificate, sort_keys=True)), row_spec) == verify(result.certificate)
    assert verify(json.loads(json.dumps(result.certificate, sort_keys=True)), row_spec)[0]
    tampered = {**result.certificate, "body": {**result.certificate["body"], "variables": ["s", "q"]}}
    assert not verify(tampered)[0]


@pytest.mark.slow  # ~5 s
def test_a_bound_certificate_verifies_whatever_the_order_of_the_spec_variables():
    """ineq-0460 declares {x, u, v, w}; its Parquet row's spec has sorted keys, {u, v, w, x}. The
    proof's boxes follow the prover's order, which the certificate now records and the replay reads."""
    result = check_problem(REPO / "data" / "problems" / "ineq-0460.yaml", seed=0)
    assert result.status == "confirmed" and result.certificate["kind"] == "bound"
    assert result.certificate["body"]["variables"] == ["x", "u", "v", "w"]
    row = json.loads(json.dumps(result.certificate, sort_keys=True))
    assert list(row["spec"]["variables"]) == ["u", "v", "w", "x"]
    assert verify(row, row["spec"])[0], verify(row, row["spec"])
    # any permutation is replayed as it stands (a proof in another order is still a proof); other names are refused
    for wrong in (["x", "u", "v", "q"], ["x", "u", "v"], "xuvw"):
        assert not verify({**row, "body": {**row["body"], "variables": wrong}}, row["spec"])[0], wrong
