"""How models miss (extrembench/report/misses/classify.py, docs/metrics.md): tables of cases per class, the
shard job on real Parquet files, the table's arithmetic, and byte-identical artifacts across runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from extrembench.core.artifacts import read_artifact, write_artifact
from extrembench.grading.extract import reasoning_answer
from extrembench.report.misses.classes import CLASSES
from extrembench.report.misses.classify import Claim, classify_claim, problem_facts, read_claim
from extrembench.report.misses.table import build_misses_table

# min 1/x + 4/y + 9/z on x + y + z = 1 (x, y, z > 0): 36 at (1/6, 1/3, 1/2); all-equal point 42;
# no maximum (the objective grows without bound).
HARMONIC = {
    "sense": "min",
    "variables": {"x": "positive", "y": "positive", "z": "positive"},
    "constraints": ["x + y + z = 1"],
    "objective": "1/x + 4/y + 9/z",
}
# min 3x^4 - 4x^3 - 12x^2 + y^2 (x, y real): -32 at (2, 0); a second local minimum -5 at (-1, 0).
TWO_WELLS = {
    "sense": "min",
    "variables": {"x": "real", "y": "real"},
    "constraints": [],
    "objective": "3*x^4 - 4*x^3 - 12*x^2 + y^2",
}
# min 3x^4 - 4x^3 - 12x^2 + y on y in [0, 1]: the max search ends at the edge y = 1 (value 1 at x = 0).
EDGE = {**TWO_WELLS, "variables": {"x": "real", "y": "[0, 1]"}, "objective": "3*x^4 - 4*x^3 - 12*x^2 + y"}
# max xy + yz + zx on x + y + z = 3, each in [0, 3]: 3 at the all-equal point, minimum 0 at (3, 0, 0).
PAIRS = {
    "sense": "max",
    "variables": {"x": "[0, 3]", "y": "[0, 3]", "z": "[0, 3]"},
    "constraints": ["x + y + z = 3"],
    "objective": "x*y + y*z + z*x",
}


def facts(spec: dict, gold: str, kind: str = "sos", epsilon: str | None = None):
    row = {
        "problem_id": "p",
        "spec_json": json.dumps(spec, sort_keys=True),
        "answer": gold,
        "certificate_kind": kind,
        "certificate": json.dumps({"epsilon": epsilon}) if epsilon else None,
    }
    return problem_facts(row, seed=7)


@pytest.mark.parametrize(
    ("text", "form", "value"),
    [
        ("42", "number", "42"),
        (r"\frac{84}{2}", "number", "42"),
        (r"$2 \cdot 21$", "number", "42"),
        ("4.2e1", "number", "42"),
        (r"4.2 \times 10^{1}", "number", "42"),
        ("42.000000", "number", "42"),
        (r"2\sqrt{3}", "number", "2*sqrt(3)"),
        (r"\infty", "non_real", None),
        (r"-\infty", "non_real", None),
        ("[1, 2]", "non_real", None),
        (r"\{1, 2\}", "non_real", None),
        ("(0, 1]", "non_real", None),
        ("x + 1", "non_real", None),
        (r"\sqrt{-1}", "non_real", None),
        ("does not exist", "non_real", None),
        ("banana", "unparsable", None),
        ("9^(9^(9^9))", "unparsable", None),
        ("1" * 400, "unparsable", None),
        ("", "unparsable", None),
    ],
)
def test_read_claim(text, form, value):
    claim = read_claim(text, ["x", "y", "z"])
    assert claim.form == form, claim
    if value is not None:
        import sympy  # only to state the expected value

        assert sympy.simplify(claim.value - sympy.sympify(value)) == 0


def test_a_decimal_of_four_or_more_places_stands_for_its_last_place_and_fewer_is_exact():
    assert float(read_claim("1.41421356", []).tolerance) == pytest.approx(1e-8)
    assert float(read_claim("1.41", []).tolerance) == 0
    assert float(read_claim("3", []).tolerance) == 0


@pytest.mark.slow  # each case runs the validator's search in both senses (about 1-2 s)
@pytest.mark.parametrize(
    ("spec", "gold", "claim", "expected"),
    [
        # the all-equal feasible point, in several forms
        (HARMONIC, "36", "42", ("suboptimal_attained", "all_equal", None, {"x": "1/3", "y": "1/3", "z": "1/3"})),
        (HARMONIC, "36", r"\frac{84}{2}", ("suboptimal_attained", "all_equal", None, {"x": "1/3"})),
        (HARMONIC, "36", "42.0000", ("suboptimal_attained", "all_equal", None, {"x": "1/3"})),
        (HARMONIC, "36", "4.2e1", ("suboptimal_attained", "all_equal", None, {"x": "1/3"})),
        # exactly at a local (not global) optimum in the interior
        (TWO_WELLS, "-32", "-5", ("suboptimal_attained", "other_feasible", None, {"x": "-1", "y": "0"})),
        # at a boundary point (y at the closed end of its domain)
        (EDGE, "-32", "1", ("suboptimal_attained", "boundary", None, {"x": "0", "y": "1"})),
        # the opposite sense's extremum
        # the opposite sense's extremum (at a permutation of (3, 0, 0): which one the search ends at is
        # fixed by the seed; coordinates compared as a sorted tuple)
        (PAIRS, "3", "0", ("wrong_sense_value", None, "search", ("0", "0", "3"))),
        # worse than the extremum, at no point the search knows
        (HARMONIC, "36", "37", ("suboptimal_unexplained", None, None, None)),
        (PAIRS, "3", "2", ("suboptimal_unexplained", None, None, None)),
    ],
)
def test_worse_claims_are_placed_where_the_validator_finds_them(spec, gold, claim, expected):
    verdict = classify_claim(read_claim(claim, list(spec["variables"])), facts(spec, gold))
    miss_class, kind, proof, witness = expected
    assert (verdict.miss_class, verdict.kind, verdict.proof) == (miss_class, kind, proof), verdict
    if witness is None:
        assert verdict.witness is None
    elif isinstance(witness, tuple):
        assert tuple(sorted(verdict.witness.values())) == witness, verdict
    else:
        assert {k: verdict.witness[k] for k in witness} == witness, verdict


def test_an_all_equal_point_where_every_constraint_term_vanishes_is_found():
    """cos(x1) + cos(x2) + cos(x3) = 0 at x = t with cos t = 0: every term of the constraint is
    ~1e-25 at the 30-digit root, so only an absolute test can accept it (the bug: ineq-0175's
    symmetric guess 0.00000000 came out suboptimal_unexplained)."""
    trig = {
        "sense": "max",
        "variables": {"x1": "real", "x2": "real", "x3": "real"},
        "constraints": ["cos(x1) + cos(x2) + cos(x3) = 0"],
        "objective": "cos(3*x1) + cos(3*x2) + cos(3*x3)",
    }
    verdict = classify_claim(read_claim("0.00000000", list(trig["variables"])), facts(trig, "2"))
    assert (verdict.miss_class, verdict.kind) == ("suboptimal_attained", "all_equal"), verdict
    assert len(set(verdict.witness.values())) == 1


# 36 * (1 - 1e-9) written out: 1e-9 relative past the minimum
PAST_BY_1E9 = "35.999999964"


@pytest.mark.parametrize(
    ("kind", "epsilon", "claim", "proof"),
    [
        ("sos", None, PAST_BY_1E9, "sos"),  # an exact identity: any gap is proven
        ("sos", None, "35", "sos"),
        # 3.6e-8 past: exactly the bound's slack 1e-9 * 36, so f >= 36 - 3.6e-8 does not exclude it
        ("bound", "1/1000000000", PAST_BY_1E9, "numeric"),
        ("bound", "1/1000000000", "35.99999996", "bound"),  # 4e-8 past: beyond the slack
        ("bound", "1/1000000000", "35.9", "bound"),
        ("bound", "0", PAST_BY_1E9, "bound"),  # a bound proof that reaches the answer exactly
        ("numeric", None, PAST_BY_1E9, "numeric"),
        ("numeric", None, "-1000", "numeric"),
    ],
)
def test_beyond_the_extremum_names_what_proves_it(kind, epsilon, claim, proof):
    verdict = classify_claim(read_claim(claim, ["x", "y", "z"]), facts(HARMONIC, "36", kind, epsilon))
    assert (verdict.miss_class, verdict.proof) == ("beyond_extremum", proof), verdict
    assert verdict.work == 0  # decided by the gold alone: no search


@pytest.mark.parametrize(
    ("claim", "miss_class"),
    [
        (r"\infty", "non_real"),
        ("[36, 42]", "non_real"),
        ("x + y", "non_real"),
        ("banana", "unparsable"),
        ("36.00000", "undecided"),  # equal to the gold to its own decimals yet graded wrong: a grading fault
    ],
)
def test_answers_that_are_not_a_worse_or_better_number(claim, miss_class):
    verdict = classify_claim(read_claim(claim, ["x", "y", "z"]), facts(HARMONIC, "36"))
    assert verdict.miss_class == miss_class, verdict


def test_a_problem_without_spec_is_undecided_never_guessed():
    row = {"problem_id": "q", "spec_json": None, "answer": "3", "certificate_kind": None, "certificate": None}
    verdict = classify_claim(Claim("number", value=__import__("sympy").Integer(4)), problem_facts(row, 0))
    assert verdict.miss_class == "undecided"


@pytest.mark.parametrize(
    ("content", "reasoning", "expected"),
    [
        (None, r"so the minimum is \boxed{36}. Let me double check", "36"),
        (r"<think>try a=b=c: \boxed{42} then more", None, "42"),
        (r"<think>\boxed{42}</think> The answer is \boxed{36}", None, "42"),  # only the reasoning part
        (None, "no box at all", None),
        (None, r"\boxed{x = 1, y = 2}", None),  # an equality case, not a value
        (None, None, None),
    ],
)
def test_answer_found_only_in_the_reasoning(content, reasoning, expected):
    assert reasoning_answer(content, reasoning) == expected


# ---------------------------------------------------------------- the shard job on real Parquet files
def _shard_inputs(root: Path) -> tuple[Path, Path]:
    """A problems and a grades shard of one problem (HARMONIC) and six samples, one per path
    through the job: correct, all-equal, beyond, no answer, answer in the reasoning, non-real."""
    from extrembench.core.artifacts import GRADES, PROBLEMS

    problems = root / "problems.parquet"
    write_artifact(
        [
            {
                **{name: None for name in PROBLEMS.names},
                "benchmark": "extrem",
                "problem_id": "harmonic",
                "answer": "36",
                "answer_type": "number",
                "sense": "min",
                "technique": [],
                "spec_json": json.dumps(HARMONIC, sort_keys=True),
                "status": "confirmed",
                "certificate_kind": "numeric",
            }
        ],
        problems,
        "problems",
    )
    samples = [
        # trial, status, extracted, the grader's reading of a box left in the reasoning
        (0, "correct", "36", None),
        (1, "wrong", "42", None),
        (2, "wrong", "30", None),
        (3, "no_answer", None, None),
        (4, "no_answer", None, "36"),
        (5, "wrong", r"\infty", None),
    ]
    grades = root / "grades.parquet"
    write_artifact(
        [
            {
                **{name: None for name in GRADES.names},
                "benchmark": "extrem",
                "model": "m",
                "problem_id": "harmonic",
                "source_sha256": "s",
                "trial": t,
                "cache_key": f"k{t}",
                "gold": "36",
                "answer_type": "number",
                "sense": "min",
                "technique": [],
                "certificate_kind": "numeric",
                "extracted": extracted,
                "correct": status == "correct",
                "status": status,
                "reason": "boxed" if extracted else "no content",
                "scope": "final",
                "correct_final": status == "correct",
                "correct_anywhere": status == "correct" or boxed is not None,
                "reasoning_answer": boxed,
            }
            for t, status, extracted, boxed in samples
        ],
        grades,
        "grades",
    )
    return grades, problems


def _run_shard_job(root: Path, env: dict[str, str]) -> None:
    """The job in `root` on relative paths, as Snakemake runs it (the paths enter the lineage)."""
    paths = [p.name for p in _shard_inputs(root)]
    code = (
        "import sys; from pathlib import Path; from extrembench.report.misses.stage import misses_shard; "
        "misses_shard(*(Path(a) for a in sys.argv[1:4]), dag_node='misses')"
    )
    subprocess.run(
        [sys.executable, "-c", code, *paths, "misses.parquet"],
        check=True,
        cwd=root,
        env={**os.environ, **env},
        timeout=600,
    )


@pytest.mark.slow  # two subprocess runs of the job, with the validator's search
def test_shard_job_classifies_each_sample_once_and_is_byte_identical_across_runs(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _run_shard_job(first, {"PYTHONHASHSEED": "1"})
    # another hash seed and a busy machine (a CPU-bound process beside it): same bytes
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        _run_shard_job(second, {"PYTHONHASHSEED": "987654"})
    finally:
        burner.kill()
        burner.wait()
    assert (first / "misses.parquet").read_bytes() == (second / "misses.parquet").read_bytes()
    rows = read_artifact(first / "misses.parquet", "misses").to_pylist()
    got = {r["trial"]: (r["miss_class"], r["kind"], r["proof"], r["reasoning_correct"]) for r in rows}
    assert got == {
        0: ("correct", None, None, None),
        1: ("suboptimal_attained", "all_equal", None, None),
        2: ("beyond_extremum", None, "numeric", None),
        3: ("no_answer", None, None, None),
        4: ("answer_in_reasoning_only", None, None, True),
        5: ("non_real", None, None, None),
    }
    assert json.loads(rows[1]["witness_json"]) == {"x": "1/3", "y": "1/3", "z": "1/3"}


# ---------------------------------------------------------------- the table
def _rows(model: str, classes: list[list[str]]) -> pd.DataFrame:
    """Misses rows: classes[i] are the classes of problem i's trials."""
    return pd.DataFrame(
        [
            {
                "benchmark": "extrem",
                "model": model,
                "problem_id": f"p{i}",
                "trial": t,
                "miss_class": c,
                "kind": "all_equal" if c == "suboptimal_attained" else None,
                "proof": "sos" if c == "beyond_extremum" else None,
                "reasoning_correct": None,
            }
            for i, trials in enumerate(classes)
            for t, c in enumerate(trials)
        ]
    )


def test_table_counts_sum_to_samples_with_intervals_over_problems():
    rows = pd.concat(
        [
            _rows("a", [["correct", "correct"], ["suboptimal_attained", "correct"], ["beyond_extremum"] * 2]),
            _rows("b", [["no_answer", "non_real"], ["correct", "unparsable"], ["correct", "correct"]]),
        ],
        ignore_index=True,
    )
    table = build_misses_table(rows, seed=3)
    assert list(table["model"]) == ["a", "b"]
    assert (table[list(CLASSES)].sum(axis=1) == table["n_samples"]).all()
    a = table.iloc[0]
    assert (a["correct"], a["suboptimal_attained"], a["beyond_extremum"], a["attained_all_equal"]) == (3, 1, 2, 1)
    assert a["beyond_by_sos"] == 2 and a["n_missed"] == 3
    assert a["correct_share"] == pytest.approx(0.5)
    assert a["correct_low"] <= a["correct_share"] <= a["correct_high"]
    assert a["undecided_share"] == 0 and a["undecided_low"] == a["undecided_high"] == 0
    assert a["all_equal_share_of_answered_misses"] == pytest.approx(1 / 3)
    b = table.iloc[1]
    assert (b["n_missed"], b["n_answered_missed"]) == (3, 2)  # the no_answer sample states no value
    # seeded: the same table again
    pd.testing.assert_frame_equal(table, build_misses_table(rows, seed=3))
