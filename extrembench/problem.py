"""Problem files: load, validate against the JSON schema, parse every expression safely.

One YAML file per problem (format: docs/problem-format.md, schema: schemas/problem.schema.yaml).
Loading checks, in order: YAML syntax, schema (unknown keys are errors unless the caller names
them in `ignore_keys`), variable domains, then every expression with extrembench.expr, so a file
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

from extrembench.expr import ExpressionError, check_variable_name, parse_expression, parse_relation, symbol



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
        if self.hi is not None and (value > self.hi or (self.hi_open and value == self.hi)):
            return False
        return True


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
    if lo is not None and hi is not None:
        if bool(lo > hi) or (lo == hi and (lo_open or hi_open)):
            raise ValueError(f"domain {text!r} is empty")
    return Domain(lo, hi, lo_open, hi_open)


@functools.cache
def _schema() -> dict:
    text = resources.files("extrembench").joinpath("schemas/problem.schema.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _schema_error_field(error: jsonschema.ValidationError) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return path or "(top level)"


def _schema_error_reason(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        allowed = ", ".join(error.schema.get("properties", {})) or "see docs/problem-format.md"
        return f"unknown key(s) {', '.join(map(repr, extra))}; allowed: {allowed}"
    if error.validator == "required":
        return f"{error.message}; add it"
    path = list(error.absolute_path)
    if len(path) == 2 and path[0] == "variables":
        if isinstance(error.instance, list):
            return "an interval must be quoted text, e.g. \"[0, 1]\" (unquoted YAML makes it a list)"
        return (f"domain {error.instance!r} is not one of positive, nonnegative, real or an interval "
                "like \"[0, 1]\", \"(0, 1]\"")
    if error.validator == "enum":
        return f"{error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
    return error.message


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys, which plain YAML silently overwrites."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


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
    """Read one YAML problem file; raises ProblemError naming the file, field and reason."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProblemError(file, "(file)", f"cannot read: {exc}") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # SafeLoader subclass: builds plain data only
    except yaml.YAMLError as exc:
        raise ProblemError(file, "(yaml)", " ".join(str(exc).split())) from None
    return problem_from_dict(data, path=file, ignore_keys=ignore_keys)


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
            raise ProblemError(file, field_name, f"{exc} in {text!r}") from None

    constraints = []
    for i, text in enumerate(problem.constraints):
        try:
            constraints.append(parse_relation(text, names))
        except ExpressionError as exc:
            raise ProblemError(file, f"constraints[{i}]", f"{exc} in {text!r}") from None
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
