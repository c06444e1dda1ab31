"""From the text of a final answer to the value it states.

A box often holds more than the value: `f(1,1,1) = 3`, `3, attained at a=b=c=1`, or only the
equality case `a=b=c=1` (a witness, not the extremal value). These helpers work on top-level
structure only (outside braces, brackets and parentheses) by a linear scan, never by parsing.
"""

from __future__ import annotations

import re

_OPENERS = "{[("
_CLOSERS = "}])"


def split_top_level(text: str, separators: tuple[str, ...]) -> list[str]:
    """Split at separators that sit outside every bracket pair ({}, [], (), \\{\\})."""
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "{}":
            depth += 1 if text[i + 1] == "{" else -1
            i += 2
            continue
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
        elif depth == 0:
            for sep in separators:
                if text.startswith(sep, i) and _is_whole_separator(text, i, sep):
                    parts.append(text[start:i])
                    start = i + len(sep)
                    i = start - 1
                    break
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _is_whole_separator(text: str, i: int, sep: str) -> bool:
    """'=' must not be part of '<=', '>=', '!=', '=='; a command must not run on ('\\approxeq')."""
    if sep == "=":
        before = text[i - 1] if i > 0 else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        return before not in "<>!=:" and after != "="
    if sep.startswith("\\") and sep[-1].isalpha():
        end = i + len(sep)
        return not (end < len(text) and text[end].isalpha())
    return True


_VARIABLE = re.compile(r"^(?:[A-Za-z]|\\(?:alpha|beta|gamma|delta|theta|lambda|mu|phi|psi|omega))(?:_\{?\w+\}?)?('*)$")
_VARIABLE_TUPLE = re.compile(r"^\((.*)\)$")
_HAS_LETTER_VARIABLE = re.compile(r"(?<!\\)(?<![A-Za-z])[A-Za-z](?![A-Za-z])")


def _assigned_variables(side: str) -> list[str] | None:
    """The variables named by one side of an equality ('a' or '(a, b, c)'), else None."""
    side = side.strip()
    if _VARIABLE.match(side):
        return [side]
    tuple_match = _VARIABLE_TUPLE.match(side)
    if tuple_match:
        names = [n.strip() for n in tuple_match.group(1).split(",")]
        if names and all(_VARIABLE.match(n) for n in names):
            return names
    return None


def _is_constant(side: str) -> bool:
    """True when the side names no variable (digits, \\frac, \\sqrt, \\pi ... only)."""
    stripped = re.sub(r"\\[A-Za-z]+", "", side)
    return not _HAS_LETTER_VARIABLE.search(stripped)


def is_witness(text: str) -> bool:
    """An equality case such as 'a=b=c=1', '(x,y)=(1,2)' or 'a=1, b=2': assigns values to
    two or more variables and states no objective value."""
    assigned: set[str] = set()
    for clause in split_top_level(text, (",", ";", r"\quad", r"\text{ and }", " and ")):
        if not clause:
            continue
        sides = split_top_level(clause, ("=",))
        if len(sides) < 2 or not _is_constant(sides[-1]):
            return False
        for side in sides[:-1]:
            names = _assigned_variables(side)
            if names is None:
                return False
            assigned.update(names)
    return len(assigned) >= 2


_QUALIFIER = re.compile(
    r"(?:[,;(\s]|\\quad|\\text\{\s*\(?)\s*(?:\\text\{)?\s*"
    r"(?:when|at|attained|achieved|if|where|with|for|occurring|reached)\b",
    re.IGNORECASE,
)


def drop_qualifier(text: str) -> str:
    """'3, attained at a=b=c=1' / '3 \\text{ when } x=1' -> '3'."""
    match = _QUALIFIER.search(text)
    if match and match.start() > 0 and text[: match.start()].strip():
        return text[: match.start()].strip()
    return text


_NAME = re.compile(r"^(?:[A-Za-z]+|\\[A-Za-z]+)(?:_\{?[^{}=]*\}?)?(?:\^\{?[^{}=]*\}?)?(?:\([^()=]*\))?('*)$")


def _is_name(side: str) -> bool:
    """'S', 'a_n', 'S_{\\min}', 'f(n)', 'P(1,1,1)', '\\min': something a value is given to."""
    return bool(_NAME.match(side.strip()))


def _value_of_equality(text: str) -> str:
    """The last side of an equality chain, when the chain states a value: either that side is
    constant ('a+b+c = 3') or the side before names the value ('f(n) = n^2+2'). An equation
    between expressions ('2x+4y-3 = x') is returned whole, as a relation."""
    sides = [s for s in split_top_level(text, ("=",)) if s]
    if len(sides) < 2:
        return text
    if _is_constant(sides[-1]) or _is_name(sides[-2]):
        return sides[-1]
    return text


def stated_value(text: str) -> str:
    """'f(1,1,1) = 3' -> '3'; '\\frac{\\sqrt3}{2} \\approx 0.866' -> '\\frac{\\sqrt3}{2}';
    'AB = 4, CD = 5' -> '4, 5'.

    Of an approximation, the exact side is kept: it is what the model claims, the decimal only
    illustrates it.
    """
    clauses = [c for c in split_top_level(text, (",", ";", r"\quad")) if c]
    if len(clauses) >= 2 and all(len(split_top_level(c, ("=",))) >= 2 for c in clauses):
        return ", ".join(_value_of_equality(c) for c in clauses)
    value = _value_of_equality(text)
    approx = [s for s in split_top_level(value, (r"\approx", r"\simeq", r"\sim")) if s]
    if len(approx) > 1:
        exact = [s for s in approx if not _VARIABLE.match(s)]
        value = exact[0] if exact else approx[-1]
    return value
