"""Ingest of the official benchmarks from the local copies in ../shared/data (offline mode), and the
download code exercised on those copies (never the network)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import require_shared_data

from extrembench.sources.download import copy_verified, download_plan, fetch_dataset, store_derived, store_verified
from extrembench.sources.download import main as download_main
from extrembench.sources.ingest import (
    DATASETS,
    ChecksumError,
    DatasetError,
    DatasetSpec,
    amo_answer_type_from_prompt,
    amo_answer_variables,
    derive_amo_gold,
    last_boxed,
    load_benchmark,
    local_root,
    math500_problem_id,
    sha256_file,
    verify_files,
)

RECORD_KEYS = {"problem_id", "statement", "answer", "answer_type", "source_path", "source_sha256", "meta"}

# Every test here reads the local copies: skipped without them, failed under
# EXTREMBENCH_REQUIRE_SHARED_DATA=1 (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("shared_datasets")


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[dict]]:
    require_shared_data()
    names = ("aime2025", "math500", "amo-bench", "amo-bench-p")
    return {name: load_benchmark(name, local_root(name)) for name in names}


@pytest.mark.parametrize(
    "name, count, types",
    [
        ("aime2025", 30, {"number": 30}),
        ("math500", 500, {"number": 500}),
        ("amo-bench", 50, {"number": 34, "set": 3, "variable": 2, "description": 11}),
        ("amo-bench-p", 39, {"number": 34, "set": 3, "variable": 2}),
    ],
)
def test_benchmark_sizes_and_answer_types(loaded, name, count, types):
    records = loaded[name]
    assert len(records) == count
    assert len({r["problem_id"] for r in records}) == count
    assert dict(Counter(r["answer_type"] for r in records)) == types
    assert all(set(r) == RECORD_KEYS for r in records)


@pytest.mark.parametrize(
    "name, problem_id, answer, statement_start",
    [
        # spot-checks listed in the PROVENANCE.md files
        ("aime2025", "aime2025-I-01", "70", "Find the sum of all integer bases $b>9$"),
        ("aime2025", "aime2025-I-13", "204", "Alex divides a disk into four quadrants"),
        ("aime2025", "aime2025-II-13", "248", r"Let $x_1, x_2, x_3, \ldots$ be a sequence of rational numbers"),
        ("aime2025", "aime2025-II-15", "240", "There are exactly three positive real numbers $k$"),
        ("math500", "math500-precalculus-807", r"\left( 3, \frac{\pi}{2} \right)", "Convert the point $(0,3)$"),
        ("math500", "math500-algebra-1934", "13", ""),
        ("math500", "math500-geometry-615", r"106^\circ", r"Altitudes $\overline{AD}$"),
        ("amo-bench", "amo-bench-01", "6", "Divide each side of an equilateral triangle"),
        ("amo-bench", "amo-bench-03", r"\{1, 2, 3\}", ""),
        ("amo-bench", "amo-bench-35", "7657", ""),
        ("amo-bench-p", "amo-bench-43", r"\{40, 64, 75, 100, 150\}", ""),
    ],
)
def test_spot_checks(loaded, name, problem_id, answer, statement_start):
    record = next(r for r in loaded[name] if r["problem_id"] == problem_id)
    assert record["answer"] == answer
    assert record["statement"].startswith(statement_start)


def test_aime_sources_point_at_the_tex_and_csv(loaded):
    record = next(r for r in loaded["aime2025"] if r["problem_id"] == "aime2025-II-04")
    tex = local_root("aime2025") / "matharena/aime_2025_II/problems/4.tex"
    assert record["source_path"] == f"{tex}#file"
    assert record["source_sha256"] == sha256_file(tex)
    # the MathArena text keeps its \frac (the AReaL JSONL copy lost it to escape damage)
    assert r"\frac" in record["statement"]
    assert record["meta"]["answer_source"].endswith("aime_2025_II/answers.csv#id=4")


def test_math500_keeps_subject_level_and_unique_id(loaded):
    record = loaded["math500"][250]
    assert record["source_path"].endswith("math500/test.jsonl#line=251")
    assert record["meta"]["unique_id"] == "test/algebra/1934.json"
    assert record["meta"]["subject"] == "Algebra"
    assert Counter(r["meta"]["level"] for r in loaded["math500"]) == {1: 43, 2: 90, 3: 105, 4: 128, 5: 134}
    assert Counter(r["meta"]["subject"] for r in loaded["math500"])["Intermediate Algebra"] == 97


def test_amo_prompts_keep_the_answer_format_instruction(loaded):
    for record in loaded["amo-bench"]:
        assert "### The final answer is:" in record["statement"]
    variable_records = [r for r in loaded["amo-bench"] if r["answer_type"] == "variable"]
    assert [r["meta"]["answer_variables"] for r in variable_records] == [["n"], ["a", "b", "c"]]


def test_amo_bench_p_is_the_parser_graded_subset(loaded):
    full = {r["problem_id"]: r for r in loaded["amo-bench"]}
    for record in loaded["amo-bench-p"]:
        assert record == full[record["problem_id"]]


@pytest.mark.parametrize(
    "unique_id, expected",
    [
        ("test/precalculus/807.json", "math500-precalculus-807"),
        ("test/counting_and_probability/10.json", "math500-counting_and_probability-10"),
    ],
)
def test_math500_problem_id(unique_id, expected):
    assert math500_problem_id(unique_id) == expected


@pytest.mark.parametrize("unique_id", ["train/algebra/1.json", "test/algebra/1", "test/../x/1.json"])
def test_math500_problem_id_rejects_other_shapes(unique_id):
    with pytest.raises(DatasetError, match="unique_id"):
        math500_problem_id(unique_id)


@pytest.mark.parametrize(
    "prompt_tail, answer_type",
    [
        ("please output your final answer in the following format:\n$\\boxed{<your answer>}$", "number"),
        ("please output a set (completely enumerating all elements) as your final answer", "set"),
        ("$\\boxed{<your answer>}$\nYour final answer must be a formula containing n.\n", "variable"),
        ("please summarize your final answer using the following format:", "description"),
    ],
)
def test_amo_answer_type_from_prompt(prompt_tail, answer_type):
    assert amo_answer_type_from_prompt("Problem text.\nAfter solving the above problem, " + prompt_tail) == answer_type


def test_amo_answer_type_needs_an_instruction():
    with pytest.raises(DatasetError, match="answer-format"):
        amo_answer_type_from_prompt("Find x.")


@pytest.mark.parametrize(
    "prompt, variables",
    [
        ("Your final answer must be a formula containing n.", ["n"]),
        ("Your final answer must be a formula containing a, b, and c.", ["a", "b", "c"]),
        ("Your final answer must be a formula containing x and y.", ["x", "y"]),
        ("No formula asked.", []),
    ],
)
def test_amo_answer_variables(prompt, variables):
    assert amo_answer_variables(prompt) == variables


def _copy_dataset(name: str, tmp_path: Path) -> Path:
    root = tmp_path / name
    for relative in DATASETS[name].files:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(local_root(name) / relative, target)
    return root


def test_checksum_mismatch_names_file_and_both_hashes(tmp_path):
    root = _copy_dataset("aime2025", tmp_path)
    answers = root / "matharena/aime_2025_I/answers.csv"
    answers.write_text(answers.read_text().replace("1,70", "1,71"))
    expected = DATASETS["aime2025"].files["matharena/aime_2025_I/answers.csv"]
    with pytest.raises(ChecksumError) as caught:
        load_benchmark("aime2025", root)
    message = str(caught.value)
    assert str(answers) in message and expected in message and sha256_file(answers) in message


def test_missing_file_is_named(tmp_path):
    root = _copy_dataset("amo-bench", tmp_path)
    (root / "gold_from_reference_solutions.jsonl").unlink()
    with pytest.raises(DatasetError, match="gold_from_reference_solutions.jsonl: missing file"):
        verify_files(DATASETS["amo-bench"], root)


def test_amo_reader_catches_a_gold_type_that_disagrees_with_the_prompt(tmp_path):
    from extrembench.sources.ingest import read_amo_bench

    root = _copy_dataset("amo-bench", tmp_path)
    gold = root / "gold_from_reference_solutions.jsonl"
    rows = [json.loads(line) for line in gold.read_text().splitlines()]
    rows[0]["answer_type"] = "set"
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows))
    # bypass verify_files on purpose: the reader's own consistency check is under test
    with pytest.raises(DatasetError, match="disagrees with the prompt"):
        read_amo_bench(root)


def test_copies_load_identically_from_another_root(tmp_path, loaded):
    root = _copy_dataset("math500", tmp_path)
    records = load_benchmark("math500", root)
    assert [r["problem_id"] for r in records] == [r["problem_id"] for r in loaded["math500"]]
    assert records[0]["source_path"] == f"{root / 'test.jsonl'}#line=1"


@pytest.mark.parametrize(
    "name, error",
    [("nope", "unknown dataset"), ("extrem-bench", "has no reader")],
)
def test_unloadable_names(name, error):
    with pytest.raises(DatasetError, match=error):
        load_benchmark(name, Path("."))


def test_registry_pins_every_local_file_and_says_where_it_comes_from():
    for name, spec in DATASETS.items():
        assert spec.name == name
        assert set(spec.origin) == set(spec.files)
        assert all(len(sha) == 64 and int(sha, 16) >= 0 for sha in spec.files.values())
        assert spec.license and spec.citation
        # a revision is a full commit sha or explicitly unknown, never a branch name
        assert spec.revision is None or len(spec.revision) == 40


# --- download code, exercised on the local copies only (never the network) -----------------------

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    "name, revision, relative, url",
    [
        (
            "math500",
            SHA,
            "test.jsonl",
            f"https://huggingface.co/datasets/HuggingFaceH4/MATH-500/resolve/{SHA}/test.jsonl",
        ),
        (
            "math500",
            None,
            "test.jsonl",
            "https://raw.githubusercontent.com/inclusionAI/AReaL/"
            "f55fe685c661b0117d888fcae47d6f46e9a85087/evaluation/data/math_500/test.jsonl",
        ),
        (
            "aime2025",
            None,
            "matharena/aime_2025_II/problems/7.tex",
            "https://raw.githubusercontent.com/eth-sri/"
            "matharena/81f103e38b1df076afa65ee0a3ffbe148d42e6d2/data/aime/aime_2025_II/problems/7.tex",
        ),
    ],
)
def test_download_plan_urls(name, revision, relative, url):
    plan = {p.relative: p for p in download_plan(DATASETS[name], revision)}
    assert set(plan) == set(DATASETS[name].files)
    assert plan[relative].url == url
    assert plan[relative].sha256 == DATASETS[name].files[relative]


@pytest.mark.parametrize(
    "name, revision, reason",
    [
        ("extrem-bench", SHA, "no pinned files"),
        ("math500", "main", "not a 40-hex commit sha"),
    ],
)
def test_download_plan_refuses(name, revision, reason):
    with pytest.raises(DatasetError, match=reason):
        download_plan(DATASETS[name], revision)


def test_download_plan_for_amo_bench_leaves_the_derived_gold_out():
    plan = {p.relative: p.url for p in download_plan(DATASETS["amo-bench"])}
    assert plan == {
        "partial_prompts_only/test.jsonl": "https://raw.githubusercontent.com/ezoicoder/AReaL/"
        "04da7fd9876d526125573e22776dc1c70b831252/evaluation/data/amo_bench/test.jsonl",
        "reference_solutions/example.jsonl": "https://raw.githubusercontent.com/meituan-longcat/AMO-Bench/"
        "52e1f378e4bcb0c593e860be38f9251b1a192571/model_responses/example.jsonl",
    }


@pytest.mark.parametrize(
    "spec, revision, reason",
    [
        (
            DatasetSpec(
                "hub-only", "org/data", None, {"a.jsonl": "0" * 64}, "MIT", "c", hub_paths={"a.jsonl": "a.jsonl"}
            ),
            None,
            r"a.jsonl \(on the Hub: pass revision=<commit sha of org/data>\)",
        ),
        (
            DatasetSpec("nowhere", None, None, {"a.jsonl": "0" * 64}, "MIT", "c", origin={"a.jsonl": "kept by hand"}),
            None,
            r"a.jsonl \(kept by hand\)",
        ),
    ],
)
def test_download_plan_names_files_without_a_source(spec, revision, reason):
    with pytest.raises(DatasetError, match=reason):
        download_plan(spec, revision)


def test_derive_amo_gold_reproduces_the_shared_file():
    root = local_root("amo-bench")
    assert derive_amo_gold(root) == (root / "gold_from_reference_solutions.jsonl").read_bytes()


@pytest.mark.parametrize(
    "text, content",
    [
        (r"so $\boxed{6}$.", "6"),
        (r"$\boxed{1}$ then $\boxed{\{1, 2\}}$", r"\{1, 2\}"),
        (r"$\boxed{\frac{a}{b}}$", r"\frac{a}{b}"),
        ("no box", None),
        (r"$\boxed{unclosed", None),
    ],
)
def test_last_boxed(text, content):
    assert last_boxed(text) == content


def test_derived_gold_is_rebuilt_and_verified(tmp_path):
    spec = DATASETS["amo-bench"]
    root = tmp_path / "amo"
    for relative in ("partial_prompts_only/test.jsonl", "reference_solutions/example.jsonl"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(local_root("amo-bench") / relative, root / relative)
    store_derived(spec, root)
    assert len(load_benchmark("amo-bench", root)) == 50


def test_derived_gold_from_altered_solutions_is_refused(tmp_path):
    root = _copy_dataset("amo-bench", tmp_path)
    (root / "gold_from_reference_solutions.jsonl").unlink()
    solutions = root / "reference_solutions/example.jsonl"
    solutions.write_text(solutions.read_text().replace("boxed{6}", "boxed{7}", 1))
    with pytest.raises(ChecksumError, match="rebuilt by derive_amo_gold"):
        store_derived(DATASETS["amo-bench"], root)
    assert not (root / "gold_from_reference_solutions.jsonl").exists()


def _chunks(path: Path, size: int = 4096):
    data = path.read_bytes()
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_store_verified_writes_the_pinned_bytes(tmp_path):
    source = local_root("math500") / "test.jsonl"
    target = store_verified(
        _chunks(source), tmp_path / "m" / "test.jsonl", DATASETS["math500"].files["test.jsonl"], source="local"
    )
    assert target.read_bytes() == source.read_bytes()


def test_store_verified_rejects_other_bytes_and_leaves_nothing(tmp_path):
    source = local_root("amo-bench") / "partial_prompts_only/test.jsonl"
    expected = DATASETS["math500"].files["test.jsonl"]
    with pytest.raises(ChecksumError) as caught:
        store_verified(_chunks(source), tmp_path / "test.jsonl", expected, source="https://example.invalid/x")
    assert expected in str(caught.value) and sha256_file(source) in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_fetch_keeps_verified_files_without_network(tmp_path):
    dest = copy_verified(DATASETS["aime2025"], local_root("aime2025"), tmp_path / "aime")
    # every file is present and verified, so fetch_dataset has nothing to download
    assert fetch_dataset("aime2025", dest) == dest
    assert len(load_benchmark("aime2025", dest)) == 30


def test_download_cli_offline_copy(tmp_path, capsys):
    dest = tmp_path / "amo"
    assert download_main(["amo-bench-p", str(dest), "--from-local", str(local_root("amo-bench"))]) == 0
    assert len(load_benchmark("amo-bench-p", dest)) == 39
    assert download_main(["amo-bench", str(tmp_path / "x"), "--revision", "main"]) == 1
    assert "not a 40-hex commit sha" in capsys.readouterr().err
