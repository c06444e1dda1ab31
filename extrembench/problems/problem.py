"""Problem files: load, validate against the ProblemSpec model, parse every expression safely.

One YAML file per problem (format: docs/problem-format.md, JSON Schema: `extrembench schema problem`).
Loading checks, in order: YAML syntax, the spec (unknown keys are errors unless the caller names
them in `ignore_keys`), variable domains, then every expression with extrembench.problems.expr, so a file
that loads is known to contain only arithmetic over its declared variables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import sympy
from pydantic import BeforeValidator, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from extrembench.core.dates import calendar_date as _date  # also the model registry's dates
from extrembench.core.errors import InputError
from extrembench.core.untrusted_yaml import (
    SHOWN_VALUE_CHARS,
    StrictModel,
    UntrustedYAMLError,
    load_untrusted_yaml,
    shown,
)
from extrembench.problems.expr import (
    MAX_PROBLEM_TEXT_LENGTH,
    MAX_TEXT_LENGTH,
    ExpressionError,
    check_variable_name,
    parse_expression,
    parse_relation,
    symbol,
)


class ProblemError(InputError, ValueError):
    """A problem that cannot be used, with the file, the field and what is wrong."""

    def __init__(self, file: str | None, field: str, reason: str):
        self.file = file
        self.field = field
        self.reason = reason
        super().__init__(f"{file or '<problem>'}: {field}: {reason}")


@dataclass(frozen=True)
class Problem:
    id: str
    sense: str  # 'min' | 'max'
    variables: dict[str, str]  # name -> domain text
    constraints: tuple[str, ...]
    objective: str
    answer: str
    statement: str | None = None
    source: dict | None = None
    technique: tuple[str, ...] = ()
    difficulty: str | None = None
    family: str | None = None  # the source problem; one family counts as one problem
    difficulty_reason: str | None = None  # one line: the technique that makes it easy/medium/hard
    date: str | None = None  # YYYY, YYYY-MM or YYYY-MM-DD: when the source problem was set
    path: str | None = None


@dataclass(frozen=True)
class Domain:
    """A real interval; None bounds are infinite. `positive` is (0, inf), `nonnegative` [0, inf)."""

    lo: sympy.Expr | None
    hi: sympy.Expr | None
    lo_open: bool
    hi_open: bool

    def contains(self, value: Any) -> bool:
        if self.lo is not None and (value < self.lo or (self.lo_open and value == self.lo)):
            return False
        return not (self.hi is not None and (value > self.hi or (self.hi_open and value == self.hi)))


@dataclass(frozen=True)
class ParsedProblem:
    """The sympy form of a problem: every expression parsed over its variables."""

    symbols: tuple[sympy.Symbol, ...]
    domains: dict[sympy.Symbol, Domain]
    constraints: tuple[tuple[sympy.Expr, str, sympy.Expr], ...]
    objective: sympy.Expr
    answer: sympy.Expr
    sense: str


def min_form_sign(sense: str) -> int:
    """The factor that writes a problem in min form: +1 for min, -1 for max (minimise -objective)."""
    return 1 if sense == "min" else -1


_INTERVAL_RE = re.compile(r"^\s*([\[(])(.*)([\])])\s*$", re.S)
_INFINITY = {"inf": 1, "+inf": 1, "infinity": 1, "oo": 1, "-inf": -1, "-infinity": -1, "-oo": -1}


def split_top_level_commas(text: str) -> list[str]:
    """Split at commas outside any bracket: "[0, 1]" stays one piece in a list of domains, and so
    does "\\frac{a,b}" in a LaTeX list of conditions."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_domain(text: str) -> Domain:
    """'positive' | 'nonnegative' | 'real' | an interval like '[0, 1]', '(0, pi/2]', '[1, inf)'."""
    word = text.strip()
    if word == "positive":
        return Domain(sympy.Integer(0), None, True, True)
    if word == "nonnegative":
        return Domain(sympy.Integer(0), None, False, True)
    if word == "real":
        return Domain(None, None, True, True)
    match = _INTERVAL_RE.match(text)
    parts = split_top_level_commas(match.group(2)) if match else []
    if len(parts) != 2:
        raise ValueError(f'domain {text!r} is not one of positive, nonnegative, real or an interval like "[0, 1]"')
    bounds = []
    for part, side in zip(parts, ("lower", "upper")):
        key = part.strip().lower()
        if key in _INFINITY:
            if (_INFINITY[key] < 0) != (side == "lower"):
                raise ValueError(f"domain {text!r}: {side} bound cannot be {part.strip()}")
            bounds.append(None)
            continue
        try:
            value = parse_expression(part, ())
        except ExpressionError as exc:
            raise ValueError(f"domain {text!r}: {side} bound: {exc}") from None
        if not value.is_real or not value.is_finite:
            raise ValueError(f"domain {text!r}: {side} bound {part.strip()!r} is not a finite real number")
        bounds.append(value)
    lo, hi = bounds
    lo_open, hi_open = match.group(1) == "(" or lo is None, match.group(3) == ")" or hi is None
    if lo is not None and hi is not None and (bool(lo > hi) or (lo == hi and (lo_open or hi_open))):
        raise ValueError(f"domain {text!r} is empty")
    return Domain(lo, hi, lo_open, hi_open)


_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
_FAMILY_PATTERN = r"^[a-z0-9][a-z0-9.-]{0,99}$"
_VARIABLE_PATTERN = r"^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$"
_DOMAIN_PATTERN = r"^\s*(positive|nonnegative|real|[\[(].*,.*[\])])\s*$"
_JSON_TYPES = {
    "string_type": "string",
    "int_type": "integer",
    "float_type": "number",
    "bool_type": "boolean",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "list_type": "array",
}
_TYPE_NAMES = {
    "string": "text",
    "number": "a number",
    "object": "a mapping",
    "array": "a list",
    "integer": "an integer",
    "boolean": "true/false",
}


def _one_of(*allowed: str):
    """Choices checked before pydantic's own check, so the message lists them as the file spells them."""

    def check(value: Any) -> Any:
        if not isinstance(value, str) or value not in allowed:
            raise PydanticCustomError(
                "not_allowed", "{value} is not one of {allowed}", {"value": shown(value), "allowed": ", ".join(allowed)}
            )
        return value

    return BeforeValidator(check)


def _scalar(value: Any) -> Any:
    # an expression written as text or, by YAML, as a number; never a bool, list or mapping
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise PydanticCustomError("scalar_type", "{value} is not of type 'string', 'number'", {"value": shown(value)})
    return value


def _domain(value: Any) -> Any:
    if isinstance(value, list):
        raise PydanticCustomError(
            "domain", 'an interval must be quoted text, e.g. "[0, 1]" (unquoted YAML makes it a list)'
        )
    if not isinstance(value, str) or not re.match(_DOMAIN_PATTERN, value):
        raise PydanticCustomError(
            "domain",
            'domain {value} is not one of positive, nonnegative, real or an interval like "[0, 1]", "(0, 1]"',
            {"value": shown(value)},
        )
    return value


Scalar = Annotated[str | int | float, BeforeValidator(_scalar)]
Technique = Literal[
    "am-gm",
    "cauchy-schwarz",
    "holder",
    "schur",
    "sos",
    "jensen",
    "tangent-line",
    "uvw",
    "mixing-variables",
    "trigonometric",
    "boundary",
    "cyclic",
    "nonsmooth",
    "other",
]
Text = Annotated[str, Field(min_length=1)]


class _Spec(StrictModel):
    """A mapping of a problem file: unknown keys are errors; keys left out stay unset (not null)."""


class Inequality(_Spec):
    lhs: Scalar
    relation: Annotated[Literal[">=", "<=", ">", "<"], _one_of(">=", "<=", ">", "<")]
    rhs: Scalar


class Source(_Spec):
    """Where the problem comes from; the translate and convert stages read it."""

    language: Annotated[str, Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]+)?$")] = None
    text: str = None
    # Whose words `text` is (issue 36): the statement as its source published it, a translation or
    # restatement written for this project, or not yet compared with the published original.
    text_origin: Annotated[
        Literal["published", "written-here", "unverified"],
        _one_of("published", "written-here", "unverified"),
    ] = None
    translation: str = None
    reference: str = None
    inequality: Inequality = None


class ProblemSpec(_Spec):
    """One extremal problem file (docs/problem-format.md). Expressions are only checked to be text
    here; extrembench.problems.problem parses them with the safe parser."""

    id: Annotated[str, Field(pattern=_ID_PATTERN)]
    sense: Annotated[Literal["min", "max"], _one_of("min", "max")]
    variables: dict[
        Annotated[str, Field(pattern=_VARIABLE_PATTERN)],
        Annotated[str, Field(pattern=_DOMAIN_PATTERN), BeforeValidator(_domain)],
    ] = Field(min_length=1, max_length=12)
    constraints: list[Text] = Field(None, max_length=20)
    objective: Text
    answer: Scalar
    statement: Text = None
    source: Source = None
    technique: list[Annotated[Technique, _one_of(*get_args(Technique))]] = Field(
        None, json_schema_extra={"uniqueItems": True}
    )
    difficulty: Annotated[Literal["easy", "medium", "hard"], _one_of("easy", "medium", "hard")] = None
    # The source problem (competition-year-problem, e.g. imo-1999-p2): files of one family are
    # instances of one problem (other n or constants) and count once.
    family: Annotated[str, Field(pattern=_FAMILY_PATTERN)] = None
    difficulty_reason: Annotated[str, Field(min_length=1, max_length=300)] = None
    # when the source problem was set (the contest date where known): accuracy by date (issue 40)
    date: Annotated[str, BeforeValidator(_date)] = None

    @field_validator("technique")
    @classmethod
    def _unique(cls, technique: list[str]) -> list[str]:
        if len(set(technique)) != len(technique):
            raise PydanticCustomError("not_unique", "{value} has non-unique elements", {"value": shown(technique)})
        return technique


def _error_field(loc: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "(top level)"


def _spec_error(error: dict) -> tuple[str, str]:
    """(field, reason) of one validation error, from shown() forms only: pydantic's own message
    would embed the whole offending value."""
    loc, kind, ctx, value = error["loc"], error["type"], error.get("ctx") or {}, error.get("input")
    if loc and loc[-1] == "[key]":  # a variable name
        return _error_field(loc[:-2]), f"{shown(loc[-2])} does not match {ctx.get('pattern')!r}"
    if kind == "missing":
        return _error_field(loc[:-1]), f"{loc[-1]!r} is a required property; add it"
    if kind in ("too_short", "string_too_short"):
        return _error_field(loc), f"{shown(value)} should be non-empty" if ctx.get(
            "min_length"
        ) == 1 else f"{shown(value)} is too short"
    if kind in ("too_long", "string_too_long"):
        return _error_field(loc), f"{shown(value)} has more than {ctx.get('max_length')} items"
    if kind == "string_pattern_mismatch":
        return _error_field(loc), f"{shown(value)} does not match {ctx['pattern']!r}"
    if kind in _JSON_TYPES:
        wanted = _JSON_TYPES[kind]
        if len(repr(value)) <= SHOWN_VALUE_CHARS:
            return _error_field(loc), f"{value!r} is not of type {wanted!r}"
        return _error_field(loc), f"must be {_TYPE_NAMES[wanted]}, not {type(value).__name__} {shown(value)}"
    return _error_field(loc), error["msg"]


def _check_spec(model: type[_Spec], data: Any, file: str | None, prefix: str = "") -> _Spec:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = min(exc.errors(include_url=False), key=lambda e: list(map(str, e["loc"])))
        field, reason = _spec_error(first)
        raise ProblemError(
            file, prefix + field if field != "(top level)" else prefix.rstrip(".") or field, reason
        ) from None


def problem_json_schema() -> dict[str, Any]:
    """The JSON Schema of a problem file, generated from the model (`extrembench schema problem`)."""
    return ProblemSpec.model_json_schema()


def file_id_error(problem_id: Any, path: str | Path) -> str | None:
    """The one rule tying a problem file to its id (`check` and the pipeline both apply it): the id
    is the file name without .yaml, because shards and result rows are keyed by the file name."""
    stem = Path(path).stem
    if problem_id != stem:
        return f"{shown(problem_id)} must equal the file name stem {stem!r}; rename the file or the id"
    return None


def check_source(data: Any, *, path: str | Path | None = None) -> dict:
    """The `source` mapping of a raw problem file, checked against the schema (the translate
    stage and source-only files read it before, or without, the rest of the file); raises
    ProblemError naming the field, e.g. `source.text: must be text, not list [1, 2]`."""
    file = str(path) if path is not None else None
    if not isinstance(data, Mapping):
        raise ProblemError(file, "(top level)", f"expected a mapping of keys to values, got {type(data).__name__}")
    source = data.get("source")
    if source is None:
        return {}
    _check_spec(Source, source, file, prefix="source.")
    return dict(source)


def _as_text(value: Any) -> str:
    # YAML reads `answer: 3` as an int and `answer: 0.5` as a float; their decimal text is exact.
    return value if isinstance(value, str) else repr(value)


def problem_from_dict(data: Mapping, *, path: str | Path | None = None, ignore_keys: Iterable[str] = ()) -> Problem:
    """Validate a mapping (as read from YAML) and build a Problem; raises ProblemError."""
    file = str(path) if path is not None else None
    if not isinstance(data, Mapping):
        raise ProblemError(file, "(top level)", f"expected a mapping of keys to values, got {type(data).__name__}")
    ignored = set(ignore_keys)
    data = {k: v for k, v in data.items() if k not in ignored}
    spec = _check_spec(ProblemSpec, data, file)
    source = spec.source.model_dump(exclude_unset=True) if spec.source is not None else None
    if source and "inequality" in source:
        source["inequality"] = {k: _as_text(v) for k, v in source["inequality"].items()}
    problem = Problem(
        id=spec.id,
        sense=spec.sense,
        variables=dict(spec.variables),
        constraints=tuple(spec.constraints or ()),
        objective=spec.objective,
        answer=_as_text(spec.answer),
        statement=spec.statement,
        source=source,
        technique=tuple(spec.technique or ()),
        difficulty=spec.difficulty,
        family=spec.family,
        difficulty_reason=spec.difficulty_reason,
        date=spec.date,
        path=file,
    )
    parse_problem(problem)
    return problem


def load_problem(path: str | Path, *, ignore_keys: Iterable[str] = ()) -> Problem:
    """Read one YAML problem file; raises ProblemError naming the file, field and reason. The id
    must equal the file name stem (file_id_error)."""
    file = str(path)
    try:
        data = load_untrusted_yaml(path)  # size cap, no aliases/anchors, bounded nesting
    except UntrustedYAMLError as exc:
        raise ProblemError(file, exc.field, exc.reason) from None
    problem = problem_from_dict(data, path=file, ignore_keys=ignore_keys)
    mismatch = file_id_error(problem.id, file)
    if mismatch:
        raise ProblemError(file, "id", mismatch)
    return problem


def problem_to_dict(problem: Problem) -> dict:
    """The file form of a problem (optional fields only when set); inverse of problem_from_dict."""
    data = {
        "id": problem.id,
        "sense": problem.sense,
        "variables": dict(problem.variables),
        "constraints": list(problem.constraints),
        "objective": problem.objective,
        "answer": problem.answer,
        "statement": problem.statement,
        "source": problem.source,
        "technique": list(problem.technique),
        "difficulty": problem.difficulty,
        "family": problem.family,
        "difficulty_reason": problem.difficulty_reason,
        "date": problem.date,
    }
    return {key: value for key, value in data.items() if value is not None and value != []}


def _check_total_length(problem: Problem) -> None:
    """Raise when the expressions together pass MAX_PROBLEM_TEXT_LENGTH, none of them too long alone."""
    inequality = (problem.source or {}).get("inequality") or {}
    texts = [
        problem.objective,
        problem.answer,
        *problem.constraints,
        inequality.get("lhs", ""),
        inequality.get("rhs", ""),
    ]
    lengths = [len(t) for t in texts if isinstance(t, str)]
    total = sum(lengths)
    # one over-long expression is reported on its own field by the parser
    if total > MAX_PROBLEM_TEXT_LENGTH and max(lengths) <= MAX_TEXT_LENGTH:
        raise ProblemError(
            problem.path,
            "(expressions)",
            f"objective, constraints, answer and source inequality have "
            f"{total} characters together (limit {MAX_PROBLEM_TEXT_LENGTH})",
        )


def parse_problem(problem: Problem) -> ParsedProblem:
    """Parse every expression of a problem; raises ProblemError naming the failing field."""
    file = problem.path
    _check_total_length(problem)
    names = list(problem.variables)
    domains = {}
    for name, text in problem.variables.items():
        try:
            check_variable_name(name)
            domains[symbol(name)] = parse_domain(text)
        except ValueError as exc:
            raise ProblemError(file, f"variables.{name}", str(exc)) from None

    def expression(field_name: str, text: str) -> sympy.Expr:
        try:
            return parse_expression(text, names)
        except ExpressionError as exc:
            raise ProblemError(file, field_name, f"{exc} in {shown(text)}") from None

    constraints = []
    for i, text in enumerate(problem.constraints):
        try:
            constraints.append(parse_relation(text, names))
        except ExpressionError as exc:
            raise ProblemError(file, f"constraints[{i}]", f"{exc} in {shown(text)}") from None
    objective = expression("objective", problem.objective)
    answer = expression("answer", problem.answer)
    if answer.free_symbols:
        raise ProblemError(
            file, "answer", f"the answer must be a number, not depend on {sorted(map(str, answer.free_symbols))}"
        )
    value = answer.evalf(30)
    if not (value.is_real and value.is_finite):
        raise ProblemError(file, "answer", f"{problem.answer!r} is not a finite real number")
    inequality = (problem.source or {}).get("inequality")
    if inequality:
        expression("source.inequality.lhs", inequality["lhs"])
        expression("source.inequality.rhs", inequality["rhs"])
    return ParsedProblem(tuple(domains), domains, tuple(constraints), objective, answer, problem.sense)


@dataclass(frozen=True)
class ExtremalSpec:
    sense: str
    variables: dict[str, str]
    constraints: tuple[str, ...]
    objective: str
    answer: str
    statement: str


# Lenient reads of a file's top-level keys: an id or expected_status to report even when the file is invalid.
def lenient_mapping(path: Path) -> dict:
    """The file's top-level mapping read leniently (for an id or expected_status to report even
    when the file is invalid); {} when unreadable."""
    try:
        data = load_untrusted_yaml(path)  # never yaml.safe_load: it expands alias bombs
    except UntrustedYAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def declared_id(path: Path) -> str:
    problem_id = lenient_mapping(path).get("id")
    return problem_id if isinstance(problem_id, str) else path.stem


def declared_status(path: Path) -> str:
    return str(lenient_mapping(path).get("expected_status", "confirmed"))


# ---------------------------------------------------------------- canonical form
# The validator's search samples one column per variable in order and its proofs build monomial bases
# over the variables in order, so two files that differ only in the order of their variables or
# constraints could get other certificates (issue 35: 12 of 185 shipped files did). Every check runs
# on the canonical form below instead: variables ordered by their role in the problem (a refinement
# over the expressions that never reads a name), names only as the last tie-break between variables
# whose roles stay alike; constraints ordered by their text with each variable written as its
# canonical position. Only orders change: names, texts and every other field stay as written.
_SELF = sympy.Symbol("self_")
CANONICAL_INDIVIDUALISE_LIMIT = 12  # tied variables tried one by one when no exact symmetry settles the order
# individualisations tried in all, a work count: a file of 12 alike variables and 20 long constraints
# must not cost minutes here; past it names order what remains (the shipped set needs at most 8)
CANONICAL_TRIES = 40


def _domain_key(domain: Domain) -> str:
    return f"{domain.lo}|{domain.hi}|{domain.lo_open}|{domain.hi_open}"


def _canonical_items(parsed: ParsedProblem) -> list[tuple[str, tuple[sympy.Expr, ...]]]:
    items = [(f"{parsed.sense}:", (parsed.objective,))]
    items += [(f"{op}:", (lhs, rhs)) for lhs, op, rhs in parsed.constraints]
    return items


def _placeholders(colors: dict[sympy.Symbol, int]) -> dict[sympy.Symbol, sympy.Symbol]:
    return {s: sympy.Symbol(f"c{colors[s]}") for s in colors}


def _ranked(keys: dict[sympy.Symbol, Any]) -> dict[sympy.Symbol, int]:
    order = sorted(set(keys.values()))
    return {s: order.index(k) for s, k in keys.items()}


def _refine(parsed: ParsedProblem, colors: dict[sympy.Symbol, int], items) -> dict[sympy.Symbol, int]:
    """Colour refinement: a variable's new colour is its old one and the multiset of the expressions
    it occurs in, printed with itself as `self_` and every other variable as its colour. Stable
    colours are invariant under renaming and reordering."""
    while True:
        base = _placeholders(colors)
        keys = {}
        for s in parsed.symbols:
            mapping = {**base, s: _SELF}
            seen = sorted(
                tag + "|".join(str(e.xreplace(mapping)) for e in exprs)
                for tag, exprs in items
                if any(s in e.free_symbols for e in exprs)
            )
            keys[s] = (colors[s], tuple(seen))
        refined = _ranked(keys)
        if len(set(refined.values())) == len(set(colors.values())):
            return colors
        colors = refined


def _text(items, colors: dict[sympy.Symbol, int]) -> str:
    mapping = _placeholders(colors)
    return "\n".join(sorted(tag + "|".join(str(e.xreplace(mapping)) for e in exprs) for tag, exprs in items))


def _symmetric_class(parsed: ParsedProblem, members: list[sympy.Symbol], items) -> bool:
    """Whether every transposition of the first member with another is an exact symmetry of the
    problem (then any order of the class gives the same problem up to names)."""
    whole = sorted(tag + "|".join(sympy.srepr(e) for e in exprs) for tag, exprs in items)
    for other in members[1:]:
        swap = {members[0]: other, other: members[0]}
        swapped = sorted(tag + "|".join(sympy.srepr(e.xreplace(swap)) for e in exprs) for tag, exprs in items)
        if swapped != whole:
            return False
    return True


def canonical_variable_order(parsed: ParsedProblem) -> list[sympy.Symbol]:
    """The variables in canonical order: by stable colour (_refine) from their domains; a class of
    alike variables that is not an exact symmetry is split by trying each member first (the one
    giving the least problem text wins), a bounded individualise-and-refine; names break what ties remain."""
    items = _canonical_items(parsed)
    colors = _refine(parsed, _ranked({s: _domain_key(parsed.domains[s]) for s in parsed.symbols}), items)
    settled: set[frozenset] = set()  # classes whose order is left to names
    budget = CANONICAL_TRIES
    while True:
        classes: dict[int, list[sympy.Symbol]] = {}
        for s in parsed.symbols:
            classes.setdefault(colors[s], []).append(s)
        open_classes = [
            sorted(members, key=str)
            for _, members in sorted(classes.items())
            if len(members) > 1 and frozenset(members) not in settled
        ]
        if not open_classes:
            break
        members = open_classes[0]
        if len(members) > min(CANONICAL_INDIVIDUALISE_LIMIT, budget) or _symmetric_class(parsed, members, items):
            settled.add(frozenset(members))
            continue
        budget -= len(members)
        tries = []
        for s in members:
            split = _ranked({t: (colors[t], t != s) for t in parsed.symbols})
            refined = _refine(parsed, split, items)
            tries.append((_text(items, refined), str(s), refined))
        colors = min(tries, key=lambda t: t[:2])[2]
    return sorted(parsed.symbols, key=lambda s: (colors[s], str(s)))


def canonical_problem(problem: Problem) -> Problem:
    """The problem with its variables and constraints in canonical order (see the comment above
    _SELF); a problem that differs only in those orders gives the same value, field for field."""
    parsed = parse_problem(problem)
    order = canonical_variable_order(parsed)
    positions = {s: sympy.Symbol(f"v{i:02d}") for i, s in enumerate(order)}

    def constraint_key(pair):
        (lhs, op, rhs), text = pair
        return f"{op}|{lhs.xreplace(positions)}|{rhs.xreplace(positions)}", text

    constraints = [text for _, text in sorted(zip(parsed.constraints, problem.constraints), key=constraint_key)]
    return replace(
        problem,
        variables={str(s): problem.variables[str(s)] for s in order},
        constraints=tuple(constraints),
    )
