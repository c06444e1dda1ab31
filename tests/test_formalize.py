"""Rule-based formalizer: LaTeX -> plain syntax, statement -> spec, and validation of the specs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from extrembench.cli import main
from extrembench.problems.latex import FormalizeError, latex_relations, latex_to_text
from extrembench.problems.problem import problem_from_dict
from extrembench.sources.formalize import formalize_statement
from extrembench.sources.formalize_stage import formalize_line

FIXTURES = Path(__file__).parent / "fixtures" / "formalize" / "standard_phrasing.jsonl"
STANDARD = [json.loads(line) for line in FIXTURES.read_text(encoding="utf-8").splitlines() if line.strip()]
VARIABLES = {"a", "b", "c", "x", "y", "x_1", "x_2", "x_12"}


@pytest.mark.parametrize(
    "latex, text",
    [
        (r"\frac{a^2}{b}+\frac{b^2}{c}", "a^2/b + b^2/c"),
        (r"\dfrac{1}{1+x^2}", "1/(1 + x^2)"),
        (r"\frac12 a", "1/2*a"),
        (r"2ab+\sqrt[3]{abc}", "2*a*b + cbrt(a*b*c)"),
        (r"\sqrt{a^2+1}\cdot b", "sqrt(a^2 + 1)*b"),
        (r"\sqrt[4]{a}", "a^(1/4)"),
        (r"\left(a+b\right)(b+c)", "(a + b)*(b + c)"),
        (r"a(b+c)^2", "a*(b + c)^2"),
        (r"(a-b)^2(b-c)^2", "(a - b)^2*(b - c)^2"),
        (r"a^{b+1}", "a^(b + 1)"),
        (r"a^{-1}", "a^(-1)"),
        (r"x^23", "x^2*3"),  # TeX reads one digit as the exponent
        (r"-x^2", "-x^2"),
        (r"a-(b-c)", "a - (b - c)"),
        (r"a/(b/c)", "a/(b/c)"),
        (r"a \times b \div c", "a*b/c"),
        (r"\sin^2 x + 2\sin x\cos x", "sin(x)^2 + 2*sin(x)*cos(x)"),
        (r"\tan(2x)", "tan(2*x)"),
        (r"\sin 2x", "sin(2*x)"),
        (r"\max\{a,b,c\}-\min\{a,b\}", "Max(a, b, c) - Min(a, b)"),
        (r"\max\left\{a, b\right\}", "Max(a, b)"),
        (r"|x-1|+|x+2|", "Abs(x - 1) + Abs(x + 2)"),
        (r"2|x|", "2*Abs(x)"),
        (r"\left|a-b\right|\left|b\right|", "Abs(a - b)*Abs(b)"),
        (r"e^{x}-x", "E^x - x"),
        (r"\mathrm{e}^{a}", "E^a"),
        (r"\ln(1+a)", "log(1 + a)"),
        (r"\exp(a)", "exp(a)"),
        (r"\pi a", "pi*a"),
        (r"x_1x_2 + x_{12}", "x_1*x_2 + x_12"),
        (r"\displaystyle a \, b", "a*b"),
        (r"0.5a", "0.5*a"),
        (r"a · b − c", "a*b - c"),
    ],
)
def test_latex_to_text(latex, text):
    assert latex_to_text(latex, VARIABLES) == text


@pytest.mark.parametrize(
    "latex, text",
    [
        (r"\sum_{cyc} \frac{a^2}{b}", "a^2/b + b^2/c + c^2/a"),
        (r"\sum_{\text{cyc}} a^2b + 1", "a^2*b + b^2*c + c^2*a + 1"),
        (r"\sum_{\mathrm{cyc}} a \cdot b", "a*b + b*c + c*a"),
        (r"2\sum_{cyc} ab", "2*(a*b + b*c + c*a)"),
        (r"\prod_{cyc}(1+a)", "(1 + a)*(1 + b)*(1 + c)"),
        (r"\sum_{cyclic} \sqrt{a+b}", "sqrt(a + b) + sqrt(b + c) + sqrt(c + a)"),
    ],
)
def test_cyclic_sums_rotate_the_declared_variables(latex, text):
    assert latex_to_text(latex, {"a": "positive", "b": "positive", "c": "positive"}) == text


def test_cyclic_sum_follows_declaration_order():
    assert latex_to_text(r"\sum_{cyc} x^2y", ["x", "y", "z", "w"]) == "x^2*y + y^2*z + z^2*w + w^2*x"


def test_e_is_a_variable_when_declared():
    assert latex_to_text("a+e", {"a", "e"}) == "a + e"
    assert latex_to_text("a+e", {"a"}) == "a + E"


@pytest.mark.parametrize(
    "latex, relations",
    [
        ("a+b+c=3", ["a + b + c = 3"]),
        (r"0 \le a \leq b < 1", ["0 <= a", "a <= b", "b < 1"]),
        (r"x \geqslant y", ["x >= y"]),
        (r"ab+bc+ca \ge 3", ["a*b + b*c + c*a >= 3"]),
        ("x ≤ 2y", ["x <= 2*y"]),
    ],
)
def test_latex_relations(latex, relations):
    assert latex_relations(latex, VARIABLES) == relations


@pytest.mark.parametrize(
    "latex, reason",
    [
        (r"\sum_{i=1}^n a_i", r"only the cyclic \\sum_\{cyc\} is supported"),
        (r"\sum_{sym} a^2b", r"only the cyclic \\sum_\{cyc\} is supported"),
        (r"\sum a", r"only the cyclic \\sum_\{cyc\} is supported"),
        (r"\sum_{cyc} 2", "needs a body over the declared variables"),
        (r"a_1 + \cdots + a_n", r"unsupported LaTeX '\\cdots'"),
        (r"\log a", r"unsupported LaTeX '\\log'"),  # base is ambiguous; \ln is accepted
        (r"\text{max}", r"unsupported LaTeX"),
        (r"|a - b", "unclosed absolute value"),
        (r"\max\{a\}", "at least two arguments"),
        (r"\frac{a}{", "expected a number, variable"),
        (r"a^b^c", "double exponent"),
        (r"a=b", "found a relation"),
        ("__import__('os')", "unexpected character"),
        ("a @ b", "unexpected character"),
    ],
)
def test_latex_to_text_rejects(latex, reason):
    with pytest.raises(FormalizeError, match=reason):
        latex_to_text(latex, VARIABLES)


def test_standard_fixture_spec_is_exact():
    spec = formalize_statement(STANDARD[0]["id"], STANDARD[0]["statement"], STANDARD[0]["answer"])
    assert spec == {
        "id": "fx-titu-cyclic",
        "sense": "min",
        "variables": {"a": "positive", "b": "positive", "c": "positive"},
        "constraints": ["a + b + c = 3"],
        "objective": "a^2/b + b^2/c + c^2/a",
        "answer": "3",
        "statement": STANDARD[0]["statement"],
    }


@pytest.mark.parametrize(
    "statement, sense, variables, constraints, objective",
    [
        (
            "Let $x, y$ be real numbers such that $x^2+y^2=1$. Find the maximum of $x+y$.",
            "max",
            {"x": "real", "y": "real"},
            ["x^2 + y^2 = 1"],
            "x + y",
        ),
        (
            "Given nonnegative reals $a,b,c$ with $a+b+c=1$, find the maximum value of $ab+bc+ca$.",
            "max",
            {"a": "nonnegative", "b": "nonnegative", "c": "nonnegative"},
            ["a + b + c = 1"],
            "a*b + b*c + c*a",
        ),
        (
            "Let $a, b, c > 0$ with $abc = 1$. Find the smallest possible value of $P = a+b+c$.",
            "min",
            {"a": "positive", "b": "positive", "c": "positive"},
            ["a*b*c = 1"],
            "a + b + c",
        ),
        (
            r"Suppose $x, y, z$ are non-negative real numbers with $x+y+z=1$, $xy \le z$. Determine the least value of $z$.",
            "min",
            {"x": "nonnegative", "y": "nonnegative", "z": "nonnegative"},
            ["x + y + z = 1", "x*y <= z"],
            "z",
        ),
        (
            r"Let $a, b$ be real numbers with $a, b \ge 1$ and $a + b = 4$. Find the greatest value of $f(a, b) = ab$.",
            "max",
            {"a": "real", "b": "real"},
            ["a >= 1", "b >= 1", "a + b = 4"],
            "a*b",
        ),
        (r"Let $x \in (0, \pi)$. Find the maximum value of $\sin x$.", "max", {"x": "(0, pi)"}, [], "sin(x)"),
        (
            r"Let $x,y \in \mathbb{R}$ with $x + y = 2$. Find the minimum value of $x^2 + y^2$.",
            "min",
            {"x": "real", "y": "real"},
            ["x + y = 2"],
            "x^2 + y^2",
        ),
        (
            r"Let $a, b, c, d, e$ be positive real numbers with $abcde = 1$. Find the minimum of $a+b+c+d+e$.",
            "min",
            {name: "positive" for name in "abcde"},
            ["a*b*c*d*e = 1"],
            "a + b + c + d + e",
        ),
        (
            r"For positive real numbers $a$ and $b$ with $a+b=1$, find the maximum value of $ab$.",
            "max",
            {"a": "positive", "b": "positive"},
            ["a + b = 1"],
            "a*b",
        ),
        (
            r"Let $x$, $y$ and $z$ be nonnegative reals with $x+y+z=3$. Find the maximum value of $xy+z$.",
            "max",
            {"x": "nonnegative", "y": "nonnegative", "z": "nonnegative"},
            ["x + y + z = 3"],
            "x*y + z",
        ),
        (
            r"What is the largest possible value of $x(1-x)$ over all real numbers $x$?",
            "max",
            {"x": "real"},
            [],
            "x*(1 - x)",
        ),
        (
            r"Let $x_1, x_2 > 0$ satisfy $x_1 x_2 = 1$. Find the minimum value of $x_1 + x_2$.",
            "min",
            {"x_1": "positive", "x_2": "positive"},
            ["x_1*x_2 = 1"],
            "x_1 + x_2",
        ),
        (
            r"For positive real numbers $a, b$ with $ab = 1$ (so at least one of them is at least one), find the "
            r"maximum value of $\frac{1}{1+a}+\frac{1}{1+b}$.",  # "at least" is not a second sense word
            "max",
            {"a": "positive", "b": "positive"},
            ["a*b = 1"],
            "1/(1 + a) + 1/(1 + b)",
        ),
        (
            r"Let $\alpha$ be a real number. Find the maximum value of $\sin\alpha\cos\alpha$.",
            "max",
            {"alpha": "real"},
            [],
            "sin(alpha)*cos(alpha)",
        ),
    ],
)
def test_statement_phrasings(statement, sense, variables, constraints, objective):
    spec = formalize_statement("p", statement, "1")
    assert (spec["sense"], spec["variables"], spec.get("constraints", []), spec["objective"]) == (
        sense,
        variables,
        constraints,
        objective,
    )


@pytest.mark.parametrize(
    "answer, text",
    [
        ("3", "3"),
        (3, "3"),
        (r"\frac{4}{27}", "4/27"),
        (r"2\sqrt{2}", "2*sqrt(2)"),
        ("$-1$", "-1"),
        (r"\boxed{\dfrac{3}{2}}", "3/2"),
        ("e", "E"),
        (0.25, "0.25"),
    ],
)
def test_answer_forms(answer, text):
    statement = "For positive real numbers $a, b$, find the minimum value of $a+b$."
    assert formalize_statement("p", statement, answer)["answer"] == text


@pytest.mark.parametrize(
    "statement, answer, reason",
    [
        ("Prove that $a+b \\ge 2\\sqrt{ab}$ for positive reals $a, b$.", "0", "no 'find the minimum/maximum"),
        ("For real numbers $x$, find the minimum and the maximum value of $\\sin x$.", "-1", "no 'find the minimum"),
        (
            "Let $x$ be real. Find the minimum value of $x^2$, and the largest value of $x^2$ on $[0,1]$.",
            "0",
            "both a minimum and a maximum",
        ),
        ("Let $n$ be a positive integer. Find the minimum value of $n + 1/n$.", "2", "'integer'"),
        ("Let $a, b, c$ be distinct reals. Find the minimum of $a^2+b^2+c^2$.", "0", "'distinct'"),
        ("Let $a, b$ be the sides of a triangle. Find the maximum of $a/b$.", "1", "'triangle'"),
        ("Let $a, b$ be positive reals. Find the minimum value of $a + c$.", "0", "undeclared c"),
        ("Let $a, b$ satisfy $a+b=1$. Find the minimum value of $a^2 + b^2$.", "1/2", "no domain stated for a, b"),
        ("Find the minimum value of $x^2 + 1$.", "1", "no variable declaration"),
        ("For positive reals $a, b$, find the minimum value of $\\sum_{i=1}^{2} a$.", "0", "only the cyclic"),
        ("For positive reals $a, b$, find the minimum value of $\\int a$.", "0", "unsupported LaTeX"),
        ("For positive reals $a, b$, find the minimum value of $a + b$.", "x", "not a number"),
        ("For positive reals $a, b$, find the minimum value of $a+b=2$.", "2", "found a relation"),
        ("For positive reals $a, b$, find the minimum value of $a+b.", "2", "unbalanced \\$"),
        ("For positive reals $a, b$ with $a^2 + b^2$, find the minimum value of $a+b$.", "2", "expected a relation"),
        ("For positive reals $a, b$, find the minimum value of $a+b$.", "", "answer is empty"),
        ("For positive reals $a$, find the minimum value of $1/(a-a)$.", "1", "does not load: objective"),
    ],
)
def test_statements_the_rules_refuse(statement, answer, reason):
    with pytest.raises(FormalizeError, match=reason):
        formalize_statement("p", statement, answer)


def test_malicious_text_is_refused_without_running(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    statement = r"For positive reals $a$, find the minimum value of $__import__('os').system('touch pwned')$."
    with pytest.raises(FormalizeError, match="unexpected character"):
        formalize_statement("p", statement, "0")
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            '{"id": "q", "statement": "For positive reals $a$, find the minimum of $a+1/a$.", "answer": "2"}',
            {
                "id": "q",
                "sense": "min",
                "variables": {"a": "positive"},
                "objective": "a + 1/a",
                "answer": "2",
                "statement": "For positive reals $a$, find the minimum of $a+1/a$.",
            },
        ),
        (
            '{"id": "q", "statement": "Prove it.", "answer": "2"}',
            {"id": "q", "error": "no 'find the minimum/maximum (value) of $...$' clause"},
        ),
        ('{"id": "q", "answer": "2"}', {"id": "q", "error": "line 7: missing field(s) statement"}),
        ("[1, 2]", {"id": None, "error": "line 7: expected a JSON object"}),
    ],
)
def test_formalize_line(line, expected):
    assert formalize_line(line, 7) == expected


def test_formalize_line_reports_bad_json():
    result = formalize_line("{not json", 3)
    assert result["id"] is None and result["error"].startswith("line 3: not valid JSON")


def test_cli_prints_one_json_line_per_input(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    lines = FIXTURES.read_text(encoding="utf-8").splitlines()[:3] + ['{"id": "bad", "statement": "Hi.", "answer": 1}']
    source.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    assert main(["formalize", "--input", str(source)]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [item["id"] for item in printed] == ["fx-titu-cyclic", "fx-circle-sum", "fx-pair-products", "bad"]
    assert "error" in printed[3] and all("error" not in item for item in printed[:3])


def test_cli_names_an_unreadable_input(tmp_path, capsys):
    assert main(["formalize", "--input", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err


def test_fixtures_are_many_and_all_formalize():
    assert len(STANDARD) >= 15
    for item in STANDARD:
        spec = formalize_statement(item["id"], item["statement"], item["answer"])
        assert spec["id"] == item["id"]


# the validator takes ~1.5-3 s on these (idle 2 cores): the full suite only
SLOW_TO_VALIDATE = {"fx-symmetric-quartic", "fx-cyclic-cubic", "fx-product-on-sphere"}
VALIDATED = [
    pytest.param(item, id=item["id"], marks=[pytest.mark.slow] if item["id"] in SLOW_TO_VALIDATE else [])
    for item in STANDARD
]


@pytest.mark.parametrize("item", VALIDATED)
def test_formalized_spec_is_confirmed_by_the_validator(item):
    from extrembench.verify.validate import check_problem

    problem = problem_from_dict(formalize_statement(item["id"], item["statement"], item["answer"]))
    result = check_problem(replace(problem, statement=None), seed=0)
    assert result.status == "confirmed", result.reason


# The validator reads statements with the formalizer's own LaTeX reader, so every formalized
# statement (\max\{...\}, "P = ...", \sum_{cyc} included) reads back to its own spec.
@pytest.mark.parametrize("item", VALIDATED)
def test_formalized_spec_with_its_statement_is_confirmed(item):
    from extrembench.verify.validate import check_problem

    problem = problem_from_dict(formalize_statement(item["id"], item["statement"], item["answer"]))
    result = check_problem(problem, seed=0)
    assert result.status == "confirmed", result.reason
