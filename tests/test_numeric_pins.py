"""The numeric stack pinned to one set of releases wherever the benchmark is installed (issue 35):
envs/numeric-constraints.txt, read by envs/install.sh, equals envs/pipeline.yaml's pins and lies
within pyproject.toml's floors; a problems table records the stack that produced it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from extrembench.verify.blas import NUMERIC_PACKAGES, numeric_stack

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "envs" / "numeric-constraints.txt"


def _pins(lines) -> dict[str, str]:
    pins = {}
    for line in lines:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)==([^\s#]+)\s*", line)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def test_the_constraints_pin_every_numeric_package_as_the_pipeline_env_does():
    constraints = _pins(CONSTRAINTS.read_text().splitlines())
    conda = yaml.safe_load((ROOT / "envs" / "pipeline.yaml").read_text())["dependencies"]
    [pip_section] = [d["pip"] for d in conda if isinstance(d, dict)]
    pipeline = _pins(pip_section)
    assert sorted(constraints) == sorted(NUMERIC_PACKAGES)
    assert {name: pipeline.get(name) for name in constraints} == constraints


def test_the_pins_satisfy_the_package_floors():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    floors = {Requirement(d).name.lower(): Requirement(d) for d in dependencies}
    for name, version in _pins(CONSTRAINTS.read_text().splitlines()).items():
        assert floors[name].specifier.contains(version), f"{name}=={version} outside pyproject's {floors[name]}"


def test_the_installer_installs_under_the_constraints():
    [line] = [line for line in (ROOT / "envs" / "install.sh").read_text().splitlines() if " install -c " in line]
    assert "numeric-constraints.txt" in line and '-e ".[$extras]"' in line


@pytest.mark.slow  # ~3 s: one problem through the translate, convert and validate jobs
def test_a_problems_table_records_the_numeric_stack_that_produced_it(tmp_path, monkeypatch):
    from extrembench.core.config import Validation
    from extrembench.sources.convert import convert_shard
    from extrembench.sources.translate import translate_shard
    from extrembench.verify.stage import read_numeric_stack, validate_shard

    monkeypatch.chdir(ROOT)
    files = ["data/problems/ineq-0007.yaml"]
    translate_shard(files, tmp_path / "t.parquet", benchmark="extrem", dag_node="t")
    convert_shard(files, tmp_path / "t.parquet", tmp_path / "c.parquet", benchmark="extrem", dag_node="c")
    validate_shard(
        files, tmp_path / "c.parquet", tmp_path / "p.parquet", benchmark="extrem", dag_node="v", settings=Validation()
    )
    recorded = read_numeric_stack(tmp_path / "p.parquet")
    assert recorded == numeric_stack()
    assert set(recorded["packages"]) == set(NUMERIC_PACKAGES) and all(recorded["packages"].values())
    assert recorded["blas"] and all(b["kernel"] for b in recorded["blas"])
