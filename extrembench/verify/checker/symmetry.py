"""Symmetric groups of variables. When the domains, the objective and the set of constraints are
invariant under every permutation of a group (checked exactly on the adjacent transpositions of
the recorded order, which generate all of them), sorting the group's coordinates of a feasible
point gives a feasible point with the same objective value: a proof may add x1 <= x2 <= ... <= xn.
Under that chain Max/Min of the group's variables is its last/first one (sos resolves Abs of
their differences from the chain constraints), so such objectives become polynomial.

This module checks a recorded group from the spec; finding the groups is provers/symmetry.py.
"""

from __future__ import annotations

from collections import Counter

import sympy

from extrembench.problems.problem import ParsedProblem

FLIP = {"<=": ">=", "<": ">"}


def canonical_constraint(lhs, op, rhs) -> tuple:
    """(op, expanded expression) with op one of >=, >, = and expression OP 0; an equality's sign
    is the canonical one of +-expression."""
    e = sympy.expand(rhs - lhs if op in FLIP else lhs - rhs)
    if op == "=":
        e = min(e, sympy.expand(-e), key=sympy.default_sort_key)
    return FLIP.get(op, op), e


def canonical_forms(parsed: ParsedProblem) -> tuple:
    return sympy.expand(parsed.objective), Counter(canonical_constraint(*c) for c in parsed.constraints)


def swap_invariant(parsed: ParsedProblem, a: sympy.Symbol, b: sympy.Symbol, base: tuple | None = None) -> bool:
    """Whether swapping a and b leaves the domains, the objective and the set of constraints
    unchanged: equal canonical expanded forms (exact; a form it cannot match is no symmetry)."""
    if parsed.domains[a] != parsed.domains[b]:
        return False
    put = {a: b, b: a}
    objective, constraints = base or canonical_forms(parsed)
    # the constraints first: usually cheaper than rebuilding the objective's Max/Min
    moved = Counter(
        canonical_constraint(lhs.xreplace(put), op, rhs.xreplace(put)) for lhs, op, rhs in parsed.constraints
    )
    return moved == constraints and sympy.expand(parsed.objective.xreplace(put)) == objective


def ordered(parsed: ParsedProblem, chains: list[list[str]]) -> ParsedProblem:
    """The problem with each group's chain added and Max/Min over one group's variables resolved."""
    by_name = {s.name: s for s in parsed.symbols}
    rank = {by_name[n]: (k, i) for k, chain in enumerate(chains) for i, n in enumerate(chain)}

    def resolve(e):
        def pick(*args):
            if all(a in rank for a in args) and len({rank[a][0] for a in args}) == 1:
                return (max if isinstance(e, sympy.Max) else min)(args, key=rank.get)
            return type(e)(*args)

        return pick(*e.args)

    def sub(e):
        return e.replace(lambda x: isinstance(x, (sympy.Max, sympy.Min)), resolve)

    links = tuple((by_name[a], "<=", by_name[b]) for chain in chains for a, b in zip(chain, chain[1:]))
    return ParsedProblem(
        parsed.symbols,
        parsed.domains,
        tuple((sub(lhs), op, sub(rhs)) for lhs, op, rhs in parsed.constraints) + links,
        sub(parsed.objective),
        parsed.answer,
        parsed.sense,
    )


def checked(parsed: ParsedProblem, body: dict) -> ParsedProblem:
    """The ordered problem of the body's recorded groups, after checking each is symmetric
    (ValueError otherwise)."""
    chains = body.get("ordered")
    names = [s.name for s in parsed.symbols]
    if (
        not isinstance(chains, list)
        or not chains
        or not all(isinstance(c, list) and len(c) > 1 and all(n in names for n in c) for c in chains)
    ):
        raise ValueError("ordered: a list of groups of two or more of the spec's variables")
    flat = [n for c in chains for n in c]
    if len(set(flat)) != len(flat):
        raise ValueError("ordered: the groups must be disjoint")
    by_name = {s.name: s for s in parsed.symbols}
    for chain in chains:
        if not symmetric(parsed, [by_name[n] for n in chain]):
            raise ValueError(f"ordered: permuting {', '.join(chain)} changes the problem")
    return ordered(parsed, chains)


def symmetric(parsed: ParsedProblem, chain) -> bool:
    """Every adjacent transposition of `chain` (symbols) leaves the problem unchanged, so every
    permutation of it does."""
    base = canonical_forms(parsed)
    return all(swap_invariant(parsed, a, b, base) for a, b in zip(chain, chain[1:]))
