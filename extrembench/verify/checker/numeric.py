"""Checking `numeric` certificates (built in certify.py): what the search alone establishes (the
validator's level) — a witness attaining the answer (exact when one was found), with no proof
that nothing is better."""

from __future__ import annotations

from fractions import Fraction

import sympy

from extrembench.verify.checker.witness import check_witness, parse_witness


def _components_failure(body: dict, parsed) -> str | None:
    """body.components, when present (the search's record of the sign orthants it visited, written
    for problems with variables of no fixed sign): it must name exactly those variables, list the
    orthants visited as sign patterns, and say the search covered them all."""
    if "components" not in body:
        return None
    record = body["components"]
    free = [
        s.name
        for s in parsed.symbols
        if (parsed.domains[s].lo is None or parsed.domains[s].lo < 0)
        and (parsed.domains[s].hi is None or parsed.domains[s].hi > 0)
    ]
    # the sign patterns follow the certificate's own order of these names: a spec read back from
    # Parquet has its variables in sorted order (a1, a10, a2, ...), not the file's
    named = record.get("free") if isinstance(record, dict) else None
    if not isinstance(named, list) or len(named) != len(free) or set(named) != set(free):
        return f"numeric: components must name the sign-free variables {free}"
    visited = record.get("visited")
    if (
        not isinstance(visited, list)
        or not visited
        or not all(isinstance(p, str) and len(p) == len(free) and set(p) <= {"+", "-"} for p in visited)
    ):
        return "numeric: components.visited must list sign patterns of the sign-free variables"
    if record.get("complete") is not True:
        return "numeric: the search did not cover every sign orthant (components.complete is not true)"
    return None


def verify(certificate: dict, parsed) -> tuple[bool, str]:
    body = certificate.get("body") or {}
    failure = _components_failure(body, parsed)
    if failure:
        return False, failure
    if body.get("exact"):
        point = parse_witness(parsed, certificate.get("witness"))
        failure = check_witness(parsed, point)
        if failure:
            return False, f"numeric: witness: {failure}"
        return True, "numeric: exact witness attains the answer; optimality rests on the numeric search only"
    approx = body.get("approximate_witness")
    if not isinstance(approx, dict) or set(approx) != {str(s) for s in parsed.symbols}:
        return False, "numeric: no witness"
    try:
        point = {s: sympy.Rational(Fraction(str(approx[str(s)]))) for s in parsed.symbols}
    except (ValueError, ZeroDivisionError):
        return False, "numeric: approximate witness is not a list of decimal numbers"
    value = parsed.objective.subs(point).evalf(50)
    if not value.is_real or abs(value - parsed.answer.evalf(50)) > 1e-6 * (1 + abs(parsed.answer.evalf(20))):
        return False, "numeric: the approximate witness does not reach the answer"
    return True, "numeric: approximate witness reaches the answer to 1e-6; nothing is proven exactly"
