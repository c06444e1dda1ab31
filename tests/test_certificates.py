"""Certificates for confirmed answers: bound and sos certify correct answers, never an answer
moved by 1e-3, and any changed number makes verification fail; the Parquet round trip and the
verify-certificate CLI; aggregate's require_certificate."""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from support.problems import make_problem as make
from support.rows import problem_row

from extrembench import cli
from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.problems.expr import parse_expression
from extrembench.report.results.leaderboard import restrict_to_certified
from extrembench.verify.checker import bound
from extrembench.verify.checker.bound import target_interval
from extrembench.verify.checker.document import EPSILON, VERIFIER_VERSION, canonical, embed_spec, spec_problem
from extrembench.verify.checker.reduce import apply_plan, homogeneity_degree
from extrembench.verify.checker.verify import verify
from extrembench.verify.provers import bound as bound_search
from extrembench.verify.provers.certify import certify
from extrembench.verify.provers.plan import choose_plan
from extrembench.verify.provers.routes import ROUTES

POS2 = {"a": "positive", "b": "positive"}
POS3 = {"a": "positive", "b": "positive", "c": "positive"}
REAL2 = {"x": "real", "y": "real"}


# (problem, approximate witness, expected kind): small problems, 1 to 3 variables
BOUND_CASES = [
    (make("min", POS2, "(1 + 1/a)*(1 + 1/b)", "9", ["a + b = 1"]), {"a": 0.5, "b": 0.5}),
    (make("min", POS2, "1/a + 1/b", "3 + 2*sqrt(2)", ["a + 2*b = 1"]), {"a": 0.41421356237, "b": 0.29289321881}),
    (make("max", {"x": "(0, 1)"}, "x^2*(1 - x)", "4/27"), {"x": 2 / 3}),
    (make("min", POS3, "1/a + 4/b + 9/c", "36", ["a + b + c = 1"]), {"a": 1 / 6, "b": 1 / 3, "c": 0.5}),
    (
        make(
            "min",
            {"x": "nonnegative", "y": "nonnegative", "z": "nonnegative"},
            "x*y + y*z + z*x - 2*x*y*z",
            "0",
            ["x + y + z = 1"],
        ),
        {"x": 1.0, "y": 0.0, "z": 0.0},
    ),  # optimum at a corner
    (make("min", POS2, "(a + b)^3/(a*b^2)", "27/4"), {"a": 1.0, "b": 2.0}),  # scale invariant: normalised
    (
        make(
            "max",
            {"A": "positive", "B": "positive", "C": "positive"},
            "sin(A) + sin(B) + sin(C)",
            "3*sqrt(3)/2",
            ["A + B + C = pi"],
        ),
        {"A": 1.0471975512, "B": 1.0471975512, "C": 1.0471975512},
    ),
    (
        make(
            "min",
            {"a": "positive", "b": "positive", "c": "positive", "d": "positive"},
            "1/(1 - a) + 1/(1 - b) + 1/(1 - c) + 1/(1 - d)",
            "16/3",
            ["a + b + c + d = 1"],
        ),
        {"a": 0.25, "b": 0.25, "c": 0.25, "d": 0.25},
    ),  # 4 variables
]


def _bound_only(problem, witness):
    """Run the bound machinery directly (certify would try sos first)."""
    parsed = spec_problem(embed_spec(problem))
    sign = 1 if parsed.sense == "min" else -1
    plan = choose_plan(parsed, sign * parsed.answer, witness)
    branches = apply_plan(parsed, sign * parsed.answer, plan)
    target = target_interval(parsed, EPSILON)
    return plan, [bound_search.search(b, target, None) for b in branches]


@pytest.mark.parametrize("problem, witness", BOUND_CASES)
def test_bound_certifies_correct_answers(problem, witness):
    certificate = certify(problem, witness)
    assert certificate["kind"] in ("bound", "sos"), certificate["body"]
    ok, reason = verify(certificate)
    assert ok, reason
    ok, reason = verify(json.loads(canonical(certificate)), embed_spec(problem))
    assert ok, reason


@pytest.mark.parametrize("problem, witness", BOUND_CASES)
@pytest.mark.parametrize("shift", ["+", "-"])
def test_answer_off_by_1e3_never_certifies(problem, witness, shift):
    value = float(spec_problem(embed_spec(problem)).answer.evalf(30))
    moved = value + (1e-3 if shift == "+" else -1e-3) * max(1.0, abs(value))
    wrong = make(problem.sense, problem.variables, problem.objective, repr(moved), problem.constraints)
    certificate = certify(wrong, witness)
    assert certificate["kind"] == "numeric"
    better = (shift == "+") == (problem.sense == "min")  # a claim the true optimum beats
    if better:
        with pytest.raises(bound.BoundFailure):
            _bound_only(wrong, witness)


def _tamper_number(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize("index", range(len(BOUND_CASES)))
def test_tampered_bound_certificate_fails(index):
    problem, witness = BOUND_CASES[index]
    plan, trees = _bound_only(problem, witness)
    certificate = certify(problem, witness)
    if certificate["kind"] != "bound":  # sos got it first: force the bound proof into the document
        certificate = {**certificate, "kind": "bound", "epsilon": str(EPSILON), "body": {"plan": plan, "trees": trees}}
        assert verify(certificate)[0]
    trees = certificate["body"]["trees"]

    def with_token(k, new):
        changed = [list(t) for t in trees]
        changed[0][k] = new
        return {**certificate, "body": {**certificate["body"], "trees": changed}}

    # one number changed inside the proof: a split point moved outside its box (every case here
    # has positive variables), a convexity anchor moved off its box, a token dropped
    seen = set()
    for k, token in enumerate(trees[0]):
        head, _, arg = token.partition(":")
        if head.startswith("s") and "s" not in seen:
            assert not verify(with_token(k, f"{head}:-1000000"))[0]
        elif head == "c" and "c" not in seen:
            moved = ",".join(str(Fraction(v) + 1000) for v in arg.split(","))
            assert not verify(with_token(k, f"c:{moved}"))[0]
        seen.add(head[:1])
    shorter = {**certificate, "body": {**certificate["body"], "trees": [trees[0][:-1]] + trees[1:]}}
    assert not verify(shorter)[0]
    # the answer in the embedded spec and a witness coordinate are numbers too
    spec = dict(certificate["spec"], answer=certificate["spec"]["answer"] + " + 1/1000")
    assert not verify({**certificate, "spec": spec})[0]
    name = next(iter(certificate["witness"]))
    moved = {**certificate["witness"], name: certificate["witness"][name] + " + 1/1000"}
    assert not verify({**certificate, "witness": moved})[0]


SCHUR = "a^3 + b^3 + c^3 + 3*a*b*c - a*b*(a + b) - b*c*(b + c) - c*a*(c + a)"
SOS_CASES = [
    (
        make("min", {"a": "real", "b": "real", "c": "real"}, "a^2 + b^2 + c^2 - a*b - b*c - c*a", "0"),
        {"a": 1.0, "b": 1.0, "c": 1.0},
    ),
    (make("min", REAL2, "x^2 + x*y + y^2 - 3*x - 3*y", "-3"), {"x": 1.0, "y": 1.0}),
    (
        make("min", {"x": "real", "y": "real", "z": "real"}, "x^2 + y^2 + z^2", "1/9", ["x + 2*y + 2*z = 1"]),
        {"x": 1 / 9, "y": 2 / 9, "z": 2 / 9},
    ),
    (make("max", REAL2, "3*x + 4*y", "5", ["x^2 + y^2 = 1"]), {"x": 0.6, "y": 0.8}),
    (
        make("min", POS3, "a/(b + c) + b/(c + a) + c/(a + b)", "3/2"),
        {"a": 1.0, "b": 1.0, "c": 1.0},
    ),  # a, b, c >= 0 as factors
    # inequality constraints and domain ends as factors of Gram blocks
    (
        make("min", {v: "real" for v in "abcd"}, "a^2 + b^2 + c^2 + d^2", "1", ["a + b + c + d >= 2"]),
        {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.5},
    ),
    (
        make(
            "max",
            {f"x{i}": "nonnegative" for i in range(1, 6)},
            "x1*x2 + x2*x3 + x3*x4 + x4*x5",
            "1/4",
            ["x1 + x2 + x3 + x4 + x5 <= 1"],
        ),
        {"x1": 0.5, "x2": 0.5, "x3": 0.0, "x4": 0.0, "x5": 0.0},
    ),
    (make("max", {v: "nonnegative" for v in "abc"}, "a*b*c", "1", ["a + b + c <= 3"]), {"a": 1.0, "b": 1.0, "c": 1.0}),
    (
        make("min", {v: "real" for v in "xyz"}, "x + y + z", "-3", ["x^2 + y^2 + z^2 <= 3"]),
        {"x": -1.0, "y": -1.0, "z": -1.0},
    ),
    # an inequality that is no polynomial is left out (a relaxation), not a reason to give up
    (make("min", REAL2, "x^2 + y^2 - 2*x", "-1", ["sin(x) <= 1"]), {"x": 1.0, "y": 0.0}),
    # two that need the degree raised by 2 (Gram forms homogenised through a + b + c = 1)
    (
        make("max", {v: "nonnegative" for v in "abc"}, "a*b + b*c + c*a - 2*a*b*c", "7/27", ["a + b + c = 1"]),
        {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3},
    ),
    (
        make("min", {v: "nonnegative" for v in "xyz"}, "x^4 + y^4 + z^4", "1/27", ["x + y + z = 1"]),
        {"x": 1 / 3, "y": 1 / 3, "z": 1 / 3},
    ),
    # Schur's inequality: times (a + b + c) (Polya) it is a sum of Gram forms times a, b, c
    (make("min", {v: "nonnegative" for v in "abc"}, SCHUR, "0"), {"a": 1.0, "b": 1.0, "c": 1.0}),
]


@pytest.mark.parametrize("problem, witness", SOS_CASES)
@pytest.mark.slow  # ~5 s
def test_sos_certifies_and_tampering_fails(problem, witness):
    certificate = certify(problem, witness)
    assert certificate["kind"] == "sos", certificate["body"]
    assert verify(certificate) == (True, verify(certificate)[1]) and verify(certificate)[0]
    body = certificate["body"]
    blocks = [body, *body.get("positive", [])]
    k, i = next((k, i) for k, b in enumerate(blocks) for i in range(len(b["gram"])) if b["gram"][i][i] != "0")
    changed = [row[:] for row in blocks[k]["gram"]]
    changed[i][i] = str(eval_fraction(changed[i][i]) + 1)  # one diagonal entry moved by 1
    if k == 0:
        tampered = {**body, "gram": changed}
    else:
        tampered = {
            **body,
            "positive": [dict(b, gram=changed) if j == k - 1 else b for j, b in enumerate(body["positive"])],
        }
    ok, reason = verify({**certificate, "body": tampered})
    assert not ok and "identity" in reason
    if k:  # a block claimed for a product of inequalities the spec does not have
        factors = [dict(b, factors=[99]) for b in body["positive"]]
        ok, reason = verify({**certificate, "body": {**body, "positive": factors}})
        assert not ok and "factors" in reason


def eval_fraction(text):
    from fractions import Fraction

    return Fraction(text)


@pytest.mark.parametrize("problem, witness", SOS_CASES[:3])
def test_sos_wrong_answer_by_1e3_never_certifies(problem, witness):
    value = float(spec_problem(embed_spec(problem)).answer.evalf(30))
    for moved in (value + 1e-3, value - 1e-3):
        wrong = make(problem.sense, problem.variables, problem.objective, repr(moved), problem.constraints)
        assert certify(wrong, witness)["kind"] == "numeric"


def test_refutation_kinds_are_unverifiable_until_the_module_exists():
    ok, reason = verify({"kind": "refutation"})
    try:
        import extrembench.verify.provers.refutation  # noqa: F401
    except ImportError:
        assert not ok and "extrembench.verify.provers.refutation" in reason


def test_spec_mismatch_is_reported():
    problem, witness = BOUND_CASES[0]
    certificate = certify(problem, witness)
    ok, reason = verify(certificate, {**embed_spec(problem), "objective": "(1 + 2/a)*(1 + 1/b)"})
    assert not ok and "objective" in reason


def _rows(problems):
    rows = []
    for i, (problem, witness) in enumerate(problems):
        c = certify(problem, witness)
        spec = {k: v for k, v in embed_spec(problem).items() if k != "answer"}
        from extrembench.problems.statement import answer_latex

        rows.append(
            problem_row(
                f"p{i}",
                source_path="x",
                statement=None,
                answer=answer_latex(problem.answer),
                sense=problem.sense,
                spec_json=json.dumps({"id": f"p{i}", **spec}, sort_keys=True),
                status="confirmed",
                reason="",
                certificate=canonical(c),
                certificate_kind=c["kind"],
                certificate_verifier=c["verifier"],
            )
        )
    return rows


def test_verify_certificate_cli_on_parquet(tmp_path, capsys):
    rows = _rows([BOUND_CASES[0], BOUND_CASES[2], SOS_CASES[1], SOS_CASES[6]])  # the last: inequality blocks
    good = write_artifact(rows, tmp_path / "problems.parquet", "problems")
    assert read_artifact(good, "problems").to_pylist()[0]["certificate"] == rows[0]["certificate"]
    assert cli.main(["verify-certificate", str(good)]) == 0
    # change one number inside one certificate: the witness 1/2 becomes 1/3
    bad_rows = [dict(r) for r in rows]
    bad_rows[0]["certificate"] = _tamper_number(bad_rows[0]["certificate"], '"a":"1/2"', '"a":"1/3"')
    bad = write_artifact(bad_rows, tmp_path / "bad.parquet", "problems")
    capsys.readouterr()
    assert cli.main(["verify-certificate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "p0" in err and "p1" not in err and "p2" not in err and "p3" not in err
    # a confirmed row without a certificate fails too
    bare = [dict(rows[1], certificate=None, certificate_kind=None, certificate_verifier=None)]
    assert cli.main(["verify-certificate", str(write_artifact(bare, tmp_path / "bare.parquet", "problems"))]) == 1


def test_verify_certificate_cli_on_an_angle_witness(tmp_path):
    # the optimum of cos A + cos B + 2 cos C in a triangle is at cos A = cos B = 1/4: an acos witness
    problem = make(
        "max",
        {"A": "positive", "B": "positive", "C": "positive"},
        "cos(A) + cos(B) + 2*cos(C)",
        "9/4",
        ["A + B + C = pi"],
    )
    rows = _rows([(problem, {"A": 1.3181160808, "B": 1.3181160525, "C": 0.5053605204})])
    assert '"A":"acos(1/4)"' in rows[0]["certificate"]
    assert cli.main(["verify-certificate", str(write_artifact(rows, tmp_path / "ok.parquet", "problems"))]) == 0
    bad = [dict(rows[0], certificate=_tamper_number(rows[0]["certificate"], '"A":"acos(1/4)"', '"A":"acos(1/5)"'))]
    assert cli.main(["verify-certificate", str(write_artifact(bad, tmp_path / "bad.parquet", "problems"))]) == 1


@pytest.mark.parametrize(
    "require, kept",
    [
        ("none", ["p0", "p1", "p2", "p3"]),
        ("any", ["p0", "p1"]),
        ("bound", ["p0"]),
        ("sos", ["p1"]),
    ],
)
def test_restrict_to_certified(require, kept):
    grades = pd.DataFrame(
        {"problem_id": ["p0", "p1", "p2", "p3"], "certificate_kind": ["bound", "sos", "numeric", None]}
    )
    assert list(restrict_to_certified(grades, require)["problem_id"]) == kept


def test_check_prints_a_certificate(tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text(
        "id: p\nsense: min\nvariables: {a: positive, b: positive}\nconstraints: ['a + b = 1']\n"
        "objective: (1 + 1/a)*(1 + 1/b)\nanswer: 9\n",
        encoding="utf-8",
    )
    assert cli.main(["check", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[0])
    assert out["status"] == "confirmed" and out["certificate"]["kind"] in ("bound", "sos")
    assert verify(out["certificate"])[0]


def test_leaderboard_states_certified_counts_by_kind():
    from extrembench.report.results.leaderboard import certified_counts, certified_summary

    grades = pd.DataFrame(
        {"problem_id": ["p0", "p0", "p1", "p2", "p3"], "certificate_kind": ["bound", "bound", "sos", "numeric", None]}
    )
    assert certified_counts(grades) == {"certified_bound": 1, "certified_sos": 1, "certified_numeric": 1}
    board = pd.DataFrame([{"benchmark": "extrem", "n_problems": 4, **certified_counts(grades)}])
    assert "- extrem: bound 1, sos 1, numeric 1 of 4 problems" in certified_summary(board)


def test_audit_shows_certificate_kinds_and_verifier(tmp_path):
    from extrembench.report.audit.lineage import AuditReport, _certificate_summary

    path = write_artifact(_rows([BOUND_CASES[0], SOS_CASES[1]]), tmp_path / "problems.parquet", "problems")
    report = AuditReport()
    _certificate_summary(path, 0, report)
    from collections import Counter

    kinds = Counter(json.loads(r["certificate"])["kind"] for r in read_artifact(path, "problems").to_pylist())
    assert report.lines == [
        "certificates: " + ", ".join(f"{k} (verifier {VERIFIER_VERSION}) {n}" for k, n in sorted(kinds.items()))
    ]


def _perturbed_solver(seed: int, size: float):
    """The SDP solver with every float of its answer moved by up to `size` (relative, at least
    absolute 1e-12): what another machine's BLAS or thread count may give within tolerance."""
    import random

    from extrembench.verify.provers import sos

    rng = random.Random(seed)

    def solve(rows, goal, pairs, n_vars):
        _, t, values = sos._solve_numeric(rows, goal, pairs, n_vars)

        def move(v):
            return v + rng.uniform(-size, size) * max(abs(v), 1e-3)

        noisy = [move(v) for v in values]
        return [np.array(R, dtype=float) for R in sos._grams(pairs, noisy)], move(t), noisy

    return solve


@pytest.mark.parametrize("problem, witness", SOS_CASES)
@pytest.mark.slow  # ~18 s
def test_sos_certificate_bytes_survive_solver_noise(problem, witness):
    """The stored rationals do not depend on float noise within solver tolerance (1e-8)."""
    from extrembench.verify.provers import sos

    parsed = spec_problem(embed_spec(problem))
    reference, why = sos.attempt(parsed, None)
    assert reference is not None, why
    for seed in range(4):
        body, why = sos.attempt(parsed, None, solve=_perturbed_solver(seed, 1e-8))
        assert body is not None, why
        assert canonical(body) == canonical(reference)


@pytest.mark.parametrize(
    "problem, witness",
    [
        # constraints no variable can be solved from polynomially: the plan search skips them
        (
            make("max", REAL2, "cos(3*x) + cos(3*y)", "0", ["cos(x) + cos(y) = 0"]),
            {"x": 1.5707963267948966, "y": 1.5707963267948966},
        ),
        (
            make("max", {"x": "real", "y": "real"}, "x", "1", ["sqrt(x^2 + 1) = sqrt(2)*y", "y <= 1"]),
            {"x": 1.0, "y": 1.0},
        ),
        # a solved form with a negative radicand gives a complex candidate, and Max of it cannot be compared
        (
            make(
                "max",
                {f"x{i}": "real" for i in range(1, 6)},
                "Max(x1, x2, x3, x4, x5)*Min(x1, x2, x3, x4, x5)",
                "-1/5",
                ["x1 + x2 + x3 + x4 + x5 = 0", "x1^2 + x2^2 + x3^2 + x4^2 + x5^2 = 1"],
            ),
            {
                "x1": 0.3651483716701107,
                "x2": -0.5477225575051661,
                "x3": 0.3651483716701107,
                "x4": 0.3651483716701107,
                "x5": -0.5477225575051661,
            },
        ),
    ],
)
@pytest.mark.slow  # ~3 s
def test_certifier_never_fails_on_non_polynomial_constraints_or_complex_candidates(problem, witness):
    certificate = certify(problem, witness)
    assert "the certifier failed" not in certificate["body"].get("not_certified", ""), certificate["body"]
    assert verify(certificate)[0]


# (expression, degree, degree when only ratios of polynomials count): one function for the plan's
# normalise step and the scaling refutation
@pytest.mark.parametrize(
    "text, degree, polynomial_degree",
    [
        ("a*b/(a + b)", 1, 1),
        ("(a + b)^3/(a*b^2)", 0, 0),
        ("5", 0, 0),
        ("a^2 + b", None, None),
        ("0", None, None),
        ("sqrt(a^2 + b^2)", 1, None),
        ("Abs(a - b) + a", 1, None),
        ("sqrt(a) + b", None, None),
    ],
)
def test_homogeneity_degree(text, degree, polynomial_degree):
    expr, symbols = parse_expression(text, ["a", "b"]), [parse_expression(name, [name]) for name in "ab"]
    assert homogeneity_degree(expr, symbols) == degree
    assert homogeneity_degree(expr, symbols, polynomial_only=True) == polynomial_degree


def test_normalised_homogeneous_bound_needs_epsilon_zero():
    """f = (a - b)^2 has degree 2: f >= -eps on the simplex a + b = 1 allows f(x) = -eps/2 there,
    which scales to -infinity off it. Such a bound certificate with epsilon > 0 proves nothing and
    must not verify (verifier 2 accepted it); the same proof trees are fine where degree is 0."""
    from extrembench.verify.checker.reduce import needs_exact_level
    from extrembench.verify.provers.certify import _document

    problem = make("min", POS2, "(a - b)^2", "0")
    plan, trees = _bound_only(problem, {"a": 0.5, "b": 0.5})
    assert plan[0] == {"op": "normalize"} and needs_exact_level(spec_problem(embed_spec(problem)), plan)
    forged = _document(
        problem, "bound", {"a": "1", "b": "1"}, {"plan": plan, "trees": trees}, sum(map(len, trees)), EPSILON
    )
    ok, why = verify(json.loads(canonical(forged)))
    assert not ok and "epsilon 0" in why
    scale_free = make("min", POS2, "(a + b)^3/(a*b^2)", "27/4")  # degree 0: epsilon is sound
    assert not needs_exact_level(spec_problem(embed_spec(scale_free)), [{"op": "normalize"}])


def test_an_irrational_domain_end_of_an_eliminated_variable_is_enclosed_not_a_crash():
    """y = pi - x keeps y's domain [0, pi] as a clamp; its end pi is not rational, and the
    certifier died on it ('Pi' object has no attribute 'p'), leaving a numeric certificate."""
    problem = make("max", {"x": "[0, pi]", "y": "[0, pi]"}, "sin(x) + sin(y)", "2", ["x + y = pi"])
    doc = certify(problem, {"x": 1.5707963267948966, "y": 1.5707963267948966})
    assert doc["kind"] == "bound", doc["body"].get("not_certified")
    assert verify(json.loads(canonical(doc)))[0]


def _one(n):
    return {(0,) * n: Fraction(1)}


def _upto(n, high):
    from extrembench.verify.provers import sos

    return sos._monomials(n, 0, high)


MOTZKIN = {(4, 2): Fraction(1), (2, 4): Fraction(1), (0, 0): Fraction(1), (2, 2): Fraction(-3)}


@pytest.mark.parametrize(
    "blocks, target, eqs, multipliers, kept",
    [
        # x^2: 1 and x^2 in z would give monomials 1 and x^4 nothing else can cancel
        ([((), _one(1), _upto(1, 2))], {(2,): Fraction(1)}, [], [], [((), [(1,)])]),
        # the Motzkin form: the fixed point is its half Newton polytope's lattice points
        ([((), _one(2), _upto(2, 3))], MOTZKIN, [], [], [((), [(0, 0), (1, 1), (2, 1), (1, 2)])]),
        # x with x >= 0: the plain block dies, the block times x keeps its constant
        (
            [((), _one(1), _upto(1, 1)), ((0,), {(1,): Fraction(1)}, [(0,)])],
            {(1,): Fraction(1)},
            [],
            [],
            [((0,), [(0,)])],
        ),
        # an equality's multiples can cancel anything: nothing is pruned
        (
            [((), _one(1), _upto(1, 2))],
            {(2,): Fraction(1), (0,): Fraction(-1)},
            [{(1,): Fraction(1), (0,): Fraction(-1)}],
            [_upto(1, 3)],
            [((), [(0,), (1,), (2,)])],
        ),
        # x^4 from G_00 x^4 (+) and from G_11 x^2 (1 - x^2) (-): opposite signs may cancel, both kept
        (
            [((), _one(1), [(2,)]), ((0,), {(0,): Fraction(1), (2,): Fraction(-1)}, [(1,)])],
            {(2,): Fraction(1), (4,): Fraction(-1)},
            [],
            [],
            [((), [(2,)]), ((0,), [(1,)])],
        ),
    ],
)
def test_sos_pruning_drops_exactly_the_forced_zero_diagonals(blocks, target, eqs, multipliers, kept):
    from extrembench.verify.provers import sos

    assert [(f, b) for f, _, b in sos._prune(blocks, target, eqs, multipliers)] == kept


def test_sdp_solver_panic_is_a_failure_to_certify():
    """Clarabel's Rust panics (an eigen-solver failure inside its PSD cone) are BaseExceptions:
    they must end as a reason, not escape certify. This inequality problem triggers one."""
    from extrembench.verify.provers import sos

    problem = make("min", POS3, "1/a + 2/b + 3/c", "15/2", ["21*a*b + 2*b*c + 8*c*a <= 12"])
    body, why = sos.attempt(spec_problem(embed_spec(problem)), None)
    assert body is None and "SDP solver failure" in why


def test_exact_projection_is_bounded_by_a_count_of_unknowns(monkeypatch):
    """The exact rational projection is the one sos step whose cost no SDP limit bounded
    (ineq-0124's squared target ran past 15 CPU-minutes in it): past MAX_EXACT_UNKNOWNS unknowns
    or MAX_EXACT_BITS bits it declines with the counts, before any exact algebra."""
    from extrembench.verify.provers import sos

    problem, witness = SOS_CASES[0]
    assert certify(problem, witness)["kind"] == "sos"
    for limit in ("MAX_EXACT_UNKNOWNS", "MAX_EXACT_BITS"):
        with monkeypatch.context() as m:
            m.setattr(sos, limit, 2)
            body, why = sos.attempt(spec_problem(embed_spec(problem)), None)
            assert body is None and "for the exact projection" in why, why


def test_sos_polya_power_is_checked():
    """The Polya power is part of the identity, and it needs every variable nonnegative."""
    problem = make("min", {v: "nonnegative" for v in "abc"}, SCHUR, "0")
    certificate = certify(problem, {"a": 1.0, "b": 1.0, "c": 1.0})
    body = certificate["body"]
    assert certificate["kind"] == "sos" and body["polya"] == 1 and verify(certificate)[0]
    ok, reason = verify({**certificate, "body": {**body, "polya": 2}})
    assert not ok and "identity" in reason
    free = make("min", {"a": "real", "b": "nonnegative", "c": "nonnegative"}, SCHUR, "0")
    ok, reason = verify({**certificate, "spec": embed_spec(free)})
    assert not ok and "nonnegative" in reason


@pytest.mark.parametrize(
    "matrix, indefinite",
    [
        ([[1, 0], [0, -1]], True),
        ([[1, 2], [2, 1]], True),
        ([[1, 1], [1, 1]], False),  # semidefinite, singular
        ([[Fraction(1, 10**9), 0], [0, Fraction(-1, 10**12)]], False),  # within rounding: left to the exact test
        ([[0]], False),
        ([], False),
    ],
)
def test_float_prefilter_never_rejects_what_the_exact_test_could_accept(matrix, indefinite):
    from extrembench.verify.provers import sos

    assert sos._clearly_indefinite(matrix) is indefinite


B4 = {f"x{i}": "[1, 2]" for i in range(1, 5)}
SCHUR_PROBLEM = make("min", {v: "nonnegative" for v in "abc"}, SCHUR, "0")
# (problem, witness, a token the proof needs): the bound routes of verifier 5, on 3 to 4 variables
ROUTE_CASES = [
    # convex in each variable, maximised: concave in min form, so each box closes on its two ends
    (
        make("max", B4, "(x1 + x2 + x3 + x4)*(1/x1 + 1/x2 + 1/x3 + 1/x4)", "18"),
        {"x1": 1.0, "x2": 1.0, "x3": 2.0, "x4": 2.0},
        "e",
    ),
    (
        make("max", {"a": "[0, 1]", "b": "[0, 1]", "c": "[0, 1]"}, "a^2 + b^2 + c^2 - a^2*b - b^2*c - c^2*a", "1"),
        {"a": 0.0, "b": 0.3253, "c": 1.0},
        "e",
    ),
    # Schur (epsilon 0): zero at (1,1,1) and at the permutations of (0,1,1); the centre is anchored
    # at 1/3 exactly and the boundary copies by a multiplier on a constraint touching the box
    (SCHUR_PROBLEM, {"a": 0.0, "b": 1.0, "c": 1.0}, "l"),
    # boxes straddling the open end pi/2 move to their lower face: x < pi/2 only grows that way
    (
        make("min", {"x": "(0, pi/2)", "y": "real", "z": "real"}, "1/sin(x) + 1/cos(x) + y^2 + (y - z)^2", "2*sqrt(2)"),
        {"x": 0.7853981633974483, "y": 0.0, "z": 0.0},
        "f",
    ),
    # optima at corners of the simplex's faces (ineq-0196): Taylor with the indefinite Hessian, a
    # multiplier fitted to the box ends, anchors at the corner where the constraint is largest
    (
        make(
            "max",
            {f"x{i}": "nonnegative" for i in range(1, 5)},
            "x1^2*x2 + x2^2*x3 + x3^2*x4 + x4^2*x1",
            "4/27",
            ["x1 + x2 + x3 + x4 = 1"],
        ),
        {"x1": 0.0, "x2": 2 / 3, "x3": 1 / 3, "x4": 0.0},
        "l",
    ),
    # tails: the eliminated x1's discriminant is negative far out, seen only after a Taylor shift
    (
        make(
            "max",
            {"x1": "real", "x2": "real", "x3": "real"},
            "x3",
            "1 + 2*sqrt(3)/3",
            ["x1 + x2 + x3 = 3", "x1^2 + x2^2 + x3^2 = 5"],
        ),
        {"x1": 0.4226497308103742, "x2": 0.4226497308103742, "x3": 2.1547005383792515},
        "x",
    ),
]


# These cases test bound routes; sos (tried first) proves some of them too, so it is left out.
BOUND_ONLY = tuple(route for route in ROUTES if route.checked_as == "bound")


@pytest.mark.parametrize("problem, witness, head", ROUTE_CASES)
@pytest.mark.slow  # ~3 s
def test_new_routes_certify_and_a_tampered_step_fails(problem, witness, head):
    certificate = certify(problem, witness, routes=BOUND_ONLY)
    assert certificate["kind"] == "bound", certificate["body"]
    assert verify(json.loads(canonical(certificate)))[0]
    trees = certificate["body"]["trees"]
    b, k = next((b, k) for b, tree in enumerate(trees) for k, t in enumerate(tree) if t.startswith(head))
    token = trees[b][k]
    if head in ("e", "x"):
        tampered = head + "9"  # no such variable or constraint
    elif head == "f":
        tampered = token[:-2] + ("hi" if token.endswith("lo") else "lo")
    else:
        parts = token.split(":")
        tampered = ":".join([parts[0], str(Fraction(parts[1]) + 1)] + parts[2:])  # another multiplier
    changed = [list(t) for t in trees]
    changed[b][k] = tampered
    assert not verify({**certificate, "body": {**certificate["body"], "trees": changed}})[0]


def test_epsilon_zero_needs_the_exact_anchor():
    """Schur's zero at the centre is closed by a tangent plane at 1/3 exactly: floats cannot show
    f(1/3, 1/3) >= 0, the exact values can. An anchor moved by 1e-12 leaves a tilted plane below 0."""
    certificate = certify(SCHUR_PROBLEM, {"a": 0.0, "b": 1.0, "c": 1.0}, routes=BOUND_ONLY)
    trees = certificate["body"]["trees"]
    k = next(k for k, t in enumerate(trees[0]) if t == "c:1/3,1/3")
    changed = [list(t) for t in trees]
    changed[0][k] = f"c:{Fraction(1, 3) + Fraction(1, 10**12)},1/3"
    ok, why = verify({**certificate, "body": {**certificate["body"], "trees": changed}})
    assert not ok and "convexity bound" in why


@pytest.mark.parametrize(
    "objective, box, i, side, holds",
    [
        ("x + y", [(0, 1), (0, 1)], 0, "lo", True),  # x + y <= 1 cuts the box but only grows as x falls
        ("-x - y", [(0, 1), (0, 1)], 0, "hi", False),  # ... and shrinks as x rises
        ("-x - y", [(0, Fraction(1, 4)), (0, Fraction(1, 4))], 0, "hi", True),  # inside it: no matter
        ("x - y", [(0, 1), (0, 1)], 1, "hi", False),  # monotone, but the constraint shrinks that way
        ("x*y", [(-1, 1), (0, 1)], 1, "lo", False),  # not monotone
    ],
)
def test_face_step_needs_constraints_that_grow_towards_the_face(objective, box, i, side, holds):
    import sympy

    from extrembench.verify.checker.reduce import Reduced

    x, y = sympy.symbols("x y")
    reduced = Reduced((x, y), ((Fraction(-1), Fraction(1)),) * 2, sympy.sympify(objective), ((1 - x - y, False),))
    comp = bound.compile_reduced(reduced)
    box = [(Fraction(lo), Fraction(hi)) for lo, hi in box]
    at = bound.ivbox(comp, box)
    assert bound.face_ok(comp, box, at, i, side, bound.safe_eval(at, comp.grad[i])) is holds


@pytest.mark.parametrize(
    "expr, box, strict, holds",
    [
        ("3*x**2 - 6*x - 1", [(3, None)], True, True),  # natural extension: [-inf, inf]
        ("3*x**2 - 6*x - 1", [(2, None)], False, False),  # -1 at x = 2
        ("-x**3 + 2*x", [(None, -2)], True, True),
        ("x*y - 9", [(10, None), (1, 2)], True, True),  # a finite variable in the coefficients
        ("x*y - 9*y", [(10, None), (0, 1)], False, False),  # its two occurrences enclosed apart: [-9, 10]
        ("x**2*y**2 - 9*x*y", [(3, None), (3, None)], False, True),
        ("x**2*y**2 - 10*x*y", [(3, None), (3, None)], False, False),
        ("x*y", [(None, None), (1, 2)], False, False),  # unbounded both ways: no end to expand at
        ("1/x + y", [(1, None), (1, None)], False, False),  # not a polynomial
    ],
)
def test_tail_sign_by_taylor_shift_at_the_finite_end(expr, box, strict, holds):
    import sympy

    from extrembench.verify.checker.reduce import Reduced

    x, y = sympy.symbols("x y", real=True)
    syms = (x, y)[: len(box)]
    bounds = tuple((None if lo is None else Fraction(lo), None if hi is None else Fraction(hi)) for lo, hi in box)
    comp = bound.compile_reduced(Reduced(syms, bounds, sympy.Integer(0), ()))
    at = bound.ivbox(comp, list(bounds))
    assert bound._tail_sign(comp, at, sympy.sympify(expr, locals={"x": x, "y": y}), strict) is holds


@pytest.mark.parametrize(
    "g, h, ref, box, expected",
    [
        ([1.0, 2.0], [1.0, 1.0], [0.5, 0.5], [(0, 1), (0, 1)], 1.5),  # interior: least squares
        ([1.0, 3.0], [1.0, 1.0], [0, 0.5], [(0, 1), (0, 1)], 1.0),  # low end: g - m h >= 0 caps m at 1
        ([-0.11, -0.45, -0.44], [-1.0, -1.0, -1.0], [0, 1, 0], [(0, 1), (0, 1), (0, 1)], 0.44),  # ineq-0196's box
        ([1.0, 1.0], [1.0, -1.0], [0, 0], [(0, 1), (0, 1)], 0.0),  # m <= 1 and m >= -1 around the fit
    ],
)
def test_multiplier_fits_interior_directions_and_respects_box_ends(g, h, ref, box, expected):
    assert bound_search._multiplier(g, h, ref, box) == pytest.approx(expected)


def test_the_trusted_checker_loads_no_prover():
    """Importing the checker loads checking code only: no module of verify/ outside checker/ (no
    prover, route, certify, refutation builder or numeric search)."""
    code = (
        "import sys; import extrembench.verify.checker.verify; "
        "print(' '.join(m for m in sys.modules if m.startswith('extrembench')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    outside = [
        m for m in loaded if m.startswith("extrembench.verify.") and not m.startswith("extrembench.verify.checker")
    ]
    assert "extrembench.verify.checker.verify" in loaded
    assert outside == [], outside


def test_every_route_writes_a_kind_the_checker_knows():
    from extrembench.verify.checker.document import ROUTES as ROUTE_OF
    from extrembench.verify.checker.refutation import CHECKS as REFUTATION_CHECKS
    from extrembench.verify.checker.verify import CHECKS
    from extrembench.verify.provers.refutation import LEVEL_ROUTES

    known = set(ROUTE_OF.values())
    assert {route.checked_as for route in ROUTES} <= known & set(CHECKS)
    assert {route.checked_as for route in LEVEL_ROUTES} <= known & set(REFUTATION_CHECKS)
