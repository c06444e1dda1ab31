"""The sign orthants a numeric search must visit before it may confirm an answer.

A feasible set over real variables can fall apart into pieces the search never reaches from its
starts: the two branches of x*y = 1 lie in opposite orthants, and an objective can be unbounded on
the branch no start fell into. So every sign pattern of the variables whose domain fixes no sign is
a part of the set to search, restricted to that closed orthant. Patterns that an exact symmetry of
the problem maps onto each other hold the same values, so one pattern per orbit is searched:
symmetries are a sign flip of one variable or of all the free ones at once, a transposition of
two interchangeable variables, and the cyclic shift of all variables in their declared order, each
checked on the expanded objective and the multiset of constraints (symmetry.canonical_constraint forms).
Pure and bounded: at most MAX_FREE sign-free variables are enumerated (2^MAX_FREE patterns)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import sympy

from extrembench.problems.problem import ParsedProblem
from extrembench.verify.checker.symmetry import canonical_constraint
from extrembench.verify.provers.symmetry import groups

MAX_FREE = 12  # 4096 sign patterns: the orbits are enumerated pattern by pattern


@dataclass(frozen=True)
class Orthants:
    """The sign-free variables (declared order) and one pattern per orbit ('+' / '-' per variable,
    all '+' first); `complete` is False when there were too many free variables to enumerate."""

    free: tuple[str, ...]
    patterns: tuple[str, ...]
    complete: bool

    def describe(self, pattern: str) -> str:
        return ", ".join(f"{name} {'>=' if sign == '+' else '<='} 0" for name, sign in zip(self.free, pattern))


def sign_free(parsed: ParsedProblem) -> list[sympy.Symbol]:
    """Variables whose domain contains both signs (an interval with a negative lower end and a
    positive upper end, or the whole line)."""
    out = []
    for s in parsed.symbols:
        d = parsed.domains[s]
        if (d.lo is None or d.lo < 0) and (d.hi is None or d.hi > 0):
            out.append(s)
    return out


def canonical_forms(parsed: ParsedProblem, put: dict) -> tuple:
    objective = sympy.expand(parsed.objective.xreplace(put))
    constraints = Counter(
        canonical_constraint(lhs.xreplace(put), op, rhs.xreplace(put)) for lhs, op, rhs in parsed.constraints
    )
    return objective, constraints


def _symmetry(parsed: ParsedProblem, base: tuple, put: dict) -> bool:
    """Whether the substitution put maps the problem onto itself (domains included)."""
    for s, image in put.items():
        image_symbol = image if isinstance(image, sympy.Symbol) else -image
        if parsed.domains[s] != parsed.domains[image_symbol]:
            return False
        if not isinstance(image, sympy.Symbol) and not _symmetric_domain(parsed.domains[s]):
            return False
    return canonical_forms(parsed, put) == base


def _symmetric_domain(domain) -> bool:
    return (domain.lo is None and domain.hi is None) or (
        domain.lo is not None and domain.hi is not None and domain.lo == -domain.hi and domain.lo_open == domain.hi_open
    )


def orthants(parsed: ParsedProblem) -> Orthants:
    """The orbit representatives of the sign patterns of the sign-free variables."""
    free = sign_free(parsed)
    names = tuple(s.name for s in free)
    if not free:
        return Orthants((), ("",), True)
    if len(free) > MAX_FREE:
        return Orthants(names, (), False)
    order = _order_pairs(parsed, free)
    # a pattern with a >= 0 >= b under a <= b holds only a = b = 0, a point of the pattern with b
    # '+' as well: nothing of its own to search (the symmetries keep the constraints, so whole
    # orbits go)
    patterns = [
        p
        for p in _orbit_representatives(len(free), _generators(parsed, free))
        if not any(p[i] > 0 and p[j] < 0 for i, j in order)
    ]
    return Orthants(names, tuple("".join("+" if v > 0 else "-" for v in p) for p in patterns), True)


def _order_pairs(parsed: ParsedProblem, free: list) -> list[tuple[int, int]]:
    """(i, j) for each constraint free[i] <= free[j] (or <, or written the other way round)."""
    index = {s: k for k, s in enumerate(free)}
    pairs = []
    for lhs, op, rhs in parsed.constraints:
        if lhs in index and rhs in index and op in ("<=", "<", ">=", ">"):
            small, large = (lhs, rhs) if op in ("<=", "<") else (rhs, lhs)
            pairs.append((index[small], index[large]))
    return pairs


def _generators(parsed: ParsedProblem, free: list) -> list:
    """The problem's exact symmetries, as functions on sign patterns (tuples of +1/-1 over free)."""
    base = canonical_forms(parsed, {})
    index = {s: i for i, s in enumerate(free)}
    out = []
    for s in free:
        if _symmetric_domain(parsed.domains[s]) and _symmetry(parsed, base, {s: -s}):
            out.append(lambda p, i=index[s]: p[:i] + (-p[i],) + p[i + 1 :])
    if (
        len(free) > 1
        and all(_symmetric_domain(parsed.domains[s]) for s in free)
        and _symmetry(parsed, base, {s: -s for s in free})
    ):
        out.append(lambda p: tuple(-v for v in p))
    by_name = {s.name: s for s in free}
    for group in groups(parsed):
        if all(n in by_name for n in group):
            members = [index[by_name[n]] for n in group]
            for i, j in zip(members, members[1:]):
                out.append(
                    lambda p, i=i, j=j: tuple(p[j] if k == i else p[i] if k == j else v for k, v in enumerate(p))
                )
    symbols = list(parsed.symbols)
    if len(symbols) > 2 and len(free) == len(symbols):
        shift = {s: symbols[(k + 1) % len(symbols)] for k, s in enumerate(symbols)}
        if (
            all(parsed.domains[s] == parsed.domains[symbols[0]] for s in symbols)
            and canonical_forms(parsed, shift) == base
        ):
            out.append(lambda p: p[-1:] + p[:-1])
    return out


def _orbit_representatives(n: int, generators: list) -> list[tuple]:
    """One pattern per orbit, each the first of its orbit in the order: fewest '-' signs first,
    then '+' before '-' variable by variable (so all '+' comes first)."""
    order = sorted(
        (tuple(-1 if (m >> (n - 1 - k)) & 1 else 1 for k in range(n)) for m in range(2**n)),
        key=lambda p: (sum(v < 0 for v in p), [-v for v in p]),
    )
    seen: set[tuple] = set()
    representatives = []
    for pattern in order:
        if pattern in seen:
            continue
        representatives.append(pattern)
        stack = [pattern]
        seen.add(pattern)
        while stack:
            current = stack.pop()
            for g in generators:
                image = g(current)
                if image not in seen:
                    seen.add(image)
                    stack.append(image)
    return representatives
