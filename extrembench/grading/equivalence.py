"""Whether a predicted answer equals the gold one: Math-Verify as the engine, plus our rules.

Our rules on top of Math-Verify's `verify`:
- decimals count when accurate to at least 4 decimal places (|diff| < 1e-4 with >= 4 places
  written), and never when fewer places are written unless the decimal is exactly the value;
- variable-expression answers are compared by substituting sample points into the sympy
  objects Math-Verify's LaTeX parser produced (raw text is never sympified);
- Math-Verify's signal-based timeouts are switched off (they only work in a main thread); the
  caller bounds time with a process-level hard timeout (see pool.py).
"""

from __future__ import annotations

import logging
import random
import re
from fractions import Fraction

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

from extrembench.grading.answer_value import stated_value
from extrembench.grading.normalize import normalize_answer

# We switch Math-Verify's signal timeouts off on purpose (see module docstring); its warning
# about that on every call is noise.
logging.getLogger("math_verify").setLevel(logging.ERROR)

_PARSE_TARGETS = (LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig())
MIN_DECIMAL_PLACES = 4
# Correctly rounded at 4 places: within half a unit of the 4th decimal.
DECIMAL_TOLERANCE = sympy.Rational(1, 2 * 10**MIN_DECIMAL_PLACES)
_EVAL_DIGITS = 50
_EXACT_TOLERANCE = sympy.Float("1e-35", _EVAL_DIGITS)


def parse_math(text: str) -> list:
    """Math-Verify's parse of one answer (LaTeX first, then plain expression); [] if none."""
    if not text:
        return []
    return parse(f"${text}$", list(_PARSE_TARGETS), parsing_timeout=None)


_DECIMAL_LITERAL = re.compile(r"(?<![\d.])\d*\.(\d+)(?![\d.])")
_SINGLE_DECIMAL = re.compile(r"^[-+]?\d*\.\d+$")


def decimal_places(text: str) -> int | None:
    """Fewest decimal places among the decimal literals in text; None if there are none."""
    places = [len(m.group(1)) for m in _DECIMAL_LITERAL.finditer(text)]
    return min(places) if places else None


def _is_scalar(obj) -> bool:
    return isinstance(obj, sympy.Expr) and not obj.free_symbols


def _numeric(obj, text: str):
    """High-precision value; a lone decimal literal is taken exactly (Fraction of the literal)."""
    if _SINGLE_DECIMAL.match(text):
        return sympy.Rational(Fraction(text))
    return obj


def _real_value(expr) -> sympy.Float | None:
    value = sympy.N(expr, _EVAL_DIGITS)
    if isinstance(value, sympy.Float) and value.is_finite:
        return value
    if isinstance(value, sympy.Integer):
        return sympy.Float(value, _EVAL_DIGITS)
    return None


def decimal_verdict(gold_text: str, gold_obj, pred_text: str, pred_obj) -> bool | None:
    """Our decimal rule for two scalars when either is written with decimals; None if it does
    not apply (no decimals, not scalars, or not real numbers)."""
    places = [p for p in (decimal_places(gold_text), decimal_places(pred_text)) if p is not None]
    if not places or not (_is_scalar(gold_obj) and _is_scalar(pred_obj)):
        return None
    gold_value = _real_value(_numeric(gold_obj, gold_text))
    pred_value = _real_value(_numeric(pred_obj, pred_text))
    if gold_value is None or pred_value is None:
        return None
    difference = abs(gold_value - pred_value)
    if difference <= _EXACT_TOLERANCE * max(1, abs(gold_value)):
        return True
    if min(places) < MIN_DECIMAL_PLACES:
        return False
    # Half a unit inclusive: a value exactly halfway (243/32 = 7.59375) rounds either way; the
    # slack is the 50-digit evaluation error, which put 7.5938 a hair beyond the half unit.
    if difference <= DECIMAL_TOLERANCE + _EXACT_TOLERANCE * max(1, abs(gold_value)):
        return True
    return _is_truncation(pred_text, gold_value) or _is_truncation(gold_text, pred_value)


def _is_truncation(decimal_text: str, exact_value: sympy.Float) -> bool:
    """'0.6666' for 2/3: the digits of the value cut off (not rounded) after the places written."""
    if not _SINGLE_DECIMAL.match(decimal_text):
        return False
    places = decimal_places(decimal_text)
    written = Fraction(decimal_text) * 10**places
    cut = int(abs(exact_value) * 10**places)  # int() truncates toward zero
    return written == (cut if exact_value >= 0 else -cut)


# Names models and problems use for integer parameters; they are sampled at integers so
# floor, factorial and (-1)^n answers stay defined.
_INTEGER_NAMES = {"n", "m", "k", "i", "j", "N", "M", "K", "d", "t", "q", "p", "r", "s"}
_SAMPLE_POINTS = 8
_MIN_VALID_POINTS = 3
_SUBSTITUTION_RELATIVE_TOLERANCE = sympy.Float("1e-12", _EVAL_DIGITS)


def _sample_values(names: list[str], point: int) -> dict[str, sympy.Rational]:
    rng = random.Random(f"{point}:{','.join(names)}")
    values = {}
    for name in names:
        if name in _INTEGER_NAMES:
            values[name] = sympy.Integer(3 + point + rng.randrange(3))
        else:
            values[name] = sympy.Rational(rng.randrange(1100, 3900), 1000)
    return values


def _evaluate_at(expr, symbols: dict[str, sympy.Symbol], values: dict[str, sympy.Rational]):
    value = sympy.N(expr.subs({symbols[n]: v for n, v in values.items() if n in symbols}), 30)
    real, imaginary = value.as_real_imag()
    if all(
        isinstance(part, (sympy.Float, sympy.Integer, sympy.Rational)) and part.is_finite for part in (real, imaginary)
    ):
        return sympy.Float(real, 30) + sympy.I * sympy.Float(imaginary, 30)
    return None


def substitution_verdict(gold_obj, pred_obj) -> bool | None:
    """Compare two expressions in variables at deterministic sample points; None when too few
    points evaluate to finite numbers on both sides to decide."""
    if not (isinstance(gold_obj, sympy.Expr) and isinstance(pred_obj, sympy.Expr)):
        return None
    gold_symbols = {s.name: s for s in gold_obj.free_symbols}
    pred_symbols = {s.name: s for s in pred_obj.free_symbols}
    if not set(pred_symbols) <= set(gold_symbols):
        return False  # the prediction depends on something the gold answer does not
    names = sorted(gold_symbols)
    valid = 0
    for point in range(_SAMPLE_POINTS):
        values = _sample_values(names, point)
        gold_value = _evaluate_at(gold_obj, gold_symbols, values)
        pred_value = _evaluate_at(pred_obj, pred_symbols, values)
        if gold_value is None or pred_value is None:
            continue
        scale = max(sympy.Float(1), abs(gold_value))
        if abs(gold_value - pred_value) > _SUBSTITUTION_RELATIVE_TOLERANCE * scale:
            return False
        valid += 1
    return True if valid >= _MIN_VALID_POINTS else None


_DIFFERENT_RELATIVE = sympy.Float("1e-30", _EVAL_DIGITS)


def scalars_differ(gold_obj, pred_obj) -> bool:
    """True when two constant expressions evaluate (50 digits) to clearly different numbers.

    Evaluating each side separately is fast even for 10^{10^{10}}, while Math-Verify's
    (gold - pred) would first build that integer exactly; it also spares simplify() on the
    common case of a wrong answer.
    """
    if not (_is_scalar(gold_obj) and _is_scalar(pred_obj)):
        return False
    gold_value, pred_value = sympy.N(gold_obj, _EVAL_DIGITS), sympy.N(pred_obj, _EVAL_DIGITS)
    if not (gold_value.is_number and pred_value.is_number):
        return False
    if gold_value.is_finite is not True or pred_value.is_finite is not True:
        return False
    scale = max(sympy.Float(1), abs(gold_value))
    return bool(abs(gold_value - pred_value) > _DIFFERENT_RELATIVE * scale)


def _has_variables(obj) -> bool:
    return isinstance(obj, sympy.Expr) and bool(obj.free_symbols)


def verify_quiet(gold_parsed: list, pred_parsed: list, **options) -> bool:
    """Math-Verify's verify with its signal timeout off (the caller holds the hard timeout)."""
    return bool(verify(gold_parsed, pred_parsed, timeout_seconds=None, **options))


def prepare(text: str, answer_type: str) -> str:
    """Normalized answer text, reduced to the value it states ('S = 3' -> '3')."""
    return stated_value(normalize_answer(text, answer_type))


def equivalent_default(gold: str, predicted: str, answer_type: str = "number") -> bool:
    """Our equivalence: string match, then decimal rule, substitution, Math-Verify."""
    gold_text = prepare(gold, answer_type)
    pred_text = prepare(predicted, answer_type)
    if not pred_text:
        return False
    if gold_text == pred_text:
        return True
    gold_parsed = parse_math(gold_text)
    pred_parsed = parse_math(pred_text)
    if not gold_parsed or not pred_parsed:
        return False
    gold_obj, pred_obj = gold_parsed[0], pred_parsed[0]
    verdict = decimal_verdict(gold_text, gold_obj, pred_text, pred_obj)
    if verdict is not None:
        return verdict
    if _has_variables(gold_obj) or _has_variables(pred_obj):
        verdict = substitution_verdict(gold_obj, pred_obj)
        if verdict is not None:
            return verdict
    if scalars_differ(gold_obj, pred_obj):
        return False
    if isinstance(gold_obj, sympy.Rational) and isinstance(pred_obj, sympy.Rational):
        return gold_obj == pred_obj  # exact, however large
    return verify_quiet(gold_parsed, pred_parsed, float_rounding=MIN_DECIMAL_PLACES)
