"""The routes of a confirmed answer, in the order they are tried (ROUTES): the first proof wins,
so a problem an earlier route proves keeps that certificate. Each route is one prove function."""

from __future__ import annotations

from functools import partial

from extrembench.verify.checker.point import point_problem
from extrembench.verify.checker.symmetry import ordered
from extrembench.verify.provers.bound import prove_bound
from extrembench.verify.provers.route import Attempt, Decline, Proved, Route
from extrembench.verify.provers.sos import attempt as sos_attempt
from extrembench.verify.provers.sos import size as sos_size
from extrembench.verify.provers.symmetry import sorted_witness

MAX_SUBSTITUTED = 4  # a work bound: 5-10 cos variables (Putnam 2018 A3 family) spent 25-60 s failing the box budget


def sos(attempt: Attempt) -> Proved | Decline:
    body, why = sos_attempt(attempt.proof, attempt.exact)
    if body is None:
        return Decline(f"sos: {why}")
    return Proved("sos", {**body, **attempt.extra}, sos_size(body))


def bound(attempt: Attempt) -> Proved | Decline:
    if attempt.steps and len(attempt.steps) > MAX_SUBSTITUTED:
        return Decline(
            f"bound: {len(attempt.steps)} substituted variables (the box search after a cos/sin substitution is "
            f"tried up to {MAX_SUBSTITUTED}: past that {attempt.max_nodes} boxes did not close)"
        )
    body, why = prove_bound(attempt.proof, attempt.exact, attempt.proof_approx, attempt.max_nodes)
    if body is None:
        return Decline(f"bound: {why}")
    epsilon = body.pop("epsilon")
    return Proved("bound", {**body, **attempt.extra}, sum(len(t) for t in body["trees"]), epsilon)


def sos_squared(attempt: Attempt) -> Proved | Decline:
    # on the spec itself, not the substituted problem
    body, why = sos_attempt(attempt.parsed, attempt.exact, squared=True)
    if body is None:
        return Decline(f"sos, squared: {why}")
    return Proved("sos", body, sos_size(body))


def sos_ordered(attempt: Attempt, squared: bool) -> Proved | Decline:
    """Sorted copies of a symmetric group: Max/Min become its ends, Abs differences fixed signs."""
    chains = attempt.chains
    if not chains:
        return Decline(None)
    body, why = sos_attempt(ordered(attempt.proof, chains), sorted_witness(attempt.exact, chains), squared=squared)
    if body is None:
        return Decline(f"sos, ordered{', squared' if squared else ''}: {why}")
    return Proved("sos", {**body, **attempt.extra, "ordered": chains}, sos_size(body))


MAX_ORDERED_BOUND = 6  # a work bound: 8 sorted variables (ineq-0174) spent 49 s failing the box budget


def bound_ordered(attempt: Attempt) -> Proved | Decline:
    """The box search on sorted copies of each symmetric group: every optimum's copies but one
    leave the box, and so does most of it (1/n! of a group of n)."""
    chains = attempt.chains
    if not chains:
        return Decline(None)
    if len(attempt.proof.symbols) > MAX_ORDERED_BOUND:
        return Decline(
            f"bound, ordered: {len(attempt.proof.symbols)} variables (tried up to {MAX_ORDERED_BOUND}: past that "
            f"{attempt.max_nodes} boxes did not close)"
        )
    if attempt.steps and len(attempt.steps) > MAX_SUBSTITUTED:
        return Decline(None)  # the unsorted bound route declined it already, naming why
    body, why = prove_bound(
        ordered(attempt.proof, chains),
        sorted_witness(attempt.exact, chains),
        _sorted_values(attempt.proof_approx, chains),
        attempt.max_nodes,
    )
    if body is None:
        return Decline(f"bound, ordered: {why}")
    epsilon = body.pop("epsilon")
    return Proved("bound", {**body, **attempt.extra, "ordered": chains}, sum(len(t) for t in body["trees"]), epsilon)


def _sorted_values(values: dict[str, float], chains: list[list[str]]) -> dict[str, float]:
    """The witness's float values in the proof's variables, sorted along each chain (its anchor
    in the sorted box: after a cos substitution the order of the values is not the angles' order)."""
    out = dict(values)
    for chain in chains:
        out.update(zip(chain, sorted(values[n] for n in chain)))
    return out


def sos_extended(attempt: Attempt) -> Proved | Decline:
    """Issue 26's sos attempts (sos_search.attempt `extended`): signed denominators, Max pieces,
    retried solves and faces, witness scaling, lifted multipliers; then, for an irrational answer,
    the square target with far-side answers. Last, so every other route keeps its certificates."""
    if attempt.parsed.answer.is_Rational:
        body, why = sos_attempt(attempt.proof, attempt.exact, extended=True)
        if body is None:
            return Decline(f"sos, extended: {why}")
        return Proved("sos", {**body, **attempt.extra}, sos_size(body))
    body, why = sos_attempt(attempt.parsed, attempt.exact, squared=True, extended=True)
    if body is None:
        return Decline(f"sos, extended, squared: {why}")
    return Proved("sos", body, sos_size(body))


ROUTES = (
    Route("sos", "sos", sos),
    Route("bound", "bound", bound),
    # after bound, so a problem bound already proves keeps its certificate
    Route("sos, squared", "sos", sos_squared),
    # last: the symmetric groups are found only when nothing simpler closes
    Route("sos, ordered", "sos", partial(sos_ordered, squared=False)),
    Route("sos, ordered, squared", "sos", partial(sos_ordered, squared=True)),
    # issue 26's wider attempts, after all of the above so their certificates keep their bytes
    Route("sos, extended", "sos", sos_extended),
    # the box search on sorted groups, after every sos attempt: what sos proves keeps its certificate
    Route("bound, ordered", "bound", bound_ordered),
)


def sos_point(attempt: Attempt) -> Proved | Decline:
    """The feasible set is the witness alone (checker/point.py): sum (v - w_v)^2 <= 0 on it."""
    body, why = sos_attempt(point_problem(attempt.parsed, attempt.exact), attempt.exact)
    if body is None:
        return Decline(f"sos, one point: {why}")
    return Proved("sos", {**body, "point": True}, sos_size(body))


# Tried only where float points beat a claim an exact witness attains (validate.py): everywhere
# else a one-point set is rare and the attempt would only cost time
POINT_ROUTES = (Route("sos, one point", "sos", sos_point),)
