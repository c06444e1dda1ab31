"""The trusted checker: re-check any certificate without search, `verify(certificate, spec) ->
(ok, reason)`. It dispatches on the certificate's route (document.route_of: its kind and method)
through CHECKS, and imports checking code only, never a prover (verify/provers, routes.py,
certify.py, extrembench.verify.provers.refutation): what it trusts is what it reads here."""

from __future__ import annotations

import json
from fractions import Fraction

from extrembench.problems.problem import min_form_sign
from extrembench.verify.checker.bound import replay_plan, target_interval
from extrembench.verify.checker.document import (
    EPSILON,
    FORMAT,
    ROUTES,
    SPEC_KEYS,
    VERIFIER_VERSION,
    route_of,
    spec_problem,
)
from extrembench.verify.checker.empty import verify_empty
from extrembench.verify.checker.interval import Unsupported
from extrembench.verify.checker.numeric import verify as verify_numeric
from extrembench.verify.checker.point import checked as one_point_problem
from extrembench.verify.checker.reduce import needs_exact_level
from extrembench.verify.checker.refutation import verify_refutation
from extrembench.verify.checker.sos import verify as verify_sos
from extrembench.verify.checker.symmetry import checked as ordered_problem
from extrembench.verify.checker.trig import checked as substituted_problem
from extrembench.verify.checker.witness import check_witness, parse_witness

KINDS = tuple(dict.fromkeys(kind for kind, _ in ROUTES))


def _same_spec(embedded: dict, spec: dict | None) -> str | None:
    """spec: the problem row's fields (any subset of SPEC_KEYS); each given one must match."""
    if spec is None:
        return None
    for key in SPEC_KEYS:
        if key in spec and spec[key] is not None:
            mine, theirs = embedded.get(key), spec[key]
            if key == "constraints":
                # a conjunction: the check proves the canonical order (problem.canonical_problem),
                # the row keeps the file's; the body refers to the embedded spec's own order
                mine, theirs = sorted(mine or []), sorted(theirs or [])
            if mine != theirs:
                return f"the certificate's {key} {json.dumps(mine)} differs from the problem's {json.dumps(theirs)}"
    return None


def verify(certificate: dict | str, spec: dict | None = None) -> tuple[bool, str]:
    """(ok, reason). `spec` is the problem the certificate must be about; None checks the
    certificate on its own embedded spec."""
    try:
        doc = json.loads(certificate) if isinstance(certificate, str) else certificate
    except json.JSONDecodeError as exc:
        return False, f"not JSON: {exc}"
    if not isinstance(doc, dict):
        return False, "a certificate is a JSON object"
    kind = doc.get("kind")
    if kind in ("refutation", "unbounded"):
        return verify_refutation(doc, spec)
    if kind == "empty":
        return verify_empty(doc, spec)
    if doc.get("format") != FORMAT:
        return False, f"unknown format {doc.get('format')!r} (expected {FORMAT})"
    if doc.get("verifier") != VERIFIER_VERSION:
        return False, f"verifier version {doc.get('verifier')!r} is not {VERIFIER_VERSION}"
    mismatch = _same_spec(doc.get("spec") or {}, spec)
    if mismatch:
        return False, mismatch
    try:
        parsed = spec_problem(doc.get("spec"))
    except ValueError as exc:
        return False, str(exc)
    route = route_of(doc)
    if route not in CHECKS:
        return False, f"unknown certificate kind {kind!r} (known: {', '.join(KINDS)})"
    try:
        return CHECKS[route](doc, parsed)
    except (ValueError, TypeError, KeyError, ZeroDivisionError, Unsupported) as exc:
        return False, f"{kind}: malformed certificate: {type(exc).__name__}: {exc}"


class _Refused(Exception):
    """A shared precondition of a proof does not hold (its message is the reason as given)."""


def _proved_problem(doc: dict, parsed):
    """(the problem the proof is about, epsilon) after the checks a bound and an sos proof share:
    epsilon in range, the exact witness attains the answer, and any reduction the body records
    (a cos/sin substitution, sorted symmetric groups, a one-point set) re-derived from the spec. _Refused, or ValueError for a malformed reduction."""
    epsilon = Fraction(doc.get("epsilon", "x"))
    if not 0 <= epsilon <= EPSILON:
        raise _Refused(f"epsilon {epsilon} exceeds {EPSILON}")
    witness = parse_witness(parsed, doc.get("witness"))
    failure = check_witness(parsed, witness)
    if failure:
        raise _Refused(f"witness: {failure}")
    body = doc.get("body") or {}
    if "point" in body:
        return one_point_problem(parsed, body, witness, epsilon), epsilon
    if "substitution" in body:
        parsed = substituted_problem(parsed, body)
    if "ordered" in body:
        parsed = ordered_problem(parsed, body)
    return parsed, epsilon


def _check_sos(doc: dict, parsed) -> tuple[bool, str]:
    try:
        parsed, epsilon = _proved_problem(doc, parsed)
    except _Refused as exc:
        return False, str(exc)
    return verify_sos(doc, parsed, epsilon)


def _check_bound(doc: dict, parsed) -> tuple[bool, str]:
    try:
        parsed, epsilon = _proved_problem(doc, parsed)
    except _Refused as exc:
        return False, str(exc)
    plan = list((doc.get("body") or {}).get("plan") or [])
    if epsilon != 0 and needs_exact_level(parsed, plan):
        return False, (
            "bound: a normalised homogeneous objective of nonzero degree needs epsilon 0 (scaling "
            "multiplies any slack on the simplex without bound)"
        )
    target = target_interval(parsed, epsilon)
    body = doc.get("body") or {}
    failure, nodes = replay_plan(
        parsed, min_form_sign(parsed.sense) * parsed.answer, target, plan, body.get("trees"), body.get("variables")
    )
    if failure:
        return False, f"bound: {failure}"
    return (
        True,
        f"bound: {nodes} boxes prove the objective within {epsilon} (relative) of the answer; exact witness attains it",
    )


# route -> its check, given (certificate, the embedded spec parsed). Refutation routes are checked
# by checker.refutation.verify_refutation (their claim and sense first), through its own CHECKS.
CHECKS = {"bound": _check_bound, "sos": _check_sos, "numeric": verify_numeric}
