"""Text clean-up of an extracted answer before it is parsed: pure string rewrites, no parsing.

Model outputs mix Unicode, full-width CJK forms and LaTeX presentation commands that carry
no mathematical meaning; removing them here keeps the parser's job (and its failure modes)
small.
"""

from __future__ import annotations

import re

# Characters that mean the same as an ASCII or LaTeX spelling. Superscripts are mapped
# before anything else so "x²" does not turn into "x2".
_CHAR_MAP = {
    # minus sign, en dash (a minus to some models), figure dash, small hyphen-minus
    "\u2212": "-",
    "\u2013": "-",
    "\u2012": "-",
    "\ufe63": "-",
    "\u00d7": r"\times ",
    "\u22c5": r"\cdot ",
    "\u00b7": r"\cdot ",
    "\u00f7": "/",
    "\u221a": r"\sqrt",
    "\u03c0": r"\pi ",
    "\u221e": r"\infty ",
    "\u2264": r"\le ",
    "\u2265": r"\ge ",
    "\u2260": r"\ne ",
    "\u00b2": "^2",
    "\u00b3": "^3",
    "\u00b9": "^1",
    # ideographic space, full stop, enumeration comma and lenticular brackets; no-break space
    "\u3000": " ",
    "\u3002": ".",
    "\u3001": ",",
    "\u3010": "[",
    "\u3011": "]",
    "\u00a0": " ",
}
_FULLWIDTH_START, _FULLWIDTH_END, _FULLWIDTH_OFFSET = 0xFF01, 0xFF5E, 0xFEE0
_TRANSLATION = {ord(k): v for k, v in _CHAR_MAP.items()}
_TRANSLATION.update({c: chr(c - _FULLWIDTH_OFFSET) for c in range(_FULLWIDTH_START, _FULLWIDTH_END + 1)})


def normalize_unicode(text: str) -> str:
    """Map full-width forms, Unicode minus, CJK punctuation and math symbols to ASCII/LaTeX."""
    return text.translate(_TRANSLATION)


_SPACING = re.compile(r"\\(?:[,;:! ]|q?quad\b|enspace\b|thinspace\b)|~")
_STYLE = re.compile(r"\\(?:displaystyle|textstyle|scriptstyle)\b")
_LEFT_RIGHT = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)\b\s*(\.)?")
_FRAC_VARIANTS = re.compile(r"\\[dt]frac\b")
_TEXT_LIKE = re.compile(r"\\(?:text|textrm|textbf|textit|mathrm|mathbf|mathit|mbox)\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")  # a word, not a command like \frac
_TRAILING_PUNCT = re.compile(r"[\s.,;:]+$")


def _unwrap_text(match: re.Match) -> str:
    inner = match.group(1)
    # A word ("cm", "when", "and") is prose or a unit, not mathematics: drop it.
    return " " if _WORD.search(inner) else inner


def strip_presentation(latex: str) -> str:
    """Remove LaTeX that changes how an answer looks but not what it is."""
    text = _STYLE.sub("", latex).replace("\\$", "")  # a currency sign is not part of the value
    text = _FRAC_VARIANTS.sub(r"\\frac", text)
    text = _LEFT_RIGHT.sub("", text)
    text = _SPACING.sub(" ", text)
    without_words = _TEXT_LIKE.sub(_unwrap_text, text)
    # An answer that is only text ('\\text{odd}') keeps its words.
    text = without_words if without_words.strip() else _TEXT_LIKE.sub(r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


_DELIMITERS = (("$$", "$$"), ("$", "$"), (r"\(", r"\)"), (r"\[", r"\]"), ("**", "**"))


def strip_delimiters(text: str) -> str:
    """Drop math-mode / bold delimiters wrapped around a whole answer, and trailing punctuation."""
    text = _TRAILING_PUNCT.sub("", text.strip())
    if text.count("$") == 1 and "\\$" not in text:
        text = text.replace("$", "").strip()  # a lone '$' is a currency sign, not math mode
    changed = True
    while changed:
        changed = False
        for left, right in _DELIMITERS:
            if len(text) >= len(left) + len(right) and text.startswith(left) and text.endswith(right):
                text = _TRAILING_PUNCT.sub("", text[len(left) : len(text) - len(right)].strip())
                changed = True
    return text


_GROUPED_NUMBER = re.compile(r"^([-+]?)(\d{1,3}(?:(?:, ?|\{,\} ?| )\d{3})+)(\.\d+)?$")


def remove_thousands_separators(text: str) -> str:
    """'1,234,567' / '1{,}234' / '1 234' as the whole answer -> '1234567'.

    Only a whole-answer number is rewritten: inside a set '\\{100,200\\}' a comma separates
    elements.
    """
    match = _GROUPED_NUMBER.match(text)
    if not match:
        return text
    sign, grouped, fraction = match.groups()
    return sign + re.sub(r"\{,\}|,| ", "", grouped) + (fraction or "")


def normalize_answer(text: str, answer_type: str = "number") -> str:
    """The whole clean-up applied to an extracted (or gold) math answer."""
    text = strip_delimiters(normalize_unicode(text))
    text = strip_delimiters(strip_presentation(text))
    if answer_type == "number":
        text = remove_thousands_separators(text)
    return text
