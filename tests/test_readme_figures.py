"""README's and the docs' run figures are rendered from the record of a measured run
(benchmarks/figures.py, docs/figures/measured.json) and that record was made on this checkout's code,
rules, config and problem files: a figure edited by hand, or a commit after the last measured run,
fails here, naming the block and the command that measures it again."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO / "benchmarks"))  # benchmarks/figures.py and the scripts it imports

import figures  # noqa: E402


def test_every_block_is_rendered_from_a_measurement_made_on_this_checkout():
    assert figures.problems(figures.load_record()) == []


def test_the_pages_hold_the_blocks_the_record_measures():
    names = {m["name"] for page in figures.PAGES for m in figures.BLOCK.finditer((REPO / page).read_text())}
    assert names == set(figures.RENDERERS)


def test_a_figure_edited_by_hand_fails_naming_its_block():
    record, text = figures.load_record(), (REPO / "README.md").read_text()
    assert figures.stale_blocks(text, "README.md", record) == []
    for name in figures.RENDERERS:
        block = next(m for m in figures.BLOCK.finditer(text) if m["name"] == name)
        digit = re.search(r"\d", block["body"])
        edited = block["body"][: digit.start()] + str((int(digit[0]) + 1) % 10) + block["body"][digit.end() :]
        changed = text[: block.start("body")] + edited + text[block.end("body") :]
        assert [line for line in figures.stale_blocks(changed, "README.md", record) if repr(name) in line]


def test_an_edited_problem_file_or_module_changes_the_fingerprint(tmp_path):
    for folder in ("extrembench", "data", "scripts", "rules"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("Snakefile", "config.yaml"):
        shutil.copy(REPO / name, tmp_path / name)
    before = figures.fingerprint(tmp_path)
    assert before == figures.fingerprint(REPO)
    problem = tmp_path / "data" / "problems" / "ineq-0007.yaml"
    problem.write_text(problem.read_text() + "\n")
    assert figures.fingerprint(tmp_path) != before
    problem.write_text((REPO / "data" / "problems" / "ineq-0007.yaml").read_text())
    module = tmp_path / "extrembench" / "verify" / "validate.py"
    module.write_text(module.read_text() + "# a review commit\n")
    assert figures.fingerprint(tmp_path) != before


@pytest.mark.slow  # ~40 s: every headline file described with its three cheap guesses
def test_the_problem_set_figures_are_what_the_set_measures_now():
    recorded = {k: v for k, v in figures.load_record()["problem-set"].items() if k != "fingerprint"}
    assert figures.measure_problem_set() == recorded, "run `python benchmarks/figures.py measure --problem-set`"
