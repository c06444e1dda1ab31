"""The prover half of symmetry: which variables a problem is symmetric in, and the witness sorted to
match. symmetry.py checks a recorded group from the spec; nothing here is needed to."""

from __future__ import annotations

import sympy

from extrembench.problems.problem import ParsedProblem
from extrembench.verify.checker.symmetry import canonical_forms, swap_invariant


def groups(parsed: ParsedProblem) -> list[list[str]]:
    """The classes (2 or more variables) of "the transposition (a b) is a symmetry": an equivalence
    (if (a c) and (b c) are symmetries so is (a b) = (a c)(b c)(a c)), so one comparison with each
    class's first member places a variable."""
    base = canonical_forms(parsed)
    classes: list[list[sympy.Symbol]] = []
    for s in parsed.symbols:
        home = next((c for c in classes if swap_invariant(parsed, s, c[0], base)), None)
        if home is None:
            classes.append([s])
        else:
            home.append(s)
    return [[s.name for s in c] for c in classes if len(c) > 1]


def sorted_witness(witness: dict, chains: list[list[str]]) -> dict:
    """The exact witness with each group's values sorted (a point of the ordered problem)."""
    out = dict(witness)
    by_name = {s.name: s for s in witness}
    for chain in chains:
        for name, value in zip(chain, sorted((witness[by_name[n]] for n in chain), key=float)):
            out[by_name[name]] = value
    return out
