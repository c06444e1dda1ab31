"""Hostile problem files, one per row: each is refused with the file, the field and a short reason,
quickly and without building what it asks for (issue 12, findings 1, 4, 5, 8)."""

from __future__ import annotations

import re

import pytest
import sympy

from extrembench.core.untrusted_yaml import MAX_FILE_BYTES, UntrustedYAMLError, parse_untrusted_yaml
from extrembench.problems.expr import MAX_RESULT_DIGITS, ExpressionError, parse_expression
from extrembench.problems.problem import ProblemError, check_source, load_problem
from extrembench.problems.statement import answer_latex, render_statement
from extrembench.verify.validate import Effort, check_problem

GOOD = 'sense: min\nvariables: {a: positive, b: positive}\nobjective: "a/b + b/a"\nanswer: "2"\n'


def alias_bomb(levels: int = 9) -> str:
    """The classic "billion laughs": each level lists the previous one 9 times (9^levels strings)."""
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "id: bomb\nsense: min\n" + "\n".join(lines) + f"\nobjective: *a{levels}\nanswer: 1\n"


MAX_SIN_459 = "Max(" + ", ".join(f"sin({i}a)" for i in range(1, 460)) + ")"  # 4,944 characters: too long
MAX_SIN_95 = "Max(" + ", ".join(f"sin({i}a)" for i in range(1, 96)) + ")"  # 949 characters: too many arguments
PRODUCT_OF_POWERS = "*".join(["10^999"] * 140)  # 979 characters: within the text limit, 139,860 digits

# (file name stem, file text or None for the default, expected field, expected words in the reason)
CASES = [
    ("alias-bomb", alias_bomb(), "(yaml)", "aliases and anchors are not allowed"),
    ("anchor-only", "id: anchor-only\nsense: &s min\n" + GOOD.split("\n", 1)[1], "(yaml)", "anchor"),
    (
        "deep-nesting",
        "id: deep-nesting\n" + GOOD + "technique: " + "[" * 5000 + "]" * 5000 + "\n",
        "(yaml)",
        "nested deeper than",
    ),
    ("too-big", "id: too-big\n" + GOOD + "# " + "x" * MAX_FILE_BYTES + "\n", "(file)", "byte limit"),
    ("not-utf8", None, "(file)", "not UTF-8"),
    ("huge-int", "id: huge-int\n" + GOOD.replace('"2"', "1" * 5000), "(yaml)", "cannot be read"),
    (
        "source-text-list",
        "id: source-text-list\n" + GOOD + "source: {language: en, text: [1, 2]}\n",
        "source.text",
        "is not of type 'string'",
    ),
    (
        "source-language-int",
        "id: source-language-int\n" + GOOD + "source: {language: 12, text: x}\n",
        "source.language",
        "is not of type 'string'",
    ),
    (
        "source-translation-map",
        "id: source-translation-map\n" + GOOD + "source: {language: zh, text: x, translation: {a: 1}}\n",
        "source.translation",
        "is not of type 'string'",
    ),
    (
        "long-value-in-error",
        "id: long-value-in-error\n" + GOOD + "difficulty: [" + ", ".join(["x" * 50] * 2000) + "]\n",
        "difficulty",
        "characters)",
    ),
    ("arabic-digit", "id: arabic-digit\n" + GOOD.replace('"2"', '"٢"'), "answer", "non-ASCII digit"),
    ("fullwidth-digit", "id: fullwidth-digit\n" + GOOD.replace("a/b", "２*a/b"), "objective", "non-ASCII digit"),
    ("id-not-file-name", "id: another-name\n" + GOOD, "id", "must equal the file name stem"),
    (
        "product-of-powers",
        "id: product-of-powers\n" + GOOD.replace("a/b + b/a", PRODUCT_OF_POWERS + " * a/b + b/a"),
        "objective",
        "more than 1000 digits",
    ),
    (
        "max-of-459-sines",
        "id: max-of-459-sines\n" + GOOD.replace("a/b + b/a", MAX_SIN_459),
        "objective",
        "expression too long",
    ),
    (
        "max-of-95-sines",
        "id: max-of-95-sines\n" + GOOD.replace("a/b + b/a", MAX_SIN_95),
        "objective",
        "Max/Min arguments",
    ),
    (
        "all-expressions-too-long",
        "id: all-expressions-too-long\n"
        + GOOD
        + "constraints: ["
        + ", ".join([f'"a + b <= {"1" * 50}"' for _ in range(5)] + ['"' + " + ".join(["a"] * 200) + ' >= 0"'] * 3)
        + "]\n",
        "(expressions)",
        "characters together",
    ),
]


def _write(tmp_path, stem: str, text: str | None):
    path = tmp_path / f"{stem}.yaml"
    if text is None:
        path.write_bytes(b"id: not-utf8\nsense: min\n\xff\xfe\n")
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("stem, text, field, words", CASES, ids=[c[0] for c in CASES])
def test_hostile_file_is_refused_with_file_field_and_short_reason(tmp_path, stem, text, field, words):
    path = _write(tmp_path, stem, text)
    with pytest.raises(ProblemError) as info:
        load_problem(path)
    assert (info.value.file, info.value.field) == (str(path), field)
    assert words in info.value.reason
    assert len(str(info.value)) < 1000  # never the expanded or huge value


@pytest.mark.parametrize("stem, text, field, words", CASES, ids=[c[0] for c in CASES])
def test_check_reports_hostile_file_as_invalid(tmp_path, stem, text, field, words):
    """`extrembench check` goes through the same loader and the same id rule as the pipeline."""
    path = _write(tmp_path, stem, text)
    result = check_problem(path, effort=Effort(starts=4))
    assert result.status == "invalid"
    assert f"{path}: {field}: " in result.reason and words in result.reason


def test_source_types_are_schema_errors_naming_the_field():
    with pytest.raises(ProblemError) as info:
        check_source({"source": {"text": [1, 2]}}, path="p.yaml")
    assert (info.value.file, info.value.field) == ("p.yaml", "source.text")
    assert check_source({"source": {"language": "en", "text": "Prove"}}) == {"language": "en", "text": "Prove"}


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",
        "a: !!binary aGVsbG8=\nb: [&y 1]\n",
    ],
)
def test_loader_refuses_any_alias_or_anchor(text):
    with pytest.raises(UntrustedYAMLError, match="aliases and anchors"):
        parse_untrusted_yaml(text)


@pytest.mark.parametrize("text, fragment", [("٢", "U+0662"), ("a + ２", "U+FF12"), ("1٣", "U+0663")])
def test_unicode_digits_are_rejected_not_normalised(text, fragment):
    with pytest.raises(ExpressionError, match=re.escape(fragment)):
        parse_expression(text, ["a"])


@pytest.mark.parametrize(
    "text",
    [
        PRODUCT_OF_POWERS,
        "10^999*(10^999*(a + 1))",  # the product hidden by distribution into a sum
        "1e1200",
        "10^4500",
    ],
)
def test_numbers_past_the_digit_limit_are_refused(text):
    with pytest.raises(ExpressionError):
        parse_expression(text, ["a"])


def test_largest_accepted_number_renders():
    """The largest number the parser accepts prints: statement and LaTeX gold never hit Python's
    4,300-digit int -> str limit."""
    from extrembench.problems.problem import problem_from_dict

    big = f"10^{MAX_RESULT_DIGITS - 1}"
    problem = problem_from_dict(
        {
            "id": "big",
            "sense": "min",
            "variables": {"a": "positive"},
            "objective": f"a + 1/a + {big}",
            "answer": f"2 + {big}",
        }
    )
    assert str(10 ** (MAX_RESULT_DIGITS - 1)) in render_statement(problem)
    assert answer_latex(f"2 + {big}").startswith("1000")


def test_max_min_are_built_unevaluated_and_still_evaluate_at_points():
    expr = parse_expression("Max(a, 2, sin(a))", ["a"])
    assert isinstance(expr, sympy.Max)
    assert expr.subs(sympy.Symbol("a"), 3) == 3
    assert float(parse_expression("Min(1, 2)", []).evalf(20)) == 1.0
