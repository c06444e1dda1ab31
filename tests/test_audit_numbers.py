"""`extrembench audit` checks the number it prints, not only the files' lineage (issue 12,
finding 3): built for real in-process (validate → reference-solver generate → grade → aggregate),
then one value at a time is changed and audit must name it."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from extrembench.core.config import Validation, validate_config
from extrembench.generation.run import generate_shard
from extrembench.grading.shard import grade_shard
from extrembench.llm.cache import GenerationCache, entry_digest
from extrembench.report.audit.lineage import audit
from extrembench.report.results.aggregate import aggregate, write_checksums
from extrembench.report.results.leaderboard import SEED_PER_SAMPLE
from extrembench.sources.convert import convert_shard
from extrembench.sources.translate import translate_shard
from extrembench.verify.stage import validate_shard

FIXTURES = Path(__file__).parent / "fixtures" / "pipeline"
CONFIG = {
    "benchmarks": {"extrem": {"kind": "extremal", "problems": "problems", "shards": 1, "trials": 2}},
    "models": {"reference-solver": {"backend": "reference-solver", "reference": {"starts": 4}}},
    "evaluate": {"models": ["reference-solver"], "benchmarks": ["extrem"]},
    "resources": {"cpu": {"mem_mb": 1000, "runtime": 10}},
    "cache_dir": "cache",
}
OUTPUTS = {
    "parquet": "results/leaderboard.parquet",
    "csv": "results/leaderboard.csv",
    "md": "results/leaderboard.md",
    "checksums": "results/leaderboard.sha256",
    "difficulty": "results/tables/difficulty.csv",
    "techniques": "results/tables/techniques.csv",
    "correlations": "results/tables/correlations.csv",
    "published": "results/tables/published.csv",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("audit")
    shutil.copytree(FIXTURES, root / "problems")
    config = validate_config(CONFIG)
    import os

    cwd = os.getcwd()
    os.chdir(root)  # artifacts record paths relative to the workdir, as under Snakemake
    try:
        files = sorted(str(p.relative_to(root)) for p in (root / "problems").glob("*.yaml"))
        r = Path("results/extrem")
        translate_shard(files, r / "translate/shard-0.parquet", benchmark="extrem", dag_node="t")
        convert_shard(
            files, r / "translate/shard-0.parquet", r / "convert/shard-0.parquet", benchmark="extrem", dag_node="c"
        )
        validate_shard(
            files,
            r / "convert/shard-0.parquet",
            r / "problems/shard-0.parquet",
            benchmark="extrem",
            dag_node="v",
            settings=Validation(starts=6),
        )
        generations = r / "generate/reference-solver/shard-0.parquet"
        generate_shard(
            problems_path=r / "problems/shard-0.parquet",
            output=generations,
            stats_path=r / "generate/reference-solver/shard-0.requests.json",
            benchmark="extrem",
            model="reference-solver",
            config=config,
            dag_node="g",
            server_log=Path("server.log"),
        )
        grades = r / "grade/reference-solver/shard-0.parquet"
        grade_shard(generations, r / "problems/shard-0.parquet", grades, dag_node="gr", mode="default", timeout_s=5.0)
        aggregate([str(grades)], outputs={k: Path(v) for k, v in OUTPUTS.items()}, config=config, published_dir=None)
    finally:
        os.chdir(cwd)
    return root


def run_audit(root: Path):
    return audit("extrem", "reference-solver", results=root / "results", cache_dir=root / "cache")


@pytest.fixture
def workdir(built, monkeypatch) -> Path:
    monkeypatch.chdir(built)
    return built


def restoring(path: Path):
    original = path.read_bytes()

    class _Restore:
        def __enter__(self):
            return original

        def __exit__(self, *exc):
            path.write_bytes(original)

    return _Restore()


def test_untouched_run_audits_clean_and_recomputes_the_accuracy(workdir):
    report = run_audit(workdir)
    assert report.problems == []
    assert any("recomputed from 6 grade rows" in line for line in report.lines)
    assert any("leaderboard.csv sha256" in line for line in report.lines)


def test_changed_accuracy_with_rewritten_checksums_is_caught_by_recomputation(workdir):
    """The issue's case (0.025 → 0.400), done so every hash still matches: only recomputing the
    value from the grade rows can notice."""
    board = workdir / "results" / "leaderboard.parquet"
    sums = workdir / "results" / "leaderboard.sha256"
    with restoring(board), restoring(sums):
        table = pq.read_table(board)
        index = table.schema.get_field_index("accuracy_mean")
        table = table.set_column(index, "accuracy_mean", pa.array([0.4] * table.num_rows))
        pq.write_table(table, board)
        write_checksums(
            [Path("results/leaderboard.parquet"), Path("results/leaderboard.csv"), Path("results/leaderboard.md")],
            Path("results/leaderboard.sha256"),
        )
        problems = run_audit(workdir).problems
    assert any("does not follow from its 6 grade rows: accuracy_mean 0.4 (recomputed 1.0)" in p for p in problems), (
        problems
    )


@pytest.mark.parametrize("name", ["leaderboard.parquet", "leaderboard.csv", "leaderboard.md"])
def test_one_flipped_byte_in_any_leaderboard_file_fails(workdir, name):
    path = workdir / "results" / name
    with restoring(path) as original:
        data = bytearray(original)
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
        problems = run_audit(workdir).problems
    assert any(f"results/{name}: changed" in p for p in problems), problems


def _entry_path(root: Path) -> Path:
    key = (
        pq.read_table(root / "results/extrem/generate/reference-solver/shard-0.parquet").column("cache_key")[0].as_py()
    )
    return GenerationCache(root / "cache").path(key)


@pytest.mark.parametrize(
    "edit, reseal, words",
    [
        # edited with its checksum recomputed: caught by comparing with the row, and by the key
        (
            lambda e: e["response"].update(completion_tokens=(e["response"].get("completion_tokens") or 0) + 7),
            True,
            "differs from the generation row in completion_tokens",
        ),
        (
            lambda e: e["request"].update(seed=e["request"]["seed"] + 1),
            True,
            "the key does not match the recorded request",
        ),
        # edited alone: the entry's own sha256 no longer matches
        (
            lambda e: e["response"].update(completion_tokens=(e["response"].get("completion_tokens") or 0) + 7),
            False,
            "sha256 does not match the content",
        ),
    ],
)
def test_edited_cache_entry_fails(workdir, edit, reseal, words):
    path = _entry_path(workdir)
    with restoring(path) as original:
        entry = json.loads(original)
        edit(entry)
        if reseal:
            entry["sha256"] = entry_digest(entry)
        path.write_text(json.dumps(entry))
        problems = run_audit(workdir).problems
    assert any(words in p for p in problems), problems


def _rewrite(path: Path, edit) -> None:
    """Rewrite artifact `path` with `edit(rows)` applied, its lineage and metadata kept (what a
    hand edit with pyarrow does)."""
    table = pq.read_table(path)
    rows = table.to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)


def _reaggregate(root: Path) -> None:
    """Aggregate again, as `snakemake` does after a grade file changed: every hash then matches."""
    grades = Path("results/extrem/grade/reference-solver/shard-0.parquet")
    aggregate(
        [str(grades)],
        outputs={k: Path(v) for k, v in OUTPUTS.items()},
        config=validate_config(CONFIG),
        published_dir=None,
    )


def _audit_cli(capsys) -> tuple[int, str]:
    from extrembench.cli import main

    code = main(
        [
            "audit",
            "--benchmark",
            "extrem",
            "--model",
            "reference-solver",
            "--results",
            "results",
            "--cache-dir",
            "cache",
        ]
    )
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.slow  # ~3 s: grades and audits again
def test_edited_verdict_fails_audit_naming_the_row_even_after_reaggregating(workdir, capsys):
    """Issue 30 item 2: rows flipped from correct to wrong and the leaderboard rebuilt around them
    (every sha256 matches): only grading again notices."""
    grades = workdir / "results/extrem/grade/reference-solver/shard-0.parquet"
    saved = {p: p.read_bytes() for p in [grades, *(workdir / v for v in OUTPUTS.values())]}
    first = pq.read_table(grades).to_pylist()[0]
    try:

        def flip(rows):
            rows[0]["correct"] = not rows[0]["correct"]

        _rewrite(grades, flip)
        _reaggregate(workdir)
        code, output = _audit_cli(capsys)
    finally:
        for path, data in saved.items():
            path.write_bytes(data)
    assert code == 1
    assert f"{first['problem_id']} trial {first['trial']}: verdict does not follow (default mode): correct" in output


def test_untouched_run_re_derives_every_verdict(workdir):
    assert any(
        "6 verdicts re-derived from the generation text and the gold" in line for line in run_audit(workdir).lines
    )


@pytest.mark.slow  # ~3 s: grades and audits again
def test_edited_gold_fails_audit_naming_the_row_even_after_rebuilding_downstream(workdir, capsys):
    """Issue 30 item 3: a gold answer edited inside the problems Parquet, then generate, grade and
    aggregate rerun on it (every sha256 matches): audit re-derives the answer from the problem
    file and re-checks the certificate, and names the row."""
    r = Path("results/extrem")
    problems = workdir / r / "problems/shard-0.parquet"
    outputs = [
        problems,
        workdir / r / "generate/reference-solver/shard-0.parquet",
        workdir / r / "generate/reference-solver/shard-0.requests.json",
        workdir / r / "grade/reference-solver/shard-0.parquet",
        *(workdir / v for v in OUTPUTS.values()),
    ]
    saved = {p: p.read_bytes() for p in outputs}
    edited = next(row for row in pq.read_table(problems).to_pylist() if row["status"] == "confirmed")
    try:

        def wrong_gold(rows):
            for row in rows:
                if row["problem_id"] == edited["problem_id"]:
                    row["answer"] = "12345"

        _rewrite(problems, wrong_gold)
        config = validate_config(CONFIG)
        generate_shard(
            problems_path=r / "problems/shard-0.parquet",
            output=r / "generate/reference-solver/shard-0.parquet",
            stats_path=r / "generate/reference-solver/shard-0.requests.json",
            benchmark="extrem",
            model="reference-solver",
            config=config,
            dag_node="g",
            server_log=Path("server.log"),
        )
        grade_shard(
            r / "generate/reference-solver/shard-0.parquet",
            r / "problems/shard-0.parquet",
            r / "grade/reference-solver/shard-0.parquet",
            dag_node="gr",
            mode="default",
            timeout_s=5.0,
        )
        _reaggregate(workdir)
        code, output = _audit_cli(capsys)
    finally:
        for path, data in saved.items():
            path.write_bytes(data)
    assert code == 1
    pid = edited["problem_id"]
    assert f"{pid}: gold '12345' differs from its source problems/{pid}.yaml" in output, output
    assert f"{pid}: certificate: the certificate proves the answer" in output, output


def test_untouched_run_re_derives_every_gold_answer(workdir):
    lines = run_audit(workdir).lines
    assert any("3 gold answers re-derived from their sources" in line for line in lines), lines


@pytest.mark.parametrize("column", ["pass_at_1", "maj_at_k", "truncation_rate"])
def test_changed_pass_maj_or_truncation_with_rewritten_checksums_is_caught(workdir, column):
    """Issue 30 item 8: audit recomputed accuracy and interval but not pass@k, maj@k or rates."""
    board = workdir / "results" / "leaderboard.parquet"
    sums = workdir / "results" / "leaderboard.sha256"
    with restoring(board), restoring(sums):
        table = pq.read_table(board)
        index = table.schema.get_field_index(column)
        table = table.set_column(index, column, pa.array([0.123] * table.num_rows))
        pq.write_table(table, board)
        write_checksums(
            [Path("results/leaderboard.parquet"), Path("results/leaderboard.csv"), Path("results/leaderboard.md")],
            Path("results/leaderboard.sha256"),
        )
        problems = run_audit(workdir).problems
    assert any(f"does not follow from its 6 grade rows: {column} 0.123 (recomputed" in p for p in problems), problems


def _reseal_board() -> None:
    write_checksums(
        [Path("results/leaderboard.parquet"), Path("results/leaderboard.csv"), Path("results/leaderboard.md")],
        Path("results/leaderboard.sha256"),
    )


def test_accuracy_edited_in_the_csv_only_with_rewritten_checksums_fails(workdir):
    """Issue 42: 0.93 for a true 1.0 in leaderboard.csv alone, leaderboard.sha256 rewritten, passed
    the audit ("audit ok"); what a reader reads is now compared with the recomputed row."""
    csv_path = workdir / "results" / "leaderboard.csv"
    sums = workdir / "results" / "leaderboard.sha256"
    with restoring(csv_path) as original, restoring(sums):
        header, row = original.decode().splitlines()[:2]
        cells = row.split(",")
        column = header.split(",").index("accuracy_mean")
        assert float(cells[column]) == 1.0
        cells[column] = "0.93"
        csv_path.write_text("\n".join([header, ",".join(cells), *original.decode().splitlines()[2:]]) + "\n")
        _reseal_board()
        problems = run_audit(workdir).problems
    assert any(
        "results/leaderboard.csv: row extrem/reference-solver does not follow from its grade rows: "
        "accuracy_mean '0.93' (recomputed 1.0)" in p
        for p in problems
    ), problems


def test_accuracy_edited_in_the_markdown_only_with_rewritten_checksums_fails(workdir):
    md_path = workdir / "results" / "leaderboard.md"
    sums = workdir / "results" / "leaderboard.sha256"
    with restoring(md_path) as original, restoring(sums):
        text = original.decode()
        assert "| 100.0 ± 0.0 |" in text
        md_path.write_text(text.replace("| 100.0 ± 0.0 |", "| 93.0 ± 0.0 |", 1))
        _reseal_board()
        problems = run_audit(workdir).problems
    assert any(
        "results/leaderboard.md: row extrem/reference-solver does not follow from its grade rows: "
        "accuracy % (mean ± std) '93.0 ± 0.0' (recomputed '100.0 ± 0.0')" in p
        for p in problems
    ), problems


def test_untouched_run_compares_the_csv_and_markdown_rows(workdir):
    lines = run_audit(workdir).lines
    assert any("results/leaderboard.csv: row extrem/reference-solver matches the recomputed row" in x for x in lines)
    assert any("results/leaderboard.md: row extrem/reference-solver matches the recomputed row" in x for x in lines)


def test_leaderboard_states_the_settings_that_produced_each_row(workdir):
    """Issue 42 (low): the leaderboard named only a config hash."""
    with open(workdir / "results" / "leaderboard.csv", newline="") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["seed_policy"] == SEED_PER_SAMPLE
    assert row["engine"].startswith("reference-solver ")
    assert row["judge_model"] == ""  # no judge configured
    assert row["temperature"] == "" and row["max_tokens"] == ""  # a solver samples nothing
    assert row["judge_decided_rate"] == "0"


@pytest.mark.parametrize("column, value", [("seed_policy", "fixed seed 0"), ("model_revision", "abc123")])
def test_edited_settings_with_rewritten_checksums_fail(workdir, column, value):
    board = workdir / "results" / "leaderboard.parquet"
    sums = workdir / "results" / "leaderboard.sha256"
    with restoring(board), restoring(sums):
        table = pq.read_table(board)
        index = table.schema.get_field_index(column)
        table = table.set_column(index, column, pa.array([value] * table.num_rows))
        pq.write_table(table, board)
        _reseal_board()
        problems = run_audit(workdir).problems
    assert any(f"does not follow from its 6 grade rows: {column} {value!r} (recomputed" in p for p in problems), (
        problems
    )


def test_settings_line_edited_in_the_markdown_fails(workdir):
    md_path = workdir / "results" / "leaderboard.md"
    sums = workdir / "results" / "leaderboard.sha256"
    with restoring(md_path) as original, restoring(sums):
        text = original.decode()
        assert "; seeds per sample: sha256(model, benchmark, problem_id, trial);" in text
        md_path.write_text(
            text.replace("; seeds per sample: sha256(model, benchmark, problem_id, trial);", "; seeds 0;")
        )
        _reseal_board()
        problems = run_audit(workdir).problems
    assert any("results/leaderboard.md: row extrem/reference-solver" in p and "settings line" in p for p in problems), (
        problems
    )
