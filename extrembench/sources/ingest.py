"""Official companion benchmarks: where each one comes from, and reading it into records.

Each dataset has a registry entry (`DATASETS`) with its Hub id, pinned revision, the files it is
read from with their expected sha256, licence and citation. `load_benchmark(name, root)` reads a
local copy (offline mode: `root` is the folder holding `spec.files`), verifies every checksum first,
and returns normalised records:

    problem_id, statement, answer, answer_type, source_path, source_sha256, meta

`answer_type` is one of AMO-Bench's four grading modes (number | set | variable | description);
"number" means "graded by Math-Verify equivalence", which also covers MATH-500's tuples,
intervals and expressions. Downloading lives in `extrembench.sources.download`.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from extrembench.core.artifacts import write_artifact
from extrembench.core.errors import InputError
from extrembench.core.files import read_jsonl, sha256_file
from extrembench.core.shards import shard_of, take

log = logging.getLogger(__name__)

ANSWER_TYPES = ("number", "set", "variable", "description")


SHARED_DATA_ENV = "EXTREMBENCH_SHARED_DATA"
CHECKOUT = Path(__file__).resolve().parents[2]  # extrembench/sources/ingest.py -> the checkout


def shared_data_root(checkout: Path | None = None) -> Path:
    """Where the local dataset copies live (see their PROVENANCE.md files): the folder named by the
    EXTREMBENCH_SHARED_DATA environment variable, else `shared/data` beside the checkout
    (`<checkout>/../shared/data`)."""
    configured = os.environ.get(SHARED_DATA_ENV)
    if configured:
        return Path(configured)
    return (checkout or CHECKOUT).parent / "shared" / "data"


def shared_data_places(checkout: Path | None = None) -> str:
    """The places shared_data_root looks, in its order, for an error message."""
    configured = os.environ.get(SHARED_DATA_ENV)
    first = f"{SHARED_DATA_ENV}={configured}" if configured else f"{SHARED_DATA_ENV} (not set)"
    return f"{first}, then {(checkout or CHECKOUT).parent / 'shared' / 'data'} (../shared/data beside the checkout)"


class DatasetError(InputError, ValueError):
    """A dataset file is missing or does not have the documented layout."""


class ChecksumError(DatasetError):
    """A file's sha256 differs from the pinned one."""


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    # Hugging Face dataset repo of the official release; None when the Hub holds no copy of these files.
    hub_id: str | None
    # Hub commit sha the files are pinned to; None = not known here, so downloading from the Hub
    # needs an explicit revision (never a moving branch).
    revision: str | None
    files: Mapping[str, str]  # file relative to the dataset root -> expected sha256
    license: str
    citation: str
    local_dir: str | None = None  # folder under the shared data root that holds `files`
    hub_paths: Mapping[str, str] = field(default_factory=dict)  # file -> path inside the Hub repo
    mirrors: Mapping[str, str] = field(default_factory=dict)  # file -> raw URL at a pinned git commit
    origin: Mapping[str, str] = field(default_factory=dict)  # file -> where the bytes come from
    subset_of: str | None = None  # same files as another benchmark, filtered
    # file -> function(root) -> bytes that rebuilds it from the other files (for files no release holds)
    derived: Mapping[str, Callable[[Path], bytes]] = field(default_factory=dict)


def verify_files(spec: DatasetSpec, root: Path) -> None:
    """Check that every pinned file exists under `root` with its expected sha256."""
    if not spec.files:
        raise DatasetError(
            f"dataset {spec.name!r} has no pinned files: nothing to verify. Add its files and sha256 "
            "to extrembench.sources.ingest.DATASETS after a first download checked by hand."
        )
    for relative, expected in spec.files.items():
        path = Path(root) / relative
        if not path.is_file():
            raise DatasetError(
                f"{path}: missing file of dataset {spec.name!r}. Point the root at the folder holding "
                f"{sorted(spec.files)[0]!r} etc., or fetch it with `fetch_dataset({spec.name!r}, dest)`."
            )
        actual = sha256_file(path)
        if actual != expected:
            raise ChecksumError(
                f"{path}: sha256 mismatch for dataset {spec.name!r}: expected {expected}, got {actual}. "
                "The file is not the pinned release; restore the original copy or re-download it."
            )


def local_root(name: str, data_root: Path | None = None) -> Path:
    """The folder of a dataset's local copy under the shared data root (offline mode); raises
    DatasetError naming every place looked in when it is not there."""
    spec = dataset_spec(name)
    if spec.local_dir is None:
        raise DatasetError(f"dataset {name!r} has no local copy; it can only be fetched from the Hub")
    folder = Path(data_root if data_root is not None else shared_data_root()) / spec.local_dir
    if not folder.is_dir():
        looked = str(folder) if data_root is not None else shared_data_places()
        # the command that puts the files where this function looks (a fetch reads the network)
        fetch = f"python -m extrembench.sources.download {spec.subset_of or name} {folder}"
        raise DatasetError(
            f"local copy of dataset {name!r} not found: looked for {spec.local_dir}/ in {looked}. Download it "
            f"(each file sha256-checked against its pin): `{fetch}`; or set {SHARED_DATA_ENV} to a folder that "
            f"holds {spec.local_dir}/ (e.g. a copy on the cluster's shared file system; docs/datasets.md)."
        )
    return folder


def load_benchmark(name: str, root: Path) -> list[dict]:
    """Verified, normalised records of benchmark `name` read from the local copy in `root`."""
    spec = dataset_spec(name)
    reader = _READERS.get(name)
    if reader is None:
        raise DatasetError(f"benchmark {name!r} has no reader: its release format is not available here")
    verify_files(spec, root)
    records = reader(Path(root))
    _require_unique(records)
    return records


def dataset_spec(name: str) -> DatasetSpec:
    if name not in DATASETS:
        raise DatasetError(f"unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}")
    return DATASETS[name]


def _record(problem_id, statement, answer, answer_type, source_path, source_sha256, meta) -> dict:
    return {
        "problem_id": problem_id,
        "statement": statement,
        "answer": answer,
        "answer_type": answer_type,
        "source_path": source_path,
        "source_sha256": source_sha256,
        "meta": meta,
    }


def _read_jsonl(path: Path) -> list[dict]:
    try:
        return [row for _, row in read_jsonl(path)]
    except ValueError as error:
        raise DatasetError(str(error)) from None


def _require(row: dict, keys: tuple[str, ...], where: str) -> None:
    missing = [key for key in keys if key not in row]
    if missing:
        raise DatasetError(f"{where}: missing field(s) {', '.join(missing)}")


# --- AIME 2025 (MathArena files) ---------------------------------------------------------------
AIME_PARTS = ("I", "II")


def read_aime2025(root: Path) -> list[dict]:
    records = []
    for part in AIME_PARTS:
        answers_path = root / "matharena" / f"aime_2025_{part}" / "answers.csv"
        answers_sha = sha256_file(answers_path)
        with open(answers_path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            if reader.fieldnames != ["id", "answer"]:
                raise DatasetError(f"{answers_path}: header must be 'id,answer', got {reader.fieldnames}")
            answers = {row["id"]: row["answer"] for row in reader}
        if sorted(answers) != sorted(str(n) for n in range(1, 16)):
            raise DatasetError(f"{answers_path}: ids must be 1..15, got {sorted(answers)}")
        for number in range(1, 16):
            answer = answers[str(number)].strip()
            if not (answer.isdigit() and 0 <= int(answer) <= 999):
                raise DatasetError(f"{answers_path}: id {number}: answer {answer!r} is not an integer 0..999")
            tex_path = root / "matharena" / f"aime_2025_{part}" / "problems" / f"{number}.tex"
            meta = {
                "contest": f"AIME 2025 {part}",
                "number": number,
                "answer_source": f"{answers_path}#id={number}",
                "answer_sha256": answers_sha,
            }
            records.append(
                _record(
                    f"aime2025-{part}-{number:02d}",
                    tex_path.read_text(encoding="utf-8").strip(),
                    answer,
                    "number",
                    f"{tex_path}#file",
                    sha256_file(tex_path),
                    meta,
                )
            )
    return records


# --- MATH-500 ------------------------------------------------------------------------------------
_MATH500_ID = re.compile(r"test/([a-z_]+)/(\d+)\.json")


def math500_problem_id(unique_id: str) -> str:
    """'test/precalculus/807.json' -> 'math500-precalculus-807' (a name safe for file paths)."""
    match = _MATH500_ID.fullmatch(unique_id)
    if match is None:
        raise DatasetError(f"MATH-500 unique_id {unique_id!r} is not of the form test/<subject>/<n>.json")
    return f"math500-{match.group(1)}-{match.group(2)}"


def read_math500(root: Path) -> list[dict]:
    path = root / "test.jsonl"
    sha = sha256_file(path)
    records = []
    for line_number, row in enumerate(_read_jsonl(path), start=1):
        _require(row, ("problem", "answer", "subject", "level", "unique_id"), f"{path}:{line_number}")
        meta = {"unique_id": row["unique_id"], "subject": row["subject"], "level": row["level"]}
        records.append(
            _record(
                math500_problem_id(row["unique_id"]),
                row["problem"],
                row["answer"],
                "number",
                f"{path}#line={line_number}",
                sha,
                meta,
            )
        )
    _require_unique(records)
    return records


def _require_unique(records: list[dict]) -> None:
    """Every problem id once: two records under one id would be asked twice and graded against
    one gold. The error names both places."""
    first: dict[str, str] = {}
    for record in records:
        problem_id, where = record["problem_id"], record["source_path"]
        if problem_id in first:
            raise DatasetError(
                f"{where}: problem id {problem_id!r} is also the id of {first[problem_id]}; ids must be unique "
                "within a benchmark (the release is not the pinned one, or its reader maps two records to one id)"
            )
        first[problem_id] = where


# --- AMO-Bench -----------------------------------------------------------------------------------
AMO_PROMPTS = "partial_prompts_only/test.jsonl"
AMO_GOLD = "gold_from_reference_solutions.jsonl"
AMO_SOLUTIONS = "reference_solutions/example.jsonl"
AMO_FINAL_ANSWER = "### The final answer is:"
_FORMULA_VARIABLES = re.compile(r"must be a formula containing ([^.\n]+)\.")


def amo_answer_type_from_prompt(prompt: str) -> str:
    """The grading mode AMO-Bench's answer-format instruction asks for."""
    if "please summarize your final answer" in prompt:
        return "description"
    if "please output a set" in prompt:
        return "set"
    if _FORMULA_VARIABLES.search(prompt):
        return "variable"
    if r"\boxed{<your answer>}" in prompt:
        return "number"
    raise DatasetError("prompt carries none of AMO-Bench's answer-format instructions")


def amo_answer_variables(prompt: str) -> list[str]:
    """'…a formula containing a, b, and c.' -> ['a', 'b', 'c'] (the symbols a variable answer uses)."""
    match = _FORMULA_VARIABLES.search(prompt)
    if match is None:
        return []
    return [name for name in re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group(1)) if name]


def read_amo_bench(root: Path) -> list[dict]:
    prompts_path, gold_path = root / AMO_PROMPTS, root / AMO_GOLD
    prompts_sha, gold_sha = sha256_file(prompts_path), sha256_file(gold_path)
    gold = {}
    for line_number, row in enumerate(_read_jsonl(gold_path), start=1):
        _require(row, ("question_id", "answer_type", "answer"), f"{gold_path}:{line_number}")
        if row["answer_type"] not in ANSWER_TYPES:
            raise DatasetError(f"{gold_path}:{line_number}: answer_type {row['answer_type']!r} not in {ANSWER_TYPES}")
        if row["question_id"] in gold:
            raise DatasetError(
                f"{gold_path}:{line_number}: question_id {row['question_id']!r} is also on line "
                f"{gold[row['question_id']][0]}; one gold answer per question"
            )
        gold[row["question_id"]] = (line_number, row)
    records, prompt_lines = [], {}
    for line_number, row in enumerate(_read_jsonl(prompts_path), start=1):
        where = f"{prompts_path}:{line_number}"
        _require(row, ("id", "problem"), where)
        if row["id"] in prompt_lines:
            raise DatasetError(
                f"{where}: id {row['id']!r} is also on line {prompt_lines[row['id']]}; one prompt per id"
            )
        prompt_lines[row["id"]] = line_number
        if row["id"] not in gold:
            raise DatasetError(f"{where}: id {row['id']} has no gold answer in {gold_path}")
        gold_line, gold_row = gold.pop(row["id"])
        prompted_type = amo_answer_type_from_prompt(row["problem"])
        if prompted_type != gold_row["answer_type"]:
            raise DatasetError(
                f"{gold_path}:{gold_line}: answer_type {gold_row['answer_type']!r} disagrees with the "
                f"prompt's format instruction ({prompted_type!r}) in {where}"
            )
        meta = {"question_id": row["id"], "gold_source": f"{gold_path}#line={gold_line}", "gold_sha256": gold_sha}
        if prompted_type == "variable":
            meta["answer_variables"] = amo_answer_variables(row["problem"])
        # The statement keeps AMO-Bench's answer-format instruction: the grader relies on it.
        records.append(
            _record(
                f"amo-bench-{row['id']:02d}",
                row["problem"],
                gold_row["answer"],
                prompted_type,
                f"{prompts_path}#line={line_number}",
                prompts_sha,
                meta,
            )
        )
    if gold:
        raise DatasetError(f"{gold_path}: gold answers for ids {sorted(gold)} have no prompt in {prompts_path}")
    return records


def last_boxed(text: str) -> str | None:
    """The content of the last \\boxed{...} in `text` (braces matched), or None."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    depth, position = 1, start + len("\\boxed{")
    for index in range(position, len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[position:index]
    return None


def derive_amo_gold(root: Path) -> bytes:
    """Rebuild gold_from_reference_solutions.jsonl from the prompts and the official reference solutions.

    The answer is what follows the last "### The final answer is:" of each reference solution: the
    last \\boxed{} content for number/set/variable types, the whole text for description types; the
    type comes from the prompt's format instruction. Reproduces the shared file byte for byte.
    """
    prompts_path, solutions_path = root / AMO_PROMPTS, root / AMO_SOLUTIONS
    solutions = {}
    for line_number, row in enumerate(_read_jsonl(solutions_path), start=1):
        _require(row, ("question_id", "model_response"), f"{solutions_path}:{line_number}")
        solutions[row["question_id"]] = row["model_response"]
    lines = []
    for line_number, row in enumerate(_read_jsonl(prompts_path), start=1):
        _require(row, ("id", "problem"), f"{prompts_path}:{line_number}")
        response = solutions.get(row["id"])
        if response is None or AMO_FINAL_ANSWER not in response:
            raise DatasetError(f"{solutions_path}: no reference solution with {AMO_FINAL_ANSWER!r} for id {row['id']}")
        answer_type = amo_answer_type_from_prompt(row["problem"])
        final = response.rsplit(AMO_FINAL_ANSWER, 1)[1]
        answer = final.strip() if answer_type == "description" else last_boxed(final)
        if answer is None:
            raise DatasetError(f"{solutions_path}: id {row['id']}: no \\boxed{{}} after {AMO_FINAL_ANSWER!r}")
        lines.append((row["id"], {"question_id": row["id"], "answer_type": answer_type, "answer": answer}))
    return "".join(json.dumps(item) + "\n" for _id, item in sorted(lines, key=lambda pair: pair[0])).encode()


def read_amo_bench_p(root: Path) -> list[dict]:
    """AMO-Bench-P: the 39 problems graded by a parser (every type but description)."""
    return [r for r in read_amo_bench(root) if r["answer_type"] != "description"]


_READERS: dict[str, Callable[[Path], list[dict]]] = {
    "aime2025": read_aime2025,
    "math500": read_math500,
    "amo-bench": read_amo_bench,
    "amo-bench-p": read_amo_bench_p,
}

# --- registry ------------------------------------------------------------------------------------
_MATHARENA_RAW = (
    "https://raw.githubusercontent.com/eth-sri/matharena/81f103e38b1df076afa65ee0a3ffbe148d42e6d2/data/aime/"
)
_AIME_FILES = {
    "matharena/aime_2025_I/answers.csv": "d25db8d3050ab6aa5437fdc77e243d5efcfff4add23b55f44f3942e93d59fd31",
    "matharena/aime_2025_I/problems/1.tex": "26a263ad81138dbfb41647a1e55af77c0b8ab02d4b051fc23722a7f0c403535d",
    "matharena/aime_2025_I/problems/2.tex": "3f55fba10d99fd167d58e8b8497cfc04d69f37aa54ca942276608ea69ff7e5cc",
    "matharena/aime_2025_I/problems/3.tex": "58fe37dacfbee8e6f8e9e090778365b2f4acdf05c8d74c6373b727ea90cf766e",
    "matharena/aime_2025_I/problems/4.tex": "348fa6beaf77fee3986117dbe82bd4d0a45560898f056da72bf166dcbf6364c5",
    "matharena/aime_2025_I/problems/5.tex": "20a4b9569c0c5a6f21720f0ee4c84dd26e2d146c11200eb3ea0274b1cc70264d",
    "matharena/aime_2025_I/problems/6.tex": "f862f0368b2ad1a8459a02663dad9474cb8d907be3263542ca5b39b0154eba39",
    "matharena/aime_2025_I/problems/7.tex": "e5391454ee1ae2dba04ebe27493b09e17d0681305dea39eab9ef7da22434c818",
    "matharena/aime_2025_I/problems/8.tex": "0412b80ad1a49c53292d0612113f1d9310762a39159d3e1a87c8722b0e4ef0bf",
    "matharena/aime_2025_I/problems/9.tex": "066aabf25bd4fb22cb62dcb9c8193e15d89d2319125cf50dd08fdf7b7057190d",
    "matharena/aime_2025_I/problems/10.tex": "7e76250549ad86d0db64a501d47ddd85df4274833e2241ab875bfad847d292ad",
    "matharena/aime_2025_I/problems/11.tex": "5218a0e717b22dddeef8cce9d3d1d1051a5030902d52ab4ca9f2cc79037ec444",
    "matharena/aime_2025_I/problems/12.tex": "9df369a8ad5157c8960a7aeae493810098269864c996d06a3c5854cb1d0bdabf",
    "matharena/aime_2025_I/problems/13.tex": "c4257795097d17aed1521c5eb5353f09981a5f92549338c6358f33d8c49fae22",
    "matharena/aime_2025_I/problems/14.tex": "a3bcb4f0a11d25cf3f9d7d052647274a553a9052a49c83ab013e5c8617bb96e5",
    "matharena/aime_2025_I/problems/15.tex": "e41ea154b2eaaa8b272e4bf4207608466807527a9d707886121ad98a9ce3a90f",
    "matharena/aime_2025_II/answers.csv": "d4ae1f788fff90fe89d8d433e08045f865ab2c3f61200f1e8a418e29a1054caf",
    "matharena/aime_2025_II/problems/1.tex": "c9f868cddbefd2798885d302901cb8344676642840c391ed9635224c73376e57",
    "matharena/aime_2025_II/problems/2.tex": "5456f4190495febfb1f94a7d2d888184560c0d311d09f9ba8df0213172a769b7",
    "matharena/aime_2025_II/problems/3.tex": "4e99fa9b8c42a5b73d3b86e10e8cca6ab929fc054cefa02a1c78f18417172064",
    "matharena/aime_2025_II/problems/4.tex": "9dc773c6ff4f68277eb1864c30d88758ad472718747033bed75a284a1a8f76a9",
    "matharena/aime_2025_II/problems/5.tex": "f61e610fb78079a93cc0b1b91feded563ba8e445e6933acf74d20945af951986",
    "matharena/aime_2025_II/problems/6.tex": "968c36665d072e238b091a67bd67b91fd5e581219feffd1da56ee7fff4ff43b5",
    "matharena/aime_2025_II/problems/7.tex": "cf1d5f761ce5942a44355ce05b1e490f24b35819a1402366dae26f95c1c8474f",
    "matharena/aime_2025_II/problems/8.tex": "459c0b9eb4ccdcbf64baa1a70cba19869d652a1999966f43284c9c97c0d04b6b",
    "matharena/aime_2025_II/problems/9.tex": "3e8f6b46d3c48cf5d4b407d971e725608a18f835cb96e96156299f5096abaf8a",
    "matharena/aime_2025_II/problems/10.tex": "a2999ecfa8f9a767855b7b43e2968173df904b4759e6510f5093ec701e028674",
    "matharena/aime_2025_II/problems/11.tex": "1d6318c3bffdd04aff2f9503b43f64eb63367f40b8c2117575ac7890f3ed4c8e",
    "matharena/aime_2025_II/problems/12.tex": "d3e05e3bf85696649fe4030478871ffa8e8b8805b6d47421f2bffecd7a085e4e",
    "matharena/aime_2025_II/problems/13.tex": "de56c94a8e485ecafd89d9dc1b40a677a3fc4999d9a36101a661e03a71214572",
    "matharena/aime_2025_II/problems/14.tex": "3b18835d3533ad5dedfe647d97bc40f92ad93ab28148c37bd8fc787c33d35df6",
    "matharena/aime_2025_II/problems/15.tex": "f0eb22e114cdf88937bb21794102e0e980cbcf54fb332df22c402b06307f26c2",
}

_AMO_FILES = {
    AMO_PROMPTS: "7e0550ac9d5f6d662b5044127d7c20c2b54d39cfbc8759a5baea7b983814f984",
    AMO_GOLD: "b0aeec913c9e37aed929d2799a9a3ab6d8041ce4deba33a587510a88df1effc1",
    AMO_SOLUTIONS: "121b9410ba4252f17ba1dbf501a4e917322ad6533f96bac28943e23c53ad7991",
}
_AMO_COMMON = dict(
    hub_id="meituan-longcat/AMO-Bench",
    # The Hub release (fields question_id, prompt, solution, answer, answer_type) could not be seen
    # from here, so neither its commit nor its file names are known: these files are not Hub files.
    revision=None,
    files=_AMO_FILES,
    license="MIT (AMO-Bench, (c) 2025 Meituan); the prompts mirror is in an Apache-2.0 repository",
    citation="Meituan LongCat Team. AMO-Bench: Large Language Models Still Struggle in High School "
    "Math Competitions. 2025. https://github.com/meituan-longcat/AMO-Bench",
    local_dir="amo-bench",
    mirrors={
        AMO_PROMPTS: "https://raw.githubusercontent.com/ezoicoder/AReaL/"
        "04da7fd9876d526125573e22776dc1c70b831252/evaluation/data/amo_bench/test.jsonl",
        AMO_SOLUTIONS: "https://raw.githubusercontent.com/meituan-longcat/AMO-Bench/"
        "52e1f378e4bcb0c593e860be38f9251b1a192571/model_responses/example.jsonl",
    },
    derived={AMO_GOLD: derive_amo_gold},
    origin={
        AMO_PROMPTS: "byte-identical copy of ezoicoder/AReaL@04da7fd9 evaluation/data/amo_bench/test.jsonl "
        "(all 50 official prompts; its 'answer' field is a placeholder and is not used). Not a Hub file.",
        AMO_GOLD: "derived here: the final answer of each official reference solution "
        "(meituan-longcat/AMO-Bench@52e1f378 model_responses/example.jsonl, scored 100% by the official "
        "grader), so equivalent to, but not byte-identical with, the Hub gold. Rebuilt by derive_amo_gold.",
        AMO_SOLUTIONS: "byte-identical to meituan-longcat/AMO-Bench@52e1f378 model_responses/example.jsonl "
        "(the 50 official reference solutions). Not a Hub file.",
    },
)

DATASETS: dict[str, DatasetSpec] = {
    "aime2025": DatasetSpec(
        name="aime2025",
        # The Hub holds only Parquet conversions (MathArena/aime_2025_I and MathArena/aime_2025_II);
        # the released .tex/.csv files are pinned to a commit of MathArena's git repository instead.
        hub_id=None,
        revision=None,
        files=_AIME_FILES,
        license="MIT (MathArena, (c) 2024 SRI Lab, ETH Zurich); AIME problems (c) MAA",
        citation="Balunovic et al. MathArena: Evaluating LLMs on Uncontaminated Math Competitions. 2025. "
        "https://github.com/eth-sri/matharena",
        local_dir="aime2025",
        mirrors={rel: _MATHARENA_RAW + rel.removeprefix("matharena/") for rel in _AIME_FILES},
        origin={
            rel: "byte-identical to eth-sri/matharena@81f103e3 data/aime/" + rel.removeprefix("matharena/")
            for rel in _AIME_FILES
        },
    ),
    "math500": DatasetSpec(
        name="math500",
        hub_id="HuggingFaceH4/MATH-500",
        revision=None,  # not known here: pass the Hub commit sha to fetch_dataset
        files={"test.jsonl": "35dc41080a3680858b27fa7e0533d2d547825316fc5dafe5d316f4ccc5a06132"},
        license="MIT (MATH, Hendrycks et al.; PRM800K split, (c) 2023 OpenAI)",
        citation="Hendrycks et al. Measuring Mathematical Problem Solving With the MATH Dataset. NeurIPS 2021; "
        "Lightman et al. Let's Verify Step by Step. 2023 (the 500-problem split)",
        local_dir="math500",
        hub_paths={"test.jsonl": "test.jsonl"},
        mirrors={
            "test.jsonl": "https://raw.githubusercontent.com/inclusionAI/AReaL/"
            "f55fe685c661b0117d888fcae47d6f46e9a85087/evaluation/data/math_500/test.jsonl"
        },
        origin={
            "test.jsonl": "byte-identical to OpenAI's prm800k math_splits/test.jsonl (its Git-LFS pointer "
            "carries this sha256) and to inclusionAI/AReaL@f55fe685; the Hub copy is expected to be the "
            "same file, which the checksum verifies on download",
        },
    ),
    "amo-bench": DatasetSpec(name="amo-bench", **_AMO_COMMON),
    "amo-bench-p": DatasetSpec(name="amo-bench-p", subset_of="amo-bench", **_AMO_COMMON),
    "extrem-bench": DatasetSpec(
        name="extrem-bench",
        hub_id="binxingao/extrem-bench",
        revision=None,  # no copy was reachable from here: commit, files and checksums still to pin
        files={},
        license="unknown: not stated in any source available here",
        citation="ExtremBench, https://huggingface.co/datasets/binxingao/extrem-bench",
    ),
}


# --- the rule's job: read artifacts, run this stage per problem, write its artifact
def ingest_shard(
    dataset: str,
    root: Path,
    output: Path,
    *,
    benchmark: str,
    shard: int,
    n_shards: int,
    limit: int | None,
    dag_node: str,
) -> None:
    """One shard of an official dataset as a problem table (checksums verified on read)."""

    records = load_benchmark(dataset, root)
    kept = set(take([r["problem_id"] for r in records], limit))
    records = sorted((r for r in records if r["problem_id"] in kept), key=lambda r: r["problem_id"])
    rows = [
        {
            "benchmark": benchmark,
            "problem_id": r["problem_id"],
            "source_path": r["source_path"],
            "source_sha256": r["source_sha256"],
            "statement": r["statement"],
            "answer": r["answer"],
            "answer_type": r["answer_type"],
            "sense": None,
            "technique": [],
            "difficulty": None,
            "spec_json": None,
            "status": "ingested",
            "reason": f"{dataset} (checksums verified)",
            "best_value": None,
            "witness_json": None,
            "certificate": None,
            "certificate_kind": None,
            "certificate_verifier": None,
            "dag_node": dag_node,
        }
        for r in records
        if shard_of(r["problem_id"], n_shards) == shard
    ]
    inputs = [root / name for name in DATASETS[dataset].files]
    write_artifact(rows, output, "problems", inputs=inputs)
    log.info("ingested %d of %d %s problems into shard %d", len(rows), len(records), dataset, shard)
