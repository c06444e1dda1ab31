"""The certificate as data: canonical JSON (sorted keys, exact numbers as strings) embedding the
spec it proves, so it can be re-checked alone; the spec is read back with the safe parser."""

from __future__ import annotations

import dataclasses
import json
import math
from fractions import Fraction

from extrembench.problems.problem import Problem, ProblemError, parse_problem

FORMAT = "extrembench-certificate/1"
VERIFIER_VERSION = "10"  # 2: float-interval replay; 3: epsilon 0 after normalising a homogeneous objective;
# 4: acos/asin witnesses, real coordinates, sos blocks times inequalities, Polya powers; 5: bound steps (concave ends,
# constraint-monotone faces, Taylor tails, exact anchors); 6: branch-and-bound refutations retired;
# 7: cos/sin substitutions; 8: sos targets K - (objective - a)^2, Abs signs fixed by x <= y chains or a symmetric
# problem's sorting, sorted symmetric groups (body.ordered); 9: sos denominators of no sign by their coefficients
# (body.denominator: a Gram block, or "cleared"), the two sides of |p| <= q constraints (after the domain ends),
# Polya sums with free variables squared, square targets on any denominator, far-side answers (body.level),
# weighted pieces of a Max objective (body.weights), lifted multipliers (1 + sum)^k (body.lift); 10: bound tangent
# leaves (c, l) split off the box faces a KKT point sits on (local.split_plane), cleared-form leaves (q), wider
# normalisation (homogeneous inequalities, degree 0 on nonnegative variables)
EPSILON = Fraction(1, 10**9)  # relative: the bound proven is answer - EPSILON * max(1, ceil|answer|)
SPEC_KEYS = ("sense", "variables", "constraints", "objective", "answer")


def canonical(certificate: dict) -> str:
    return json.dumps(certificate, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def embed_spec(problem: Problem) -> dict:
    return {
        "sense": problem.sense,
        "variables": dict(problem.variables),
        "constraints": list(problem.constraints),
        "objective": problem.objective,
        "answer": problem.answer,
    }


def spec_problem(spec: dict):
    """The embedded spec as a parsed problem (safe parser only); raises ValueError."""
    if not isinstance(spec, dict) or set(spec) != set(SPEC_KEYS):
        raise ValueError(f"certificate spec must have exactly the keys {', '.join(SPEC_KEYS)}")
    if not isinstance(spec["variables"], dict) or not isinstance(spec["constraints"], list):
        raise ValueError("certificate spec: variables must be a mapping and constraints a list")
    problem = Problem(
        id="certificate",
        sense=spec["sense"],
        variables={str(k): str(v) for k, v in spec["variables"].items()},
        constraints=tuple(str(c) for c in spec["constraints"]),
        objective=str(spec["objective"]),
        answer=str(spec["answer"]),
    )
    if problem.sense not in ("min", "max"):
        raise ValueError("certificate spec: sense must be min or max")
    try:
        return parse_problem(problem)
    except ProblemError as exc:
        raise ValueError(f"certificate spec does not parse: {exc}") from None


def epsilon_abs(epsilon: Fraction, answer) -> Fraction:
    """The absolute slack proven: epsilon * max(1, ceil|answer|), an exact rational."""

    magnitude = abs(float(answer.evalf(30)))
    return epsilon * max(1, math.ceil(magnitude))


# The route of a certificate, from the fields every certificate has always carried (kind, and a
# refutation's method): the one table the checker dispatches on. A route field of its own would
# change the bytes of every shipped certificate.
ROUTES = {
    ("bound", None): "bound",
    ("sos", None): "sos",
    ("numeric", None): "numeric",
    ("refutation", "witness"): "refutation witness",
    ("refutation", "bound"): "refutation bound",
    ("refutation", "sos"): "refutation sos",
    ("refutation", "scaling"): "refutation scaling",
    ("unbounded", None): "unbounded",
}


def route_of(certificate: dict) -> str | None:
    """The certificate's route, or None for a kind (or refutation method) no route writes."""
    method = certificate.get("method") if certificate.get("kind") == "refutation" else None
    key = (certificate.get("kind"), method)
    return ROUTES.get(key) if isinstance(key[0], str) and (method is None or isinstance(method, str)) else None


def in_recorded_order(parsed, recorded):
    """The problem with its variables in the order a certificate records them (sos exponent tuples,
    bound box coordinates). The order is not part of the problem: a spec read back from a Parquet
    row has its variables in sorted order ({p, s}, {u, v, w, x}) while the prover saw the file's
    ({s, p}, {x, u, v, w}). Anything but a permutation of the names leaves the problem as it is,
    for the route's own comparison to refuse."""
    names = [str(s) for s in parsed.symbols]
    if not isinstance(recorded, list) or recorded == names or sorted(map(str, recorded)) != sorted(names):
        return parsed
    by_name = {str(s): s for s in parsed.symbols}
    return dataclasses.replace(parsed, symbols=tuple(by_name[name] for name in recorded))
