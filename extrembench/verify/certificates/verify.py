"""Re-check any certificate without search: `verify(certificate, spec) -> (ok, reason)`."""

from __future__ import annotations

import json
from fractions import Fraction

from extrembench.problems.problem import min_form_sign
from extrembench.verify.certificates import bound, numeric
from extrembench.verify.certificates.document import EPSILON, FORMAT, SPEC_KEYS, VERIFIER_VERSION, spec_problem
from extrembench.verify.certificates.interval import Unsupported, compile_enclosure, point
from extrembench.verify.certificates.reduce import PlanError, apply_plan, needs_exact_level
from extrembench.verify.certificates.witness import check_witness, parse_witness

KINDS = ("bound", "sos", "numeric", "refutation", "unbounded")


def _same_spec(embedded: dict, spec: dict | None) -> str | None:
    """spec: the problem row's fields (any subset of SPEC_KEYS); each given one must match."""
    if spec is None:
        return None
    for key in SPEC_KEYS:
        if key in spec and spec[key] is not None:
            mine, theirs = embedded.get(key), spec[key]
            if key == "constraints":
                mine, theirs = list(mine or []), list(theirs or [])
            if mine != theirs:
                return f"the certificate's {key} {json.dumps(mine)} differs from the problem's {json.dumps(theirs)}"
    return None


def verify(certificate: dict | str, spec: dict | None = None) -> tuple[bool, str]:  # noqa: C901 — the trusted checker's dispatch over certificate kinds (the route interface replaces it)
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
        from extrembench.verify.refutation import verify_refutation  # the validator's exact refutations

        return verify_refutation(doc, spec)
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
    try:
        if kind == "numeric":
            return numeric.verify(doc, parsed)
        if kind not in ("bound", "sos"):
            return False, f"unknown certificate kind {kind!r} (known: {', '.join(KINDS)})"
        epsilon = Fraction(doc.get("epsilon", "x"))
        if not 0 <= epsilon <= EPSILON:
            return False, f"epsilon {epsilon} exceeds {EPSILON}"
        witness = parse_witness(parsed, doc.get("witness"))
        failure = check_witness(parsed, witness)
        if failure:
            return False, f"witness: {failure}"
        if "substitution" in (doc.get("body") or {}):
            from extrembench.verify.certificates import trig

            parsed = trig.checked(parsed, doc["body"])
        if "ordered" in (doc.get("body") or {}):
            from extrembench.verify.certificates import symmetry

            parsed = symmetry.checked(parsed, doc["body"])
        if kind == "bound":
            return _verify_bound(doc, parsed, epsilon)
        from extrembench.verify.certificates import sos

        return sos.verify(doc, parsed, epsilon)
    except (ValueError, TypeError, KeyError, ZeroDivisionError, Unsupported) as exc:
        return False, f"{kind}: malformed certificate: {type(exc).__name__}: {exc}"


def _verify_bound(doc: dict, parsed, epsilon: Fraction) -> tuple[bool, str]:
    from extrembench.verify.certificates.certify import target_interval

    body = doc.get("body") or {}
    sign = min_form_sign(parsed.sense)
    try:
        branches = apply_plan(parsed, sign * parsed.answer, list(body.get("plan") or []))
    except PlanError as exc:
        return False, f"bound: plan: {exc}"
    if epsilon != 0 and needs_exact_level(parsed, list(body.get("plan") or [])):
        return False, (
            "bound: a normalised homogeneous objective of nonzero degree needs epsilon 0 (scaling "
            "multiplies any slack on the simplex without bound)"
        )
    trees = body.get("trees")
    if not isinstance(trees, list) or len(trees) != len(branches):
        return False, f"bound: {len(branches)} branches need as many proof trees"
    target = target_interval(parsed, epsilon)
    for k, (branch, tokens) in enumerate(zip(branches, trees)):
        try:
            bound.replay(branch, target, [str(t) for t in tokens])
        except bound.BoundFailure as exc:
            return False, f"bound: branch {k}: {exc}"
    for extra in branches[0].extra_points if branches else ():
        try:
            value = compile_enclosure(sign * parsed.objective, list(extra))([point(0)] * len(extra))
        except (ArithmeticError, ValueError):
            continue  # undefined there: not a feasible point
        if not value.a >= target.b:
            return False, "bound: the origin is below the answer"
    nodes = sum(len(t) for t in trees)
    return (
        True,
        f"bound: {nodes} boxes prove the objective within {epsilon} (relative) of the answer; exact witness attains it",
    )
