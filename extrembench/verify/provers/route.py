"""The route interface: one way of proving a confirmed answer. A route's `prove` is given an
`Attempt` and returns `Proved` or `Decline`; what it proves is checked by the trusted checker
(verify.py) on the certificate's kind alone, never by the route's own code."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

from extrembench.problems.problem import ParsedProblem
from extrembench.verify.checker.trig import checked, plan, substituted
from extrembench.verify.checker.verify import verify
from extrembench.verify.provers.symmetry import groups


@dataclass(frozen=True)
class Proved:
    """A proof a route found: the certificate's kind ("bound" | "sos"), body, size, and epsilon
    (bound only; an sos identity is exact)."""

    kind: str
    body: dict
    size: int
    epsilon: Fraction | None = None


@dataclass(frozen=True)
class Decline:
    """No proof from this route: the note recorded (naming the route, "sos: ..."), or None where the
    route does not apply to the problem at all (nothing recorded)."""

    reason: str | None


@dataclass(frozen=True)
class Route:
    """name: the route; checked_as: the checker's route its certificates go through
    (document.ROUTES, verify.CHECKS); prove: given the list's attempt (an `Attempt` for a confirmed
    answer, a `refutation.LevelAttempt` for a level past a claim), its proof (`Proved`; a verified
    certificate for a refutation) or a Decline."""

    name: str
    checked_as: str
    prove: Callable[[Any], Any]

    def check(self, certificate: dict | str, spec: dict | None = None) -> tuple[bool, str]:
        return verify(certificate, spec)


@dataclass
class Attempt:
    """What every route is given: the embedded spec parsed, the exact witness, its float values,
    the box budget, and the cos/sin substitution (proofs run on its polynomial problem where one
    applies; `extra` records it in the body)."""

    parsed: ParsedProblem
    exact: dict
    approx: dict[str, float]
    max_nodes: int
    steps: dict = field(default_factory=dict)
    proof: ParsedProblem | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.proof is None:
            self.steps, self.proof, self.extra = substitution(self.parsed)

    @cached_property
    def proof_approx(self) -> dict[str, float]:
        """The witness's values in the substituted variables (x -> cos x)."""
        return {k: getattr(math, self.steps[k][0])(v) if k in self.steps else v for k, v in self.approx.items()}

    @cached_property
    def chains(self) -> list[list[str]]:
        """The symmetric groups of the proof problem (computed once for the ordered routes)."""
        return groups(self.proof)


def substitution(parsed: ParsedProblem) -> tuple[dict, ParsedProblem, dict]:
    """(substitution, the problem to prove, the body's fields recording it), or ({}, parsed, {})
    when none applies or its text does not parse back (past the safe parser's length limits)."""
    steps = plan(parsed)
    if steps:
        poly = substituted(parsed, steps)
        fields = {
            "substitution": steps,
            "polynomial": [str(poly.objective), *(f"{lhs} {op} {rhs}" for lhs, op, rhs in poly.constraints)],
        }
        try:
            return steps, checked(parsed, fields), fields  # the verifier's own re-derivation
        except ValueError:
            pass
    return {}, parsed, {}
