"""How a model missed: one class per graded sample of an extremal benchmark, decided by computation.

The classes and what proves each are defined in docs/metrics.md ("How models miss"). In short, for a
sample the grader scored wrong (or could not grade) whose answer reads as a real number c, with
gold g and sense min (max mirrors it):

- c < g: `beyond_extremum`, an impossible claim. The proof is the gold's certificate when it reaches
  that far (`sos`: f >= g exactly; `bound`: f >= g - eps, so only a gap past eps), else `numeric`;
- c > g: the first that holds of `suboptimal_attained` / `all_equal` (c is the objective at a
  feasible all-equal point: the symmetric baseline's point, in either sense), `wrong_sense_value`
  (c is the opposite sense's extremum, as the validator's search finds it), `suboptimal_attained` /
  `boundary` or `other_feasible` (c is the objective at a local optimum of the validator's search,
  re-checked at a 50-digit point, on the boundary or not), else `suboptimal_unexplained`.

Every match is a 50-digit comparison: to 1e-30 relative for an exact point, 1e-11 for a projected
one, and to the claim's own last decimal place when the claim is a decimal with 4 or more places
(the grader's rule). The computations are the validator's (extrembench/verify/numeric/claims.py), bounded by
work counts; a claim the computations cannot settle is `undecided`, with the reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from extrembench.generation.symmetric import symmetric_guess
from extrembench.grading.normalize import normalize_answer, normalize_unicode, strip_delimiters
from extrembench.problems.expr import ExpressionError, parse_expression
from extrembench.problems.latex import FormalizeError, latex_to_text
from extrembench.verify.checker.document import epsilon_abs
from extrembench.verify.numeric.claims import Landmarks, landmarks, opposite_sense, point_text, value_at
from extrembench.verify.numeric.search import HP_DIGITS, Effort, TimeCap

# The search behind the landmarks: the validator's default counts; the wall-clock cap is only the
# safety net (a sample that reaches it is `undecided`, reason "cap").
EFFORT = Effort(starts=14, iterations=150, time_cap_s=120.0)
MAX_CLAIM_LENGTH = 300  # longer answer texts are not read (unparsable): bounds the parser's work
EXACT_MATCH = sympy.Float("1e-30", HP_DIGITS)
PROJECTED_MATCH = sympy.Float("1e-11", HP_DIGITS)
EQUAL_TO_GOLD = sympy.Float("1e-40", HP_DIGITS)

# ---------------------------------------------------------------- reading a claim
# A set, an interval, infinity, a plus-minus, a union: not one real number.
_NON_REAL = re.compile(
    r"\\infty|∞|\binf(?:inity)?\b|\\cup|\\cap|\\emptyset|\\varnothing|\\mathbb|\\pm|\\mp|\\in\b|\\(?:to|rightarrow)\b"
    r"|^\s*[\[(\\{].*,.*[\])}]\s*$|\bdoes\s+not\s+exist\b|\bno\s+(?:minimum|maximum)\b|\bunbounded\b",
    re.IGNORECASE,
)
_SCIENTIFIC = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*(?:[eE]|\\times\s*10\^)\s*\{?\s*([+-]?\d{1,4})\s*\}?\s*$")
_DECIMAL = re.compile(r"^\s*[+-]?\d*\.(\d+)\s*$")


@dataclass(frozen=True)
class Claim:
    form: str  # number | non_real | unparsable
    value: sympy.Expr | None = None  # exact (a decimal is the rational it writes)
    tolerance: sympy.Float = sympy.Float(0)  # half-width the claim's own decimals allow
    why: str = ""


def read_claim(text: str | None, variables: list[str]) -> Claim:
    """The extracted answer as one exact real number, with the project's own parsers (nothing is
    evaluated as code); a set, interval, infinity, complex number or expression in the problem's
    variables is `non_real`; anything else they cannot read is `unparsable`."""
    if text is None or not text.strip():
        return Claim("unparsable", why="no answer text")
    if len(text) > MAX_CLAIM_LENGTH:
        return Claim("unparsable", why=f"answer longer than {MAX_CLAIM_LENGTH} characters")
    cleaned = strip_delimiters(normalize_answer(normalize_unicode(text), "number")).strip()
    if _NON_REAL.search(cleaned):
        return Claim("non_real", why=f"not a single real number: {cleaned[:80]}")
    scientific = _SCIENTIFIC.match(cleaned)
    if scientific:
        mantissa, exponent = Fraction(scientific.group(1)), int(scientific.group(2))
        value = sympy.Rational(mantissa.numerator, mantissa.denominator) * sympy.Integer(10) ** exponent
        return Claim("number", value, _decimal_tolerance(scientific.group(1), exponent))
    try:
        parsed = parse_expression(latex_to_text(cleaned, variables), variables)
    except (FormalizeError, ExpressionError, ValueError, RecursionError) as exc:
        return Claim("unparsable", why=f"{type(exc).__name__}: {str(exc)[:120]}")
    if parsed.free_symbols:
        return Claim("non_real", why=f"an expression in the variables: {cleaned[:80]}")
    value = sympy.N(parsed, HP_DIGITS)
    if not value.is_number or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return Claim("non_real", why=f"not a finite number: {cleaned[:80]}")
    real, imaginary = value.as_real_imag()
    if abs(imaginary) > EQUAL_TO_GOLD * (1 + abs(real)):
        return Claim("non_real", why=f"not real: {cleaned[:80]}")
    decimal = _DECIMAL.match(cleaned)
    return Claim("number", parsed, _decimal_tolerance(cleaned, 0) if decimal else sympy.Float(0))


def _decimal_tolerance(mantissa: str, exponent: int) -> sympy.Float:
    """A decimal with k >= 4 places stands for any value it rounds or truncates from: within
    10^-k (scaled by the exponent). Fewer places, or an integer, is taken as exact."""
    places = len(mantissa.partition(".")[2].strip())
    if places < 4:
        return sympy.Float(0)
    return sympy.Float(10, HP_DIGITS) ** (exponent - places)


# ---------------------------------------------------------------- what is known about a problem
@dataclass
class ProblemFacts:
    """One problem's gold, certificate and (lazily, once) its landmarks."""

    problem_id: str
    spec: dict | None
    gold: sympy.Expr | None
    certificate_kind: str | None
    epsilon: Fraction | None  # a bound certificate's relative slack
    seed: int
    all_equal: list[tuple[str, dict[str, sympy.Expr], sympy.Float]] = field(default_factory=list)
    _landmarks: Landmarks | None = None
    _all_equal_done: bool = False

    @property
    def variables(self) -> list[str]:
        return list(self.spec["variables"]) if self.spec else []

    def all_equal_points(self) -> list[tuple[str, dict[str, sympy.Expr], sympy.Float]]:
        """The symmetric baseline's all-equal point of each sense, checked feasible at 50 digits."""
        if not self._all_equal_done:
            self._all_equal_done = True
            for sense in (self.spec["sense"], opposite_sense(self.spec["sense"])):
                try:
                    guess = symmetric_guess({**self.spec, "sense": sense})
                except (ValueError, TypeError, ArithmeticError, sympy.PolynomialError):
                    guess = None
                if guess is None:
                    continue
                point = {name: guess.t for name in self.variables}
                value = value_at(self.spec, point)
                if value is not None:
                    self.all_equal.append((sense, point, value))
        return self.all_equal

    def landmarks(self) -> Landmarks:
        if self._landmarks is None:
            self._landmarks = landmarks(self.spec, seed=self.seed, effort=EFFORT)
        return self._landmarks


def problem_facts(row: dict, seed: int) -> ProblemFacts:
    """From a problems-table row: the spec, the gold as an exact number, the certificate's slack."""
    spec = json.loads(row["spec_json"]) if row.get("spec_json") else None
    gold = None
    if spec is not None and row.get("answer"):
        claim = read_claim(row["answer"], list(spec["variables"]))
        gold = claim.value if claim.form == "number" else None
    epsilon = None
    if row.get("certificate_kind") == "bound" and row.get("certificate"):
        epsilon = Fraction(json.loads(row["certificate"]).get("epsilon", "0"))
    return ProblemFacts(row["problem_id"], spec, gold, row.get("certificate_kind"), epsilon, seed)


# ---------------------------------------------------------------- the verdict
@dataclass(frozen=True)
class Verdict:
    miss_class: str
    kind: str | None = None  # suboptimal_attained: all_equal | boundary | other_feasible
    proof: str | None = None  # beyond_extremum: bound | sos | numeric; wrong_sense_value: search
    witness: dict[str, str] | None = None  # the exact (or 50-digit) feasible point
    claim_value: str | None = None  # the claim to 20 significant digits
    opposite_extremum: str | None = None
    reason: str = ""
    work: int = 0  # local searches and 50-digit re-checks spent on this sample


def _show(value: sympy.Expr) -> str:
    return sympy.sstr(sympy.Float(sympy.N(value, HP_DIGITS), 20))


def _matches(claim: Claim, value: sympy.Expr, exact_point: bool) -> bool:
    value = sympy.N(value, HP_DIGITS)
    tolerance = claim.tolerance + (EXACT_MATCH if exact_point else PROJECTED_MATCH) * (1 + abs(value))
    return bool(abs(sympy.N(claim.value, HP_DIGITS) - value) <= tolerance)


def classify_claim(claim: Claim, facts: ProblemFacts) -> Verdict:
    """The class of a wrong (or ungraded) answer that was extracted; see the module docstring."""
    if claim.form != "number":
        return Verdict(claim.form, reason=claim.why)
    shown = _show(claim.value)
    if facts.spec is None or facts.gold is None:
        return Verdict("undecided", claim_value=shown, reason="the problem has no machine-checkable spec and gold")
    sign = 1 if facts.spec["sense"] == "min" else -1
    claim_n, gold_n = sympy.N(claim.value, HP_DIGITS), sympy.N(facts.gold, HP_DIGITS)
    past = sign * (gold_n - claim_n)  # > 0: beyond the extremum
    if abs(past) <= claim.tolerance + EQUAL_TO_GOLD * (1 + abs(gold_n)):
        return Verdict(
            "undecided",
            claim_value=shown,
            reason="the claim equals the gold (to 40 digits, or to its own decimals): a grading fault to look at",
        )
    if past > 0:
        # exact where the claim and the gold are: a claim exactly at a bound's slack is not excluded by it
        return _beyond(facts, sign * (facts.gold - claim.value), shown)
    try:
        return _worse(claim, facts, shown)
    except TimeCap:
        return Verdict("undecided", claim_value=shown, reason=f"cap: the search passed {EFFORT.time_cap_s:g} s")


def _beyond(facts: ProblemFacts, past: sympy.Float, shown: str) -> Verdict:
    word = "below the minimum" if facts.spec["sense"] == "min" else "above the maximum"
    kind = facts.certificate_kind
    if kind == "sos":
        return Verdict(
            "beyond_extremum",
            proof="sos",
            claim_value=shown,
            reason=f"{word} by {_show(past)}: the gold's sos identity proves no feasible point gets past it",
        )
    if kind == "bound" and facts.epsilon is not None:
        slack = epsilon_abs(facts.epsilon, facts.gold)
        if bool(past > sympy.Rational(slack.numerator, slack.denominator)):
            return Verdict(
                "beyond_extremum",
                proof="bound",
                claim_value=shown,
                reason=f"{word} by {_show(past)}, more than the bound certificate's slack {float(slack):.3g}",
            )
        return Verdict(
            "beyond_extremum",
            proof="numeric",
            claim_value=shown,
            reason=f"{word} by {_show(past)}, within the bound certificate's slack {float(slack):.3g}: only the "
            "validator's search says no feasible point gets there",
        )
    return Verdict(
        "beyond_extremum",
        proof="numeric",
        claim_value=shown,
        reason=f"{word} by {_show(past)}; the gold carries only a numeric certificate",
    )


def _worse(claim: Claim, facts: ProblemFacts, shown: str) -> Verdict:
    for sense, point, value in facts.all_equal_points():
        if _matches(claim, value, not any(v.atoms(sympy.Float) for v in point.values())):
            where = "" if sense == facts.spec["sense"] else f" (the best all-equal point for {sense})"
            return Verdict(
                "suboptimal_attained",
                kind="all_equal",
                witness={k: point_text(v) for k, v in point.items()},
                claim_value=shown,
                reason=f"the objective at the feasible all-equal point{where}",
            )
    found = facts.landmarks()
    opposite = found.opposite
    opposite_text = _show(opposite.value) if opposite is not None else None
    if opposite is not None and _matches(claim, opposite.value, opposite.exact):
        return Verdict(
            "wrong_sense_value",
            proof="search",
            witness=opposite.point,
            claim_value=shown,
            opposite_extremum=opposite_text,
            reason=f"the {opposite.source}imum asked the other way: {found.opposite_note}",
            work=found.work,
        )
    for landmark in found.points:
        if _matches(claim, landmark.value, landmark.exact):
            where = f" ({landmark.detail})" if landmark.detail else ""
            return Verdict(
                "suboptimal_attained",
                kind=landmark.kind,
                witness=landmark.point,
                claim_value=shown,
                opposite_extremum=opposite_text,
                reason=f"the objective at a local {landmark.source}imum of the validator's search{where}",
                work=found.work,
            )
    return Verdict(
        "suboptimal_unexplained",
        claim_value=shown,
        opposite_extremum=opposite_text,
        reason=f"worse than the extremum; no all-equal point and none of the {len(found.points)} re-checked "
        "local optima of the search attains it",
        work=found.work,
    )


def witness_json(verdict: Verdict) -> str | None:
    return json.dumps(verdict.witness, sort_keys=True) if verdict.witness is not None else None
