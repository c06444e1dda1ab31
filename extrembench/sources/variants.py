"""Fresh variants of a confirmed extremal problem, to tell solving from recalling.

Kinds (docs/metrics.md, "Variants"):
- `constants`: constants of a constraint or of the objective change, and the new answer is
  re-derived, then confirmed by the validator (check_problem). Techniques, tried in this order:
  `homogeneity` (objective and constraints homogeneous, a constraint `g = c` rescaled: the
  optimum scales by a known power, exactly), `stationary` (one constant changed; the validator's
  numeric search finds the optimum, whose point is made exact: snapped to small rationals, or the
  optimality condition of the problem reduced to its equal-value classes solved exactly by sympy).
  A candidate whose answer equals the parent's, that a cheap guess answers (checked before the
  validator, by the caller's `guessed`), whose answer cannot be made exact, or that the validator
  does not confirm is dropped with the reason recorded; a guessed one is followed by its twin
  `scaled variable (...)` (one variable written k·v: same answer, off the guesses). Last resort,
  tried only after those: `affine` (objective → k·objective + m, answer → k·answer + m, exactly).
- `rename`: variables renamed (a seeded permutation into a fresh alphabet) and constraints
  reordered; same answer. Checked by evaluating the renamed objective at the parent's witness.
- `rephrase`: the same spec in another of a few fixed phrasings; same answer.

Every expression is rewritten at the token level of extrembench.problems.expr and parsed back with it:
nothing is ever sympified or evaluated from text.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import sympy

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.core.seeds import name_digest
from extrembench.problems import snapping
from extrembench.problems.expr import RELATION_OPS, parse_expression, tokenize
from extrembench.problems.problem import Problem, load_problem, parse_domain, parse_problem
from extrembench.problems.statement import (
    constraints_latex,
    domain_phrase,
    gold_text,
    render_statement,
    variable_groups,
)
from extrembench.verify.checker.document import VERIFIER_VERSION
from extrembench.verify.provers.certify import certificate_json

log = logging.getLogger(__name__)

KINDS = ("constants", "rename", "rephrase")
# Candidates tried per requested variant of a kind: bounds the work by counts, not by time.
ATTEMPTS_PER_VARIANT = 3
# Candidates a cheap guess answers cost no validation, so they do not count as attempts; this
# bounds how many of them one round may skip before it gives up (a count, as the attempts are).
GUESSED_PER_ROUND = 12
SCALE_FACTORS = (Fraction(2), Fraction(3), Fraction(1, 2), Fraction(3, 2), Fraction(2, 3))
SCALE_INVARIANT_DOMAINS = ("positive", "nonnegative", "real")
# Fresh alphabets for `rename`, tried in a seeded order; one whose names overlap the parent's is skipped.
ALPHABETS = (
    ("x", "y", "z", "w", "v"),
    ("p", "q", "r", "s", "t"),
    ("u", "v", "w", "s", "t"),
    ("a", "b", "c", "d", "e"),
    ("m", "n", "k", "l", "j"),
    ("x_1", "x_2", "x_3", "x_4", "x_5"),
)
MAX_STATIONARY_DEGREE = 12  # numerator degree of the reduced optimality condition we solve exactly
MAX_VALUE_OPS = 120  # operations of an exact optimum value before it is simplified (an answer a reader can read)


@dataclass
class Candidate:
    """One attempted variant; `status` is 'confirmed' or 'dropped' (with `drop_reason`)."""

    parent_id: str
    kind: str
    index: int
    technique: str
    problem: Problem | None
    transformation: list[dict] = field(default_factory=list)  # [{"field", "old", "new"}]
    status: str = "dropped"
    drop_reason: str | None = None
    validation_status: str | None = None
    validation_reason: str | None = None
    best_value: float | None = None
    witness: dict | None = None
    certificate: dict | None = None  # the validator's, for a `constants` variant it confirmed
    guessed_by: str | None = None  # the cheap guess that answers it (then dropped unvalidated)

    @property
    def variant_id(self) -> str:
        return f"{self.parent_id}~{self.kind}-{self.index}"

    def transformation_text(self) -> str:
        return "; ".join(f"{t['field']}: {t['old']} → {t['new']}" for t in self.transformation)


def content_hash(problem: Problem) -> str:
    """sha256 of the variant's own content (spec, answer, statement), canonical JSON."""
    payload = {
        "sense": problem.sense,
        "variables": problem.variables,
        "constraints": list(problem.constraints),
        "objective": problem.objective,
        "answer": problem.answer,
        "statement": problem.statement,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def seeded(seed: int, *names: str) -> random.Random:
    digest = name_digest(seed, *names)
    return random.Random(int.from_bytes(digest[:8], "little"))


def in_share(problem_id: str, share: float, seed: int) -> bool:
    """Whether a problem is among the `share` varied: its id's hash, as a fraction, below share."""
    digest = name_digest(seed, "share", problem_id)
    return int.from_bytes(digest[:8], "little") / 2**64 < share


# ---------------------------------------------------------------- token-level rewriting
def _rewrite_names(text: str, mapping: dict[str, str]) -> str:
    """The text with every variable name token replaced at once (so a→b, b→a swaps cleanly)."""
    out, last = [], 0
    for token in tokenize(text):
        if token.kind == "name" and token.text in mapping:
            start = token.column - 1
            out += [text[last:start], mapping[token.text]]
            last = start + len(token.text)
    return "".join(out) + text[last:]


def _number_tokens(text: str) -> list[tuple[int, str]]:
    """(start, text) of the integer literals in `text` that are not exponents (changing an
    exponent changes the problem's family, not its constants)."""
    tokens = tokenize(text)
    found = []
    for i, token in enumerate(tokens):
        previous = tokens[i - 1] if i else None
        if (
            token.kind == "num"
            and token.text.isdigit()
            and not (previous is not None and previous.kind == "op" and previous.text in ("^", "**"))
        ):
            found.append((token.column - 1, token.text))
    return found


def _replace_at(text: str, start: int, old: str, new: str) -> str:
    assert text[start : start + len(old)] == old
    return text[:start] + new + text[start + len(old) :]


def _split_relation(text: str) -> tuple[str, str, str]:
    """(lhs text, operator text, rhs text) of a constraint, split at its relation token."""
    for token in tokenize(text):
        if token.kind == "op" and token.text in RELATION_OPS:
            start = token.column - 1
            return text[:start].strip(), token.text, text[start + len(token.text) :].strip()
    raise ValueError(f"{text!r} has no relation operator")


def _with_field(problem: Problem, field_name: str, text: str) -> Problem:
    """The problem with its `objective` or `constraints[i]` replaced by `text`."""
    if field_name == "objective":
        return replace(problem, objective=text)
    constraints = list(problem.constraints)
    constraints[int(field_name.removeprefix("constraints[").removesuffix("]"))] = text
    return replace(problem, constraints=tuple(constraints))


# ---------------------------------------------------------------- constants: homogeneity
def homogeneous_degree(expr: sympy.Expr, symbols: Sequence[sympy.Symbol], rng: random.Random) -> Fraction | None:
    """The degree d with expr(s·x) = s^d · expr(x) for s > 0, or None. Found from exact values at
    three seeded rational points and two scale factors, at 40 digits; a wrong answer here can
    only produce a variant the validator then refutes (and it is dropped)."""
    if not symbols:
        return None
    degree = None
    for _ in range(3):
        point = {s: sympy.Rational(rng.randint(2, 19), rng.randint(2, 7)) for s in symbols}
        base = sympy.N(expr.subs(point), 40)
        if not base.is_number or not base.is_finite or abs(base) < 1e-30 or not base.is_real:
            return None
        for factor in (2, 3):
            scaled = sympy.N(expr.subs({s: factor * v for s, v in point.items()}), 40)
            if not scaled.is_real or scaled / base <= 0:
                return None
            estimate = Fraction(float(sympy.log(scaled / base) / sympy.log(factor))).limit_denominator(12)
            if abs(float(sympy.log(scaled / base) / sympy.log(factor)) - float(estimate)) > 1e-20 + 1e-12:
                return None
            if degree is None:
                degree = estimate
            elif estimate != degree:
                return None
    return degree


def homogeneity_candidates(problem: Problem, rng: random.Random) -> list[tuple[str, list[dict], Problem]]:
    """Rescaled versions of one constraint `g = c` (c a number, g homogeneous of degree d ≠ 0):
    c → c·s^d, answer → answer·s^e (e the objective's degree). Needs scale-invariant domains and
    every other constraint homogeneous; none otherwise."""
    if any(d.strip() not in SCALE_INVARIANT_DOMAINS for d in problem.variables.values()):
        return []
    parsed = parse_problem(problem)
    symbols = parsed.symbols
    e = homogeneous_degree(parsed.objective, symbols, rng)
    if e is None or e == 0:
        return []
    scalable, degrees = [], {}
    for i, (lhs, op, rhs) in enumerate(parsed.constraints):
        if op == "=" and (lhs.is_number ^ rhs.is_number) and not (lhs if lhs.is_number else rhs).is_zero:
            d = homogeneous_degree(rhs if lhs.is_number else lhs, symbols, rng)
            if d is not None and d != 0:
                scalable.append(i)
                degrees[i] = d
                continue
        # any other constraint must be homogeneous as a whole (lhs - rhs of a single degree)
        if homogeneous_degree(lhs - rhs, symbols, rng) is None:
            return []
    if len(scalable) != 1:
        return []  # two fixed scales (a+b+c = 3 and abc = 1) cannot both be rescaled this way
    i = scalable[0]
    d = degrees[i]
    lhs, op, rhs = parsed.constraints[i]
    constant = lhs if lhs.is_number else rhs
    lhs_text, op_text, rhs_text = _split_relation(problem.constraints[i])
    out = []
    factors = list(SCALE_FACTORS)
    rng.shuffle(factors)
    for s in factors:
        s_sym = sympy.Rational(s.numerator, s.denominator)
        new_constant = sympy.nsimplify(constant * s_sym ** sympy.Rational(d.numerator, d.denominator))
        if not new_constant.is_Rational:
            continue  # keep constraint constants rational: s^d irrational for fractional d
        new_answer = sympy.radsimp(parsed.answer * s_sym ** sympy.Rational(e.numerator, e.denominator))
        text = f"{lhs_text} {op_text} {new_constant}" if rhs.is_number else f"{new_constant} {op_text} {rhs_text}"
        variant = replace(_with_field(problem, f"constraints[{i}]", text), answer=str(new_answer))
        transformation = [
            {"field": f"constraints[{i}]", "old": problem.constraints[i], "new": text},
            {
                "field": "answer",
                "old": problem.answer,
                "new": variant.answer,
                "why": f"homogeneous: degree {d} constraint, degree {e} objective, scale {s}",
            },
        ]
        out.append(("homogeneity", transformation, variant))
    return out


def scaled_variable(
    parent: Problem, candidate: Candidate, rng: random.Random, guessed: Callable[[Problem], str | None]
) -> tuple[str, list[dict], Problem] | None:
    """The twin of a `constants` candidate that a cheap guess answers: one variable v written k·v
    everywhere (k = 2 or 3) and v's domain divided by k: the same problem in the variable v/k, so
    the optimum value is the same, at a
    point whose v is divided by k, so an optimum the guesses find (all equal, one at an edge)
    moves off it while the answer stays exact. The variables are tried in a seeded order; the
    first twin no cheap guess answers is returned, None when there is none."""
    problem = candidate.problem
    names = list(problem.variables)
    rng.shuffle(names)
    for name in names:
        k = rng.choice((2, 3))
        domain = _scaled_domain(problem.variables[name], k)
        if domain is None:
            continue
        mapping = {name: f"({k}*{name})"}
        twin = replace(
            problem,
            variables={**problem.variables, name: domain},
            objective=_rewrite_names(problem.objective, mapping),
            constraints=tuple(_rewrite_names(text, mapping) for text in problem.constraints),
            statement=None,
        )
        if guessed(twin):
            continue
        fields = [("objective", parent.objective, twin.objective), ("variables", parent.variables, twin.variables)]
        fields += [(f"constraints[{i}]", *pair) for i, pair in enumerate(zip(parent.constraints, twin.constraints))]
        why = f"the variant {candidate.transformation_text()}, with {name} written {k}*{name} (same optimum value)"
        transformation = [{"field": f, "old": str(old), "new": str(new)} for f, old, new in fields if old != new]
        transformation.append({"field": "answer", "old": parent.answer, "new": problem.answer, "why": why})
        return f"scaled variable ({candidate.technique})", transformation, twin
    return None


def _scaled_domain(text: str, k: int) -> str | None:
    """The domain of v where the old domain is that of k·v: a scale-invariant word unchanged, a
    finite interval's ends divided by k; None for an interval with an infinite end (kept simple)."""
    if text.strip() in SCALE_INVARIANT_DOMAINS:
        return text
    domain = parse_domain(text)
    if domain.lo is None or domain.hi is None:
        return None
    lo, hi = (sympy.nsimplify(end / k) for end in (domain.lo, domain.hi))
    return f"{'(' if domain.lo_open else '['}{lo}, {hi}{')' if domain.hi_open else ']'}"


# ---------------------------------------------------------------- constants: affine objective
AFFINE_MAPS = ((2, 1), (3, 0), (2, 3), (3, 2), (1, 2), (1, 3))  # (k, m): objective -> k*(objective) + m


def affine_candidates(problem: Problem, rng: random.Random) -> list[tuple[str, list[dict], Problem]]:
    """The objective replaced by k·(objective) + m (k > 0, so the sense and the optimal points
    stay): the answer becomes k·answer + m, exactly. The last resort for problems whose constants
    cannot move (no literal, a scale-free objective): it still tells a recalled answer from a
    solved one, and the yield per technique says how often it was needed."""
    answer = parse_problem(problem).answer
    maps = list(AFFINE_MAPS)
    rng.shuffle(maps)
    out = []
    for k, m in maps:
        objective = f"{k}*({problem.objective})" if k != 1 else f"({problem.objective})"
        objective = f"{objective} + {m}" if m else objective
        new_answer = sympy.radsimp(k * answer + m)
        variant = replace(problem, objective=objective, answer=str(new_answer))
        out.append(
            (
                "affine",
                [
                    {"field": "objective", "old": problem.objective, "new": objective},
                    {
                        "field": "answer",
                        "old": problem.answer,
                        "new": variant.answer,
                        "why": f"objective mapped to {k}*f + {m}",
                    },
                ],
                variant,
            )
        )
    return out


# ---------------------------------------------------------------- constants: stationary points
def changed_constant_candidates(problem: Problem, rng: random.Random) -> list[tuple[list[dict], Problem]]:
    """One integer literal (not an exponent) of a constraint or the objective changed to a nearby
    integer; the answer is left to re-derive. Places are visited round-robin in a seeded order
    (constraint constants first: they keep the objective's shape), each with its values shuffled."""
    fields = [(f"constraints[{i}]", text) for i, text in enumerate(problem.constraints)]
    places = [(where, text, start, old) for where, text in fields for start, old in _number_tokens(text)]
    objective_places = [
        ("objective", problem.objective, start, old) for start, old in _number_tokens(problem.objective)
    ]
    rng.shuffle(places)
    rng.shuffle(objective_places)
    queues = []
    for place in places + objective_places:
        value = int(place[3])
        choices = [v for v in dict.fromkeys((value + 1, value + 2, 2 * value, value - 1)) if v > 0 and v != value]
        rng.shuffle(choices)
        queues.append([(place, str(v)) for v in choices])
    out = []
    # first, one literal value changed everywhere it occurs in a field: keeps a symmetric or cyclic
    # problem symmetric, so its optimum usually stays at a point that can be solved exactly
    for field_name, before in [("objective", problem.objective), *fields]:
        literals = [old for _, old in _number_tokens(before)]
        repeated = sorted({v for v in literals if literals.count(v) > 1}, key=int)
        rng.shuffle(repeated)
        changes = []
        for old in repeated:
            values = [str(v) for v in dict.fromkeys((int(old) + 1, int(old) + 2, 2 * int(old))) if v != int(old)]
            rng.shuffle(values)
            changes.append([(old, v) for v in values])
        for old, new in [pair for round_ in itertools.zip_longest(*changes) for pair in round_ if pair]:
            text = before
            for start, literal in reversed(_number_tokens(text)):
                if literal == old:
                    text = _replace_at(text, start, old, new)
            out.append(([{"field": field_name, "old": before, "new": text}], _with_field(problem, field_name, text)))
    while any(queues):
        for queue in queues:
            if not queue:
                continue
            (where, before, start, old), new = queue.pop(0)
            text = _replace_at(before, start, old, new)
            out.append(([{"field": where, "old": before, "new": text}], _with_field(problem, where, text)))
    return out


COEFFICIENT_AFTER = ("+", "-", "(", ",", *RELATION_OPS)  # where `k*` before a name makes k its coefficient


def coefficient_candidates(problem: Problem, rng: random.Random) -> list[tuple[list[dict], Problem]]:
    """One occurrence of a variable given the coefficient 2 or 3 (`a` → `2*a`, where `a` starts a
    term: never after ^, / or *), in the objective first, then in a constraint, each field's
    occurrences in a seeded order: a constant the text leaves implicit (1) changed, for the
    problems whose only literals are exponents. The answer is left to re-derive."""
    out = []
    for field_name, text in [
        ("objective", problem.objective),
        *((f"constraints[{i}]", t) for i, t in enumerate(problem.constraints)),
    ]:
        tokens = tokenize(text)
        starts = [
            token.column - 1
            for i, token in enumerate(tokens)
            if token.kind == "name"
            and token.text in problem.variables
            and (i == 0 or (tokens[i - 1].kind == "op" and tokens[i - 1].text in COEFFICIENT_AFTER))
        ]
        rng.shuffle(starts)
        for start in starts:
            new = f"{text[:start]}{rng.choice((2, 3))}*{text[start:]}"
            out.append(([{"field": field_name, "old": text, "new": new}], _with_field(problem, field_name, new)))
    return out


def exact_optimum(problem: Problem, witness: dict[str, float], best: float) -> tuple[sympy.Expr | None, str]:  # noqa: C901 — an ordered cascade of exact-value attempts (snap, classes, solve) that returns at the first success
    """An exact value of the objective at the optimum the search found near `witness`, or
    (None, why). First the point snapped to small rationals (every equality exactly zero there);
    else the problem reduced to the classes of equal coordinates (coordinates at a domain end are
    fixed to it), each equality (and each inequality tight at the point) solved for a class it is
    linear in (or, in a single class, for its real root there), and the optimality conditions of
    the one or two classes left solved exactly (real roots of a numerator, for two classes of the
    resultants eliminating either one; radicals only; a scale-free objective without constraints
    first has one class set to 1). The validator confirms the result."""
    parsed = parse_problem(problem)
    symbols = parsed.symbols
    tolerance = 1e-7 * (1 + abs(best))
    point = {s: snapping.short_rational(witness[str(s)]) for s in symbols}
    if all(abs(float(point[s]) - witness[str(s)]) <= 1e-7 * (1 + abs(witness[str(s)])) for s in symbols) and all(
        sympy.simplify(lhs.subs(point) - rhs.subs(point)) == 0 for lhs, op, rhs in parsed.constraints if op == "="
    ):
        value = sympy.nsimplify(sympy.simplify(parsed.objective.subs(point)))
        if _finite_number(value) and abs(float(sympy.N(value, 30)) - best) <= tolerance:
            return value, "rational point"
    # classes of equal coordinates; coordinates at a finite domain end are fixed to it
    fixed: dict[sympy.Symbol, sympy.Expr] = {}
    classes: list[list[sympy.Symbol]] = []
    for s in symbols:
        x, domain = witness[str(s)], parsed.domains[s]
        ends = [end for end in (domain.lo, domain.hi) if end is not None and abs(float(end) - x) <= 1e-6]
        if ends:
            fixed[s] = ends[0]
            continue
        for members in classes:
            if abs(witness[str(members[0])] - x) <= 1e-6 * (1 + abs(x)):
                members.append(s)
                break
        else:
            classes.append([s])
    params = [sympy.Symbol(f"_t{k}") for k in range(len(classes))]
    substitution = dict(fixed)
    for t, members in zip(params, classes):
        substitution.update({s: t for s in members})
    values = {t: witness[str(members[0])] for t, members in zip(params, classes)}
    objective = parsed.objective.subs(substitution)
    # equalities, and the inequalities tight at the point found (the optimum lies on them too)
    equalities = [
        sympy.simplify(lhs.subs(substitution) - rhs.subs(substitution))
        for lhs, op, rhs in parsed.constraints
        if op == "=" or _tight(lhs - rhs, witness)
    ]
    free = list(params)
    # eliminate with the equalities: one linear in a class is solved for it; one left in a single
    # class is solved exactly for its real root at the point found (radicals only)
    while equalities:
        g = equalities.pop(0)
        if g == 0:
            continue
        present = [t for t in free if g.has(t)]
        if not present:
            return None, "an equality constraint fails on the classes of equal coordinates"
        numerator = sympy.numer(sympy.together(g))
        solved = None
        for t in present:
            if numerator.is_polynomial(t) and sympy.degree(numerator, t) == 1:
                solution = sympy.solve(numerator, t)
                if len(solution) == 1:
                    solved = (t, solution[0])
                    break
        if solved is None and len(present) == 1:
            root = _root_near(numerator, present[0], values[present[0]])
            if root is None:
                return None, "an equality constraint has no root in radicals at the point found"
            solved = (present[0], root)
        if solved is None:
            return None, "an equality constraint is neither linear in a class nor in one class only"
        t, expression = solved
        objective = objective.subs(t, expression)
        equalities = [h.subs(t, expression) for h in equalities]
        free.remove(t)
    nonzero = [t for t in free if abs(values[t]) > 1e-6]
    if (
        len(free) >= 2
        and nonzero
        and not parsed.constraints
        and homogeneous_degree(objective, free, random.Random(0)) == 0
    ):
        # scale-free: the optimum is a ray, not a point; its point with one class at 1 has the same value
        first = nonzero[0]
        free.remove(first)
        objective = objective.subs(first, 1)
        values = {t: v / values[first] for t, v in values.items()}
    if len(free) > 2:
        return None, f"{len(free)} free classes remain after the constraints (need at most 2)"
    if len(free) == 2:
        point = _stationary_pair(objective, free, values)
        if point is None:
            return None, "the optimality conditions of two classes have no common root in radicals at the point found"
        objective = objective.subs(point)
    elif free:
        t = free[0]
        numerator = sympy.numer(sympy.together(sympy.diff(objective, t)))
        root = _root_near(numerator, t, values[t])
        if root is None:
            return None, "the optimality condition has no root in radicals at the point found"
        objective = objective.subs(t, root)
    numeric = sympy.N(objective, 30)
    if not (numeric.is_number and numeric.is_real) or abs(float(numeric) - best) > tolerance:
        return None, "the exact stationary value disagrees with the numeric optimum"
    if sympy.count_ops(objective) > MAX_VALUE_OPS:  # simplify's cost grows fast with nested radicals
        return None, f"the exact stationary value has more than {MAX_VALUE_OPS} operations"
    value = sympy.radsimp(sympy.simplify(objective))
    if not _finite_number(value) or abs(float(sympy.N(value, 30)) - best) > tolerance:
        return None, "the exact stationary value disagrees with the numeric optimum"
    return value, "stationary point"


def _tight(difference: sympy.Expr, witness: dict[str, float]) -> bool:
    """Whether a constraint's two sides agree (to 1e-7 relative) at the point found."""
    value = sympy.N(difference.subs({s: sympy.Float(witness[str(s)], 30) for s in difference.free_symbols}), 30)
    return bool(value.is_real) and abs(float(value)) <= 1e-7 * (1 + max(abs(v) for v in witness.values()))


MAX_PAIR_DEGREE = 6  # degree of each optimality condition in each class, for the two-class solve


def _stationary_pair(
    objective: sympy.Expr, free: list[sympy.Symbol], values: dict[sympy.Symbol, float]
) -> dict[sympy.Symbol, sympy.Expr] | None:
    """The exact stationary point of a function of two classes nearest the point found: each
    coordinate the real root, in radicals, of the resultant that eliminates the other one from
    the two optimality conditions (a root near the point, of both conditions at once, is checked
    to 1e-12 before it is returned); None when the conditions are not small polynomials, the
    resultant vanishes, or a root is not in radicals."""
    t, u = free
    conditions = [sympy.numer(sympy.together(sympy.diff(objective, s))) for s in free]
    for condition in conditions:
        if not condition.is_polynomial(t, u) or condition.free_symbols - {t, u}:
            return None
        if max(sympy.degree(condition, t), sympy.degree(condition, u)) > MAX_PAIR_DEGREE:
            return None
    point = {}
    for keep, drop in ((t, u), (u, t)):
        eliminated = sympy.resultant(conditions[0], conditions[1], drop)
        if eliminated == 0:
            return None
        root = _root_near(sympy.expand(eliminated), keep, values[keep])
        if root is None:
            return None
        point[keep] = root
    for condition in conditions:
        residual = sympy.N(condition.subs(point), 40)
        if not residual.is_number or abs(residual) > 1e-12:
            return None
    return point


def _finite_number(value: sympy.Expr) -> bool:
    """A finite real number that the answer grammar can write back (no nan, zoo, I, CRootOf)."""
    if not (value.is_number and value.is_finite and value.is_real):
        return False
    try:
        return _same_value(parse_expression(str(value), []), value)
    except ValueError:
        return False


def _root_near(polynomial: sympy.Expr, t: sympy.Symbol, near: float) -> sympy.Expr | None:
    """The real root of a polynomial in t nearest `near` (within 1e-5 relative), as an exact
    number in radicals; None when there is none, the degree is large, or the root has no closed
    form the answer grammar can write (a CRootOf, or radicals sympy cannot show real). Each
    irreducible factor is solved on its own: rationally or by square roots (real_roots), or, when
    it is quadratic in t^k, by nested radicals (sympy.roots), such as (t^2 + 2)^2 - 8."""
    if not polynomial.is_polynomial(t) or sympy.degree(polynomial, t) > MAX_STATIONARY_DEGREE:
        return None
    if polynomial.free_symbols - {t}:
        return None
    close = []
    for factor, _ in sympy.Poly(polynomial, t).factor_list()[1]:
        found = [r for r in factor.real_roots() if abs(float(r) - near) <= 1e-5 * (1 + abs(near))]
        exact = [r for r in found if not isinstance(r, sympy.CRootOf)]
        powers = math.gcd(*(m[0] for m in factor.monoms()))  # a polynomial in t^powers
        if found and not exact and factor.degree() // max(powers, 1) <= 2:
            # quadratic in t^powers: nested square and k-th roots; the cubic and quartic formulas
            # give values no reader reads (and sympy may take minutes to decide they are real)
            exact = [
                r
                for r in sympy.roots(factor, filter="R")
                if r.is_real and abs(float(sympy.N(r, 30)) - near) <= 1e-5 * (1 + abs(near))
            ]
        close += exact
    return close[0] if close else None


# ---------------------------------------------------------------- rename and rephrase
def rename_candidates(problem: Problem, rng: random.Random) -> list[tuple[list[dict], Problem]]:
    names = list(problem.variables)
    alphabets = [a for a in ALPHABETS if len(a) >= len(names) and not set(a[: len(names)]) & set(names)]
    rng.shuffle(alphabets)
    out = []
    for alphabet in alphabets:
        fresh = list(alphabet[: len(names)])
        rng.shuffle(fresh)
        mapping = dict(zip(names, fresh))
        order = list(range(len(problem.constraints)))
        rng.shuffle(order)
        constraints = tuple(_rewrite_names(problem.constraints[i], mapping) for i in order)
        # declare the variables in the fresh alphabet's order, as a statement would list them
        variables = {mapping[n]: problem.variables[n] for n in sorted(names, key=lambda n: alphabet.index(mapping[n]))}
        variant = replace(
            problem,
            variables=variables,
            constraints=constraints,
            objective=_rewrite_names(problem.objective, mapping),
            statement=None,
            source=None,
        )
        transformation = [
            {
                "field": "variables",
                "old": ", ".join(names),
                "new": ", ".join(f"{n}→{mapping[n]}" for n in names),
                "mapping": mapping,
            }
        ]
        if len(order) > 1:
            transformation.append({"field": "constraints", "old": "order 0..n", "new": f"order {order}"})
        out.append((transformation, variant))
    return out


_WORDS = {"min": ("minimum", "smallest", "least"), "max": ("maximum", "largest", "greatest")}
PHRASINGS = ("paper", "suppose", "given-that", "question")


def render_phrasing(problem: Problem, phrasing: str) -> str:
    """The statement in one of PHRASINGS ('paper' is render_statement's, the source paper's)."""
    if phrasing == "paper":
        return render_statement(problem)
    names = list(problem.variables)
    joined = constraints_latex(problem.constraints, names)
    objective = "$" + sympy.latex(parse_expression(problem.objective, names), ln_notation=True) + "$"
    word, small, least = _WORDS[problem.sense]
    subjects = " and ".join(
        f"${listed}$ {'are' if plural else 'is'} {domain_phrase(domain, plural)}"
        for listed, domain, plural in variable_groups(problem.variables)
    )
    if phrasing == "suppose":
        condition = f", with {joined}" if joined else ""
        return f"Suppose {subjects}{condition}. Find the {word} value of {objective}."
    if phrasing == "given-that":
        condition = f", and {joined}" if joined else ""
        return f"Determine the {small} possible value of {objective}, given that {subjects}{condition}."
    if phrasing == "question":
        condition = f" satisfying {joined}" if joined else ""
        return f"What is the {least} value that {objective} can take, where {subjects}{condition}?"
    raise ValueError(f"unknown phrasing {phrasing!r}; known: {PHRASINGS}")


# ---------------------------------------------------------------- the generator
@dataclass(frozen=True)
class Settings:
    per_problem: int
    seed: int
    kinds: tuple[str, ...]


def _same_value(a: sympy.Expr, b: sympy.Expr) -> bool:
    return abs(sympy.N(a - b, 50)) <= sympy.Float(1e-40, 50) * (1 + abs(sympy.N(b, 50)))


def _objective_at(problem: Problem, witness: dict[str, float]) -> float:
    parsed = parse_problem(problem)
    value = sympy.N(parsed.objective.subs({s: sympy.Float(witness[str(s)], 30) for s in parsed.symbols}), 20)
    return float(value) if value.is_real else math.nan


def variants_of(
    parent: Problem,
    settings: Settings,
    *,
    check: Callable[[Problem], object],
    search: Callable[[Problem], object],
    parent_witness: dict | None,
    guessed: Callable[[Problem], str | None] | None = None,
) -> list[Candidate]:
    """Every candidate tried for one confirmed parent (confirmed and dropped), in a fixed order.
    `check(problem)` is the validator (returns a CheckResult), `search(problem)` its numeric
    optimum search (a SearchResult); both are given by the caller so its settings apply.
    `guessed(problem)` names the cheap guess that answers a `constants` variant (None: none does);
    such a variant is dropped before its validation and does not count against the attempts."""
    base = replace(parent, statement=None, source=None)
    base = replace(base, statement=render_statement(base))
    parent_answer = parse_problem(parent).answer
    out: list[Candidate] = []
    for kind in settings.kinds:
        rng = seeded(settings.seed, parent.id, kind)
        attempts = ATTEMPTS_PER_VARIANT * settings.per_problem
        if kind == "constants":
            plans = [(tech, tr, p) for tech, tr, p in homogeneity_candidates(base, rng)]
            plans += [("stationary", tr, p) for tr, p in changed_constant_candidates(base, rng)]
            # after the literals, and with a seed of their own, so adding them changed no earlier candidate
            coefficients = coefficient_candidates(base, seeded(settings.seed, parent.id, kind, "coefficients"))
            plans += [("stationary", tr, p) for tr, p in coefficients]
            # the affine fallback is tried after the others' attempts, never instead of them
            rounds = [(plans, attempts), (affine_candidates(base, rng), settings.per_problem)]
        elif kind == "rename":
            rounds = [([("alphabet", tr, p) for tr, p in rename_candidates(base, rng)], attempts)]
        elif kind == "rephrase":
            others = list(PHRASINGS[1:])
            rng.shuffle(others)
            plans = [("phrasing", [{"field": "statement", "old": "paper", "new": name}], base) for name in others]
            rounds = [(plans, attempts)]
        else:
            raise ValueError(f"unknown variant kind {kind!r}; known: {KINDS}")
        confirmed = 0
        for plans, budget in rounds:
            plans, spent, guesses = list(plans), 0, 0
            while plans and confirmed < settings.per_problem and spent < budget and guesses < GUESSED_PER_ROUND:
                technique, transformation, variant = plans.pop(0)
                candidate = Candidate(parent.id, kind, len(out) + 1, technique, None, list(transformation))
                out.append(candidate)
                try:
                    _finish(candidate, variant, kind, parent_answer, parent_witness, check, search, guessed)
                except Exception as exc:  # noqa: BLE001 (one bad candidate is dropped and counted, never stops the shard)
                    candidate.drop_reason = f"generator error: {type(exc).__name__}: {exc}"
                confirmed += candidate.status == "confirmed"
                spent += not candidate.guessed_by
                guesses += bool(candidate.guessed_by)
                # a guessed variant's exact answer is kept: its twin with one variable scaled is tried next
                twin = (
                    scaled_variable(parent, candidate, rng, guessed)
                    if candidate.guessed_by and technique != "affine"
                    else None
                )
                if twin is not None:
                    plans.insert(0, twin)
    return out


def _finish(  # noqa: PLR0913 (the candidate, its spec, and the three callables of variants_of)
    candidate: Candidate, variant: Problem, kind: str, parent_answer, parent_witness, check, search, guessed
) -> None:
    if kind == "rephrase":
        phrasing = candidate.transformation[0]["new"]
        candidate.problem = replace(variant, statement=render_phrasing(variant, phrasing))
        candidate.status, candidate.validation_status = "confirmed", "confirmed"
        candidate.validation_reason = "same spec as the confirmed parent, another phrasing"
        return
    variant = replace(variant, statement=render_statement(variant))
    if kind == "rename":
        mapping = candidate.transformation[0]["mapping"]
        candidate.problem = variant
        if parent_witness is None:
            candidate.drop_reason = "parent has no witness to check the renaming at"
            return
        renamed = {mapping[k]: v for k, v in parent_witness.items()}
        before = _objective_at(variant, renamed)
        expected = float(sympy.N(parent_answer, 20))
        if not abs(before - expected) <= 1e-6 * (1 + abs(expected)):
            candidate.drop_reason = f"renamed objective at the renamed parent witness is {before}, not {expected}"
            return
        candidate.status, candidate.validation_status = "confirmed", "confirmed"
        candidate.validation_reason = "renaming of the confirmed parent: its witness, renamed, gives the answer"
        candidate.witness, candidate.best_value = renamed, before
        return
    # constants
    if candidate.technique == "stationary":
        found = search(variant)
        if found.best_value is None or found.unbounded:
            candidate.problem = variant
            candidate.drop_reason = "the search found no finite optimum" + (" (unbounded)" if found.unbounded else "")
            return
        value, how = exact_optimum(variant, found.witness, found.best_value)
        if value is None:
            candidate.problem = variant
            candidate.drop_reason = f"no exact optimum: {how}"
            return
        candidate.technique = f"stationary ({how})"
        variant = replace(variant, answer=str(value))
        candidate.transformation.append(
            {
                "field": "answer",
                "old": str(parent_answer),
                "new": variant.answer,
                "why": f"exact value at the {how} the search found",
            }
        )
    candidate.problem = variant
    new_answer = parse_problem(variant).answer
    if _same_value(new_answer, parent_answer):
        candidate.drop_reason = "same answer as the parent"
        return
    candidate.guessed_by = guessed(variant) if guessed is not None else None
    if candidate.guessed_by:
        candidate.drop_reason = f"a cheap guess answers it ({candidate.guessed_by})"
        return
    # checked as the parent was (spec and answer; the statement is rendered from the spec)
    result = check(replace(variant, statement=None))
    candidate.validation_status, candidate.validation_reason = result.status, result.reason
    candidate.best_value, candidate.witness = result.best_value, result.witness
    candidate.certificate = result.certificate
    if result.status != "confirmed":
        candidate.drop_reason = f"validator: {result.status}: {result.reason}"
        return
    candidate.status = "confirmed"


# --- the rule's job: read artifacts, run this stage per problem, write its artifact
def vary_shard(
    parent_problems: Path,
    problem_files: Sequence[str],
    outputs: dict[str, Path],
    *,
    benchmark: str,
    variant_benchmark: str,
    per_problem: int,
    seed: int,
    kinds: Sequence[str],
    dag_node: str,
    check,
    search,
    guessed=None,
    share: float = 1.0,
) -> None:
    """Variants of every confirmed problem of one shard (extrembench.sources.variants): every candidate to
    outputs['variants'] (confirmed and dropped, with why), the confirmed ones as the problem table
    of `variant_benchmark` (outputs['problems']), which generate and grade read like any other.
    `check(problem)` / `search(problem)`: the validator and its numeric search, with the run's
    validation settings; `guessed(problem)`: the cheap guess answering a variant (variants_of).
    `share` < 1 varies only the problems whose id hashes below it (a stable
    choice: editing one problem never changes which others are varied)."""

    settings = Settings(per_problem=per_problem, seed=seed, kinds=tuple(kinds))
    known = {str(Path(p)) for p in problem_files}
    rows, asked = [], []
    parents = [
        r
        for r in read_artifact(parent_problems, "problems").to_pylist()
        if r["status"] == "confirmed" and in_share(r["problem_id"], share, seed)
    ]
    for number, parent_row in enumerate(sorted(parents, key=lambda r: r["problem_id"]), start=1):
        if str(Path(parent_row["source_path"])) not in known:
            continue  # no problem file to vary (a formalized spec): nothing to re-derive from
        parent = load_problem(parent_row["source_path"])
        witness = json.loads(parent_row["witness_json"]) if parent_row["witness_json"] else None
        candidates = variants_of(parent, settings, check=check, search=search, parent_witness=witness, guessed=guessed)
        for c in candidates:
            row = variant_row(c, parent, parent_row, benchmark=benchmark, variant_benchmark=variant_benchmark)
            rows.append({**row, "seed": seed, "dag_node": dag_node})
            if c.status == "confirmed":
                asked.append(asked_row(c, parent, parent_row, row, benchmark=variant_benchmark, dag_node=dag_node))
        counts = Counter((c.kind, c.status) for c in candidates)
        log.info(
            "[%d/%d] %s: %s",
            number,
            len(parents),
            parent.id,
            ", ".join(f"{k} {s} {n}" for (k, s), n in sorted(counts.items())),
        )
    write_artifact(rows, outputs["variants"], "variants", inputs=[parent_problems, *problem_files])
    write_artifact(asked, outputs["problems"], "problems", inputs=[outputs["variants"]])
    log.info("vary: %d candidates, %d confirmed variants", len(rows), len(asked))


def variant_row(c, parent: Problem, parent_row: dict, *, benchmark: str, variant_benchmark: str) -> dict:
    """A VARIANTS row (core/artifacts.py) of one candidate, confirmed or dropped with why; the
    caller adds the seed and the DAG node."""
    problem = c.problem
    spec = (
        None
        if problem is None
        else {
            "id": c.variant_id,
            "sense": problem.sense,
            "variables": problem.variables,
            "constraints": list(problem.constraints),
            "objective": problem.objective,
        }
    )
    return {
        "benchmark": benchmark,
        "variant_benchmark": variant_benchmark,
        "problem_id": c.variant_id,
        "parent_id": parent.id,
        "parent_source_path": parent_row["source_path"],
        "parent_sha256": parent_row["source_sha256"],
        "kind": c.kind,
        "technique": c.technique,
        "transformation": c.transformation_text(),
        "transformation_json": json.dumps(c.transformation, sort_keys=True, ensure_ascii=False),
        "content_sha256": content_hash(problem) if problem is not None else None,
        "statement": problem.statement if problem is not None else None,
        "answer": problem.answer if problem is not None else None,
        "sense": parent.sense,
        "spec_json": json.dumps(spec, sort_keys=True) if spec else None,
        "status": c.status,
        "drop_reason": c.drop_reason,
        "validation_status": c.validation_status,
        "validation_reason": c.validation_reason,
        "best_value": c.best_value,
        "witness_json": json.dumps(c.witness, sort_keys=True) if c.witness is not None else None,
    }


def asked_row(c, parent: Problem, parent_row: dict, row: dict, *, benchmark: str, dag_node: str) -> dict:
    """The PROBLEMS row (core/artifacts.py) of a confirmed variant, asked like any other problem
    of the variants benchmark; `row` is its VARIANTS row."""
    problem = c.problem
    return {
        "benchmark": benchmark,
        "problem_id": c.variant_id,
        "source_path": parent_row["source_path"],
        "source_sha256": row["content_sha256"],
        "statement": problem.statement,
        "answer": gold_text(problem.answer, "confirmed"),
        "answer_type": "number",
        "sense": parent.sense,
        "technique": list(parent.technique),
        "difficulty": parent.difficulty,
        "spec_json": row["spec_json"],
        "status": "confirmed",
        "reason": f"{c.kind} variant of {parent.id} ({c.technique}): {c.transformation_text()}",
        "best_value": c.best_value,
        "witness_json": row["witness_json"],
        "certificate": certificate_json(c.certificate),
        "certificate_kind": c.certificate["kind"] if c.certificate else None,
        "certificate_verifier": VERIFIER_VERSION if c.certificate else None,
        "dag_node": dag_node,
    }
