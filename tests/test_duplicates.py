"""Near-duplicate detection (extrembench.problems.duplicates): known duplicate pairs of the set as it was
(copies in tests/data/duplicates/), same-template problems that are not duplicates, renamed and
scaled copies of shipped problems, and the shipped set itself."""

import dataclasses
import itertools
from pathlib import Path

import pytest
import sympy

from extrembench.problems.duplicates import find_duplicates
from extrembench.problems.expr import parse_expression, parse_relation
from extrembench.problems.problem import load_problem, parse_domain, problem_from_dict

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests/data/duplicates"


@pytest.fixture(scope="module")
def fixture_pairs():
    problems = [load_problem(p) for p in sorted(FIXTURES.glob("*.yaml"))]
    return {frozenset((d.first, d.second)): d.kind for d in find_duplicates(problems)}


SCHUR = ["ineq-0014", "ineq-0040", "ineq-0067", "ineq-0068", "ineq-0069"]


@pytest.mark.parametrize(
    "first, second",
    [
        *itertools.combinations(SCHUR, 2),  # one degree-3 Schur inequality, five normalisations
        ("ineq-0025", "ineq-0078"),  # a+b+c = 1 vs = 3, min vs max of an affine image
        ("ineq-0016", "ineq-0041"),  # one function, opposite senses
        ("ineq-0006", "ineq-0058"),  # Nesbitt, and Nesbitt + 3 written as a product
    ],
)
def test_known_duplicates_are_flagged(fixture_pairs, first, second):
    assert frozenset((first, second)) in fixture_pairs


@pytest.mark.parametrize(
    "first, second",
    [
        ("ineq-0007", "ineq-0057"),
        ("ineq-0008", "ineq-0051"),
        ("ineq-0007", "ineq-0008"),  # weighted sums
        ("ineq-0034", "ineq-0036"),  # abc vs a b^2 c^3 under a + b + c = 1
        ("ineq-0042", "ineq-0040"),  # same constraint, different functions
        ("ineq-0014", "ineq-0025"),
    ],
)
def test_same_template_is_not_a_duplicate(fixture_pairs, first, second):
    assert frozenset((first, second)) not in fixture_pairs


def renamed_scaled_copy(problem, scales, factor, constant):
    """The problem with its variables renamed y1.. in reverse order, x_i = scales[i]·y, the
    objective replaced by factor·f + constant (opposite sense when factor < 0)."""
    names = list(problem.variables)
    width = len(str(len(names)))  # zero-padded, so that sorting by name keeps the reverse order past 9
    new = [f"y{len(names) - i:0{width}d}" for i in range(len(names))]
    y = [sympy.Symbol(n) for n in new]
    to_new = {sympy.Symbol(old): k * s for old, k, s in zip(names, scales, y)}
    variables = {}
    for old, k, name in sorted(zip(names, scales, new), key=lambda item: item[2]):
        text = problem.variables[old].strip()
        if text in ("positive", "nonnegative", "real"):
            variables[name] = text
        else:
            d = parse_domain(text)
            lo = "-inf" if d.lo is None else d.lo / k
            hi = "inf" if d.hi is None else d.hi / k
            variables[name] = f"{'(' if d.lo_open else '['}{lo}, {hi}{')' if d.hi_open else ']'}"
    constraints = []
    for text in problem.constraints:
        lhs, op, rhs = parse_relation(text, names)
        constraints.append(f"{lhs.xreplace(to_new)} {op} {rhs.xreplace(to_new)}")
    objective = factor * parse_expression(problem.objective, names).xreplace(to_new) + constant
    answer = factor * parse_expression(problem.answer, []) + constant
    sense = problem.sense if factor > 0 else {"min": "max", "max": "min"}[problem.sense]
    return problem_from_dict(
        {
            "id": "copy",
            "sense": sense,
            "variables": variables,
            "constraints": constraints,
            "objective": str(objective),
            "answer": str(answer),
        }
    )


@pytest.mark.parametrize(
    "problem_id, scales, factor, constant",
    [
        ("ineq-0042", (2, 3, 5), 3, 7),  # a + b + c = 1: each variable its own scale
        ("ineq-0007", (sympy.Rational(1, 2), 4, 3), -2, 1),  # weighted, and asked in the other sense
        ("ineq-0025", (3, 3, 3), 1, -10),
        ("ineq-0014", (2, 2, 2), 5, 0),  # homogeneous, no constraint: uniform scale
        ("ineq-0036", (1, 1, 1), sympy.Rational(1, 3), 2),  # renamed and permuted only
    ],
)
def test_renamed_and_scaled_copy_is_flagged(problem_id, scales, factor, constant):
    original = load_problem(FIXTURES / f"{problem_id}.yaml")
    copy = renamed_scaled_copy(original, scales, factor, constant)
    found = find_duplicates([original, copy])
    assert [(d.first, d.second) for d in found] == [(problem_id, "copy")]


# ineq-0456: three coupled epigraph inequalities t >= ..., which random points almost never satisfy
# all at once; ineq-0534: three different half-lines [4, inf), [5, inf), [6, inf), and the sample is
# drawn column by column in each problem's own domain order, so a permuted copy is sampled elsewhere;
# ineq-0543: the same with two half-lines [-2, inf), [-3, inf), tied by a square-root equality.
# ineq-0555: the strict order b < a between two of its variables, which random points rarely satisfy
# (the limit named above).
KNOWN_MISSES = {"ineq-0151", "ineq-0152", "ineq-0161", "ineq-0188", "ineq-0456", "ineq-0534", "ineq-0543", "ineq-0555"}


@pytest.mark.slow  # ~42 s
def test_copy_of_every_shipped_problem_is_flagged():
    """Renamed (reverse order) with the objective doubled and shifted: the detector must see
    through that for every shipped problem."""
    missed = []
    for path in sorted((REPO / "data/problems").glob("*.yaml")):
        original = load_problem(path)
        copy = renamed_scaled_copy(original, [1] * len(original.variables), 2, 1)
        if not find_duplicates([original, copy]):
            missed.append(original.id)
    # Known limits of the sampling: an equality whose projection leaves too few sample points
    # (x + y + z = 0 over the reals, a cube-root or bilinear equality) or strict inequalities
    # between variables that random points almost never satisfy. Listed so that a new miss fails.
    assert sorted(set(missed) - KNOWN_MISSES) == [], f"renamed copies not flagged: {missed}"


@pytest.mark.slow  # ~17 s
def test_shipped_set_has_no_near_duplicates():
    """The shipped set passes the detector. Until issue 17's clean-up of data/problems lands, the
    current files fail this; the message lists every pair."""
    problems = [load_problem(p) for p in sorted((REPO / "data/problems").glob("*.yaml"))]
    found = find_duplicates(problems)
    assert not found, f"{len(found)} near-duplicate pair(s):\n" + "\n".join(map(str, found))


def unlabelled(path):
    """A problem file without its family, so only the n-instance test can join it to another."""
    return dataclasses.replace(load_problem(path), family=None)


@pytest.mark.parametrize(
    "instance, representative",
    [
        ("ineq-0147", "data/problems/ineq-0174.yaml"),  # IMO 1999 Problem 2, n = 3 and n = 8
        (
            "ineq-0164",
            "data/guessable/ineq-0190.yaml",
        ),  # USAMO 1999 Problem 4, n = 5 and 10 (Max of every variable, constants n, n²)
        ("ineq-0048", "data/problems/ineq-0203.yaml"),  # Canada 1999 Problem 5, cyclic, n = 3 and 6
        ("ineq-0149", "data/problems/ineq-0136.yaml"),  # China TST 1999, n = 3 and 4
        ("ineq-0180", "data/problems/ineq-0131.yaml"),  # USAMO 1977 Problem 5, n = 8 on [1, 2] and n = 4 on [1, 9]
        ("ineq-0148", "data/problems/ineq-0121.yaml"),  # IMO Shortlist 2019 A2: Max·Min over 3 and 6 numbers
        (
            "ineq-0162",
            "data/problems/ineq-0163.yaml",
        ),  # USAMO 2010 Problem 3: product under pairwise bounds, n = 4 and 6
    ],
)
def test_n_instances_are_flagged_without_a_family(instance, representative):
    found = find_duplicates(
        [
            unlabelled(REPO / "data/instances" / f"{instance}.yaml"),
            unlabelled(REPO / representative),
        ]
    )
    assert [(d.first, d.second, d.kind) for d in found] == [(instance, Path(representative).stem, "n-instance")]


@pytest.mark.parametrize(
    "first, second",
    [
        # a³b + b³c + c³a (cyclic: more terms of one orientation) is not Σ x_i x_j (x_i² + x_j²)
        ("data/problems/ineq-0095.yaml", "data/problems/ineq-0174.yaml"),
        # x + y² + z³ and x + y² + z⁴ (Putnam 1975 A3 with other exponents) keep different terms
        ("data/problems/ineq-0170.yaml", "data/instances/ineq-0243.yaml"),
    ],
)
def test_other_terms_are_not_n_instances(first, second):
    assert find_duplicates([unlabelled(REPO / first), unlabelled(REPO / second)]) == []


def test_same_family_is_one_problem():
    """Whatever their objectives, two files declaring one family are one problem (Putnam 1975 A3's
    minimum and maximum with other exponents)."""
    found = find_duplicates(
        [load_problem(REPO / "data/problems/ineq-0170.yaml"), load_problem(REPO / "data/instances/ineq-0243.yaml")]
    )
    assert [(d.first, d.second, d.kind) for d in found] == [("ineq-0170", "ineq-0243", "same-family")]


def _at(problem_id: str, family: str | None = None):
    """A shipped file wherever it lives now (headline or instances), with `family` in place of its
    own: None, so that only the mathematics can join it to another file."""
    path = next(
        p for folder in ("problems", "instances") if (p := REPO / "data" / folder / f"{problem_id}.yaml").exists()
    )
    return dataclasses.replace(load_problem(path), family=family)


@pytest.mark.parametrize(
    "first, second, families, kind",
    [
        # on a + b + c = 0, a^2 + b^2 + c^2 = 6 each factor a^2 + ab + b^2 is 3: 0536 asks (abc)^2/27
        ("ineq-0536", "ineq-0076", (None, None), "function-of"),
        # x = 3a^2 turns sqrt(x) + sqrt(y) + sqrt(z) on x + y + z = 3 into sqrt(3)(a + b + c) on the sphere
        ("ineq-0092", "ineq-0031", (None, None), "same-function"),
        # half the sum of (x_i - x_j)^2 for n = 5 and n = 3
        ("ineq-0413", "ineq-0017", (None, None), "n-instance"),
        # the largest number given the sum and the sum of squares: n = 8, and n = 4 through x = sin w
        ("ineq-0189", "ineq-0297", (None, None), "n-instance"),
        # APMO 2004 Problem 5 and its strengthening, as the two files declared them before issue 36
        ("ineq-0020", "ineq-0072", ("apmo-2004-p5", "apmo-2004-p5-strengthened"), "same-source"),
    ],
)
def test_same_mathematics_is_flagged(first, second, families, kind):
    """Issue 36: five pairs of headline files were one piece of mathematics each, under two labels."""
    found = find_duplicates([_at(first, families[0]), _at(second, families[1])])
    assert [(d.first, d.second, d.kind) for d in found] == [(first, second, kind)]


@pytest.mark.parametrize(
    "first, second",
    [
        # Σ x_i x_{i+1} on the simplex (n = 6) and 2xy + 3yz + 4zx (n = 3): a weighting is not a change of n
        ("ineq-0214", "ineq-0509"),
        # the same terms, but one equality on the sum against eight bounds on consecutive triples
        ("ineq-0214", "ineq-0236"),
        # two equalities (a + b + c = 0, a^2 + b^2 + c^2 = 6), objectives that are no function of each other
        ("ineq-0029", "ineq-0536"),
    ],
)
def test_other_mathematics_is_not_flagged(first, second):
    assert find_duplicates([_at(first), _at(second)]) == []
