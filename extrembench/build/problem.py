"""Problem files: load, validate against the JSON schema, parse every expression safely.

One YAML file per problem (format: docs/problem-format.md, schema: schemas/problem.schema.yaml).
Loading checks, in order: YAML syntax, schema (unknown keys are errors unless the caller names
them in `ignore_keys`), variable domains, then every expression with extrembench.build.expr, so a file
that loads is known to contain only arithmetic over its declared variables.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import sympy
import yaml

from extrembench.build.expr import (
    MAX_PROBLEM_TEXT_LENGTH,
    MAX_TEXT_LENGTH,
    ExpressionError,
    check_variable_name,
    parse_expression,
    parse_relation,
    symbol,
)
from extrembench.untrusted_yaml import UntrustedYAMLError, load_untrusted_yaml

SHOWN_VALUE_CHARS = 80  # an error message shows at most this much of an offending value

class ProblemError(ValueError):
    """A problem that cannot be used, with the file, the field and what is wrong."""

    def __init__(self, file: str | None, field: str, reason: str):
        self.file = file
        self.field = field
        self.reason = reason
        super().__init__(f"{file or '<problem>'}: {field}: {reason}")


@dataclass(frozen=True)
class Problem:
    id: str
    sense: str                      # 'min' | 'max'
    variables: dict[str, str]       # name -> domain text
    constraints: tuple[str, ...]
    objective: str
    answer: str
    statement: str | None = None
    source: dict | None = None
    technique: tuple[str, ...] = ()
    difficulty: str | None = None
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
        raise ValueError(f"domain {text!r} is not one of positive, nonnegative, real or an interval like \"[0, 1]\"")
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


@functools.cache
def _schema() -> dict:
    text = resources.files("extrembench").joinpath("schemas/problem.schema.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _schema_error_field(error: jsonschema.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return path or "(top level)"


def shown(value: Any) -> str:
    """repr of an untrusted value, cut short: an error message never prints a huge value."""
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE_CHARS else f"{text[:SHOWN_VALUE_CHARS]}... ({len(text)} characters)"


_TYPE_NAMES = {"string": "text", "number": "a number", "object": "a mapping", "array": "a list",
               "integer": "an integer", "boolean": "true/false", "null": "null"}


def _schema_error_reason(error: jsonschema.ValidationError) -> str:
    # Built from the instance's shown() form, never jsonschema's own message, which embeds the
    # whole offending value.
    if error.validator == "additionalProperties":
        extra = sorted(map(str, set(error.instance) - set(error.schema.get("properties", {}))))
        allowed = ", ".join(error.schema.get("properties", {})) or "see docs/problem-format.md"
        return f"unknown key(s) {', '.join(shown(k) for k in extra[:10])}; allowed: {allowed}"
    if error.validator == "required":
        return f"{error.message}; add it"  # names the key, not the value
    path = list(error.absolute_path)
    if len(path) == 2 and path[0] == "variables":
        if isinstance(error.instance, list):
            return "an interval must be quoted text, e.g. \"[0, 1]\" (unquoted YAML makes it a list)"
        return (f"domain {shown(error.instance)} is not one of positive, nonnegative, real or an interval "
                "like \"[0, 1]\", \"(0, 1]\"")
    if error.validator == "enum":
        return f"{shown(error.instance)} is not one of {', '.join(map(str, error.validator_value))}"
    if len(repr(error.instance)) <= SHOWN_VALUE_CHARS:
        return error.message  # jsonschema's wording, safe: it embeds the (small) value
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return (f"must be {' or '.join(_TYPE_NAMES.get(w, w) for w in wanted)}, "
                f"not {type(error.instance).__name__} {shown(error.instance)}")
    return f"{shown(error.instance)} violates {error.validator} {shown(error.validator_value)}"


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
    validator = jsonschema.Draft202012Validator(_schema()["properties"]["source"])
    errors = sorted(validator.iter_errors(source), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    if errors:
        field = _schema_error_field(errors[0])
        raise ProblemError(file, "source" if field == "(top level)" else f"source.{field}", _schema_error_reason(errors[0]))
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
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    if errors:
        first = errors[0]
        raise ProblemError(file, _schema_error_field(first), _schema_error_reason(first))
    source = data.get("source")
    if source and "inequality" in source:
        source = {**source, "inequality": {k: _as_text(v) for k, v in source["inequality"].items()}}
    problem = Problem(
        id=data["id"],
        sense=data["sense"],
        variables=dict(data["variables"]),
        constraints=tuple(data.get("constraints") or ()),
        objective=data["objective"],
        answer=_as_text(data["answer"]),
        statement=data.get("statement"),
        source=source,
        technique=tuple(data.get("technique") or ()),
        difficulty=data.get("difficulty"),
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
    data: dict[str, Any] = {"id": problem.id, "sense": problem.sense, "variables": dict(problem.variables)}
    if problem.constraints:
        data["constraints"] = list(problem.constraints)
    data["objective"] = problem.objective
    data["answer"] = problem.answer
    if problem.statement is not None:
        data["statement"] = problem.statement
    if problem.source is not None:
        data["source"] = problem.source
    if problem.technique:
        data["technique"] = list(problem.technique)
    if problem.difficulty is not None:
        data["difficulty"] = problem.difficulty
    return data


def parse_problem(problem: Problem) -> ParsedProblem:
    """Parse every expression of a problem; raises ProblemError naming the failing field."""
    file = problem.path
    inequality = (problem.source or {}).get("inequality") or {}
    texts = [problem.objective, problem.answer, *problem.constraints, inequality.get("lhs", ""), inequality.get("rhs", "")]
    lengths = [len(t) for t in texts if isinstance(t, str)]
    total = sum(lengths)
    # one over-long expression is reported on its own field by the parser below
    if total > MAX_PROBLEM_TEXT_LENGTH and max(lengths) <= MAX_TEXT_LENGTH:
        raise ProblemError(file, "(expressions)", f"objective, constraints, answer and source inequality have "
                                                  f"{total} characters together (limit {MAX_PROBLEM_TEXT_LENGTH})")
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
        raise ProblemError(file, "answer", f"the answer must be a number, not depend on {sorted(map(str, answer.free_symbols))}")
    value = answer.evalf(30)
    if not (value.is_real and value.is_finite):
        raise ProblemError(file, "answer", f"{problem.answer!r} is not a finite real number")
    inequality = (problem.source or {}).get("inequality")
    if inequality:
        expression("source.inequality.lhs", inequality["lhs"])
        expression("source.inequality.rhs", inequality["rhs"])
    return ParsedProblem(tuple(domains), domains, tuple(constraints), objective, answer, problem.sense)
