"""Build the certificate of a confirmed answer: try the routes in order (routes.ROUTES), within
count limits, and fall back to `numeric`. Deterministic: same problem and witness give the same bytes."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from fractions import Fraction

from extrembench.problems.problem import Problem
from extrembench.verify.blas import one_blas_thread
from extrembench.verify.checker.document import FORMAT, VERIFIER_VERSION, canonical, embed_spec, spec_problem
from extrembench.verify.provers.bound import MAX_NODES
from extrembench.verify.provers.route import Attempt, Decline, Route
from extrembench.verify.provers.routes import ROUTES
from extrembench.verify.provers.witness import find_witness, witness_text

log = logging.getLogger(__name__)


def _document(
    problem: Problem, kind: str, witness: dict[str, str] | None, body: dict, size: int, epsilon: Fraction | None = None
) -> dict:
    doc = {
        "format": FORMAT,
        "verifier": VERIFIER_VERSION,
        "kind": kind,
        "spec": embed_spec(problem),
        "witness": witness,
        "size": size,
        "body": body,
    }
    if kind in ("bound", "sos"):
        doc["epsilon"] = str(epsilon) if kind == "bound" else "0"  # sos identities are exact
    return doc


def _numeric_body(
    witness_exact: dict | None, witness_float: dict[str, float] | None, reason: str, components: dict | None = None
) -> dict:
    """What the search alone establishes: the witness (exact when one was found), the reason, and
    (when a variable has no sign) which sign orthants the search visited."""
    body = (
        {"exact": True, "reason": reason}
        if witness_exact is not None
        else {
            "exact": False,
            "reason": reason,
            "approximate_witness": {k: repr(float(v)) for k, v in sorted((witness_float or {}).items())},
        }
    )
    if components is not None:
        body["components"] = components
    return body


@one_blas_thread
def certify(
    problem: Problem,
    witness: dict[str, float] | None,
    reason: str = "",
    max_nodes: int = MAX_NODES,
    routes: Sequence[Route] = ROUTES,
    components: dict | None = None,
) -> dict:
    """The certificate (a dict; `canonical` gives its bytes) of a confirmed problem: the first of
    `routes` that proves it, else numeric. Never raises: a failure inside a proof attempt leaves
    the numeric certificate, with the error named."""
    try:
        return _certify(problem, witness, reason, max_nodes, routes, components)
    except Exception as exc:  # a certifier bug must not stop validation; it is reported, not hidden
        body = _numeric_body(None, witness, reason, components)
        body["not_certified"] = f"the certifier failed: {type(exc).__name__}: {exc}"
        return _document(problem, "numeric", None, body, 1)


def _certify(
    problem: Problem, witness, reason: str, max_nodes: int, routes: Sequence[Route], components: dict | None
) -> dict:
    parsed = spec_problem(embed_spec(problem))
    approx = {k: float(v) for k, v in (witness or {}).items()}
    exact = find_witness(parsed, approx) if approx else None
    notes = []
    if exact is not None:
        attempt = Attempt(parsed, exact, approx, max_nodes)
        for route in routes:
            result = route.prove(attempt)
            if not isinstance(result, Decline):
                return _document(problem, result.kind, witness_text(exact), result.body, result.size, result.epsilon)
            if result.reason is not None:
                notes.append(result.reason)
    else:
        notes.append("no exact witness found")
    body = _numeric_body(exact, approx, reason, components)
    body["not_certified"] = "; ".join(notes)
    log.info("%s: numeric certificate only (%s)", problem.id, body["not_certified"])
    return _document(problem, "numeric", witness_text(exact) if exact else None, body, 1)


def certificate_json(certificate: dict | None) -> str | None:
    return canonical(certificate) if certificate is not None else None
