"""The non-LLM baselines by backend name: one registry instead of a string test per call site.

Each solver is a module of this package with `answer(identity) -> response`. A sample's identity
(what its cache key is computed over) is the engine, its version (the package version + the code
hash of the module's imports), the problem's spec, the seed, and the settings the solver reads.
Modules are imported when a solver answers, not when the registry is read: the Snakefile reads it
for every job, and the solvers pull in numpy, scipy and sympy.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Solver:
    module: str  # dotted name of the module whose `answer` computes a response
    settings: tuple[str, ...]  # identity fields beyond engine, version, spec and seed

    @property
    def path(self) -> str:
        """The module's file, relative to the checkout (the code hash reads its imports from it)."""
        return self.module.replace(".", "/") + ".py"

    def answer(self, identity: dict[str, Any]) -> dict[str, Any]:
        return importlib.import_module(self.module).answer(identity)


SOLVERS: dict[str, Solver] = {
    "reference-solver": Solver("extrembench.generation.reference", ("starts", "digits")),
    "symmetric-guess": Solver("extrembench.generation.symmetric", ("digits",)),
    "boundary-guess": Solver("extrembench.generation.boundary", ("digits",)),
    "constant-guess": Solver("extrembench.generation.constant", ("digits", "constant")),
}
