"""The non-LLM baselines live in one registry (issue 38: their names were string tests at each call
site): every backend of the config that serves no chat endpoint is there, each names a module with
`answer`, and a sample's identity carries exactly the settings the registry lists."""

from __future__ import annotations

import importlib
import json

import pytest

from extrembench.core.config import BACKENDS, model_entry
from extrembench.generation.requests import plan_samples, sampling_json, solver_version
from extrembench.generation.solvers import SOLVERS
from extrembench.llm.backends import CHAT_BACKENDS

ROW = {
    "problem_id": "p1",
    "status": "confirmed",
    "statement": "...",
    "spec_json": json.dumps(
        {"sense": "min", "variables": {"a": "positive"}, "objective": "a + 1/a", "constraints": []}
    ),
}


def test_every_backend_is_a_chat_backend_or_a_registered_solver():
    assert set(BACKENDS) == set(CHAT_BACKENDS) | set(SOLVERS)
    assert not set(CHAT_BACKENDS) & set(SOLVERS)


@pytest.mark.parametrize("backend", sorted(SOLVERS))
def test_a_solver_answers_and_its_samples_carry_its_settings(backend):
    solver = SOLVERS[backend]
    assert callable(importlib.import_module(solver.module).answer)
    constant = "1" if "constant" in solver.settings else None
    planned = plan_samples(
        [ROW], benchmark="b", model=backend, model_cfg=model_entry({"backend": backend}), trials=2, constant=constant
    )
    identity = planned[0].identity
    assert set(identity) == {"engine", "engine_version", "spec_json", "seed", *solver.settings}
    assert set(json.loads(sampling_json(planned[0]))) == {"seed", *solver.settings}
    response = solver.answer(identity)
    assert response["finish_reason"] in ("stop", "abstain") or response.get("content") is not None


def test_each_solver_versions_its_own_code():
    assert len({solver_version(backend) for backend in SOLVERS}) == len(SOLVERS)
