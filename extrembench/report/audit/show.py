"""`extrembench show --benchmark B --model M --problem ID [--trial T]`: one sample, readable.

Prints what a run recorded about a sample: the prompt (from its cache entry), the response with
the reasoning and the final content apart, the extracted answer, the gold, the verdict, and for an
extremal benchmark how it missed (miss class and the witness point). `--misses` prints every missed
sample of the model instead; neither lists the model's samples, one line each.

Everything is read from the run's artifacts (results/<benchmark>/generate|grade|misses/<model>/
shard-*.parquet, results/<benchmark>/problems/shard-*.parquet) and the response cache; nothing is
recomputed. Model output is untrusted text: control characters (terminal escape sequences,
carriage returns, bidirectional overrides) are printed as visible escapes, and each field is cut
to --max-chars (head and tail kept) unless --full is given.
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from extrembench.core.config import name_error
from extrembench.core.errors import InputError
from extrembench.llm.cache import GenerationCache
from extrembench.report.audit.folders import add_folder_arguments, run_folders

DEFAULT_MAX_CHARS = 2000

# C0 and C1 controls but newline and tab, DEL, and the Unicode bidirectional controls (which
# reorder what a terminal shows: "Trojan Source"), plus line/paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]")


def safe_text(text: Any, max_chars: int | None = DEFAULT_MAX_CHARS) -> str:
    """`text` fit for a terminal: every control character shown as an escape (ESC as \\x1b), cut to
    `max_chars` characters of the original (the head and the tail, where the answer usually is)."""
    if _missing(text):
        return "(none)"
    text = str(text)
    if max_chars is None or len(text) <= max_chars:
        return _escape(text)
    head = max_chars // 2
    omitted = len(text) - max_chars
    return (
        _escape(text[:head])
        + f"\n[... {omitted:,} characters left out; --full shows all ...]\n"
        + _escape(text[len(text) - (max_chars - head) :])
    )


def _escape(text: str) -> str:
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _shards(results: Path, benchmark: str, stage: str, model: str | None = None) -> list[Path]:
    folder = results / benchmark / stage
    if model is not None:
        folder = folder / model
    return sorted(folder.glob("shard-*.parquet"), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))


def _rows(paths: list[Path], columns: list[str] | None = None) -> list[dict]:
    rows: list[dict] = []
    for path in paths:
        names = pq.read_schema(path).names
        wanted = None if columns is None else [c for c in columns if c in names]
        rows.extend(pq.read_table(path, columns=wanted).to_pylist())
    return rows


@functools.lru_cache(maxsize=64)
def _generations_by_key(folder: str) -> dict[str, dict]:
    paths = sorted(Path(folder).glob("shard-*.parquet"))
    columns = ["cache_key", "content", "reasoning_content", "finish_reason", "error"]
    return {row["cache_key"]: row for row in _rows(paths, columns)}


def response_tail(text: Any, chars: int = 80) -> str:
    """The last `chars` characters of a response, safe for a terminal, on one line."""
    if _missing(text) or not str(text).strip():
        return "(empty)"
    flat = " ".join(str(text).split())
    cut = flat[-chars:]
    return ("…" if len(flat) > chars else "") + safe_text(cut, None)


def answer_or_tail(row: dict, results: Path) -> str:
    """How `extrembench audit` names a missed sample's answer: the extracted answer, or, when none
    was extracted, the tail of the response it came from (looked up by cache key in the
    generation shards of the same benchmark and model)."""
    extracted = row.get("extracted")
    if not _missing(extracted):
        return f"answer {safe_text(extracted, 200)!r}"
    folder = results / str(row["benchmark"]) / "generate" / str(row["model"])
    generation = _generations_by_key(str(folder)).get(row.get("cache_key"))
    if generation is None:
        return "no answer; response not found in the generation shards"
    text = generation["content"]
    if _missing(text) or not str(text).strip():
        text = generation["reasoning_content"]
        where = "reasoning ends"
    else:
        where = "response ends"
    return f"no answer; {where} {response_tail(text)!r} (finish {safe_text(generation['finish_reason'], 64)})"


def _what_is_there(results: Path, benchmark: str) -> str:
    if not results.is_dir():
        return f"{results} does not exist; pass --results, or the --configfile of the run"
    models = sorted(p.name for p in (results / benchmark / "generate").glob("*"))
    if models:
        return f"models with generations there: {', '.join(models)}"
    benchmarks = sorted(p.parent.name for p in results.glob("*/generate"))
    return f"benchmarks with generations under {results}: {', '.join(benchmarks) or '(none)'}"


class Samples:
    """One (benchmark, model)'s samples joined from its generate, grade and misses shards."""

    def __init__(self, results: Path, benchmark: str, model: str) -> None:
        for what, name in (("--benchmark", benchmark), ("--model", model)):
            why = name_error(name)
            if why:
                raise InputError(f"{what}: {why}")
        self.results, self.benchmark, self.model = results, benchmark, model
        generate = _shards(results, benchmark, "generate", model)
        if not generate:
            raise InputError(
                f"{results / benchmark / 'generate' / model}: no generation shards for benchmark "
                f"{benchmark!r}, model {model!r}; {_what_is_there(results, benchmark)}"
            )
        key = lambda r: (r["problem_id"], int(r["trial"]))  # noqa: E731
        self.generations = {key(r): r for r in _rows(generate)}
        self.grades = {key(r): r for r in _rows(_shards(results, benchmark, "grade", model))}
        self.misses = {key(r): r for r in _rows(_shards(results, benchmark, "misses", model))}
        self.problems = {
            r["problem_id"]: r
            for r in _rows(_shards(results, benchmark, "problems"), ["problem_id", "statement", "answer", "status"])
        }

    def samples(self) -> list[tuple[str, int]]:
        return sorted(self.generations)

    def missed(self) -> list[tuple[str, int]]:
        """Samples graded other than correct (failed requests included), in id order."""
        out = []
        for k in self.samples():
            miss, grade = self.misses.get(k), self.grades.get(k)
            if miss is not None:
                if miss["miss_class"] != "correct":
                    out.append(k)
            elif grade is None or grade["status"] != "correct":
                out.append(k)
        return out


def _verdict(grade: dict | None) -> str:
    if grade is None:
        return "(not graded: no grade row)"
    reason = f" ({grade['reason']})" if not _missing(grade.get("reason")) else ""
    return f"{grade['status']}{reason}"


def render_sample(samples: Samples, key: tuple[str, int], cache: GenerationCache, max_chars: int | None) -> str:
    problem_id, trial = key
    gen = samples.generations[key]
    grade = samples.grades.get(key)
    miss = samples.misses.get(key)
    problem = samples.problems.get(problem_id, {})

    def text(value: Any) -> str:
        return safe_text(value, max_chars)

    entry, why = cache.load(gen["cache_key"]) if gen.get("cache_key") else (None, "no cache key")
    if entry is not None:
        prompt = "\n".join(
            f"[{m.get('role', '?')}] {text(m.get('content'))}" for m in entry["request"].get("messages", [])
        )
    else:
        prompt = f"(not in the cache at {cache.root}: {why or 'missing'}); the problem's statement:\n" + text(
            problem.get("statement")
        )
    lines = [
        f"=== {samples.benchmark} / {samples.model} / {safe_text(problem_id, 200)} / trial {trial} ===",
        f"finish: {safe_text(gen['finish_reason'], 64)}, tokens: prompt {gen['prompt_tokens']}, completion "
        f"{gen['completion_tokens']}" + (f", error: {text(gen['error'])}" if not _missing(gen.get("error")) else ""),
        "--- prompt",
        prompt,
        "--- reasoning",
        text(gen.get("reasoning_content")),
        "--- response (final content)",
        text(gen.get("content")),
        "---",
        f"extracted: {safe_text(grade['extracted'], 500) if grade else '(no grade row)'}",
        f"gold:      {safe_text(grade['gold'] if grade else problem.get('answer'), 500)}",
        f"verdict:   {_verdict(grade)}",
    ]
    if grade is not None and not _missing(grade.get("reasoning_answer")):
        lines.append(f"boxed in the reasoning: {safe_text(grade['reasoning_answer'], 500)}")
    if miss is not None:
        kind = "/".join(str(miss[f]) for f in ("miss_class", "kind", "proof") if not _missing(miss.get(f)))
        lines.append(f"miss class: {kind}")
        for label, field in (
            ("claim", "claim_value"),
            ("witness", "witness_json"),
            ("opposite extremum", "opposite_extremum"),
            ("why", "reason"),
        ):
            if not _missing(miss.get(field)):
                lines.append(f"{label}: {safe_text(miss[field], 1000)}")
    elif samples.misses or _shards(samples.results, samples.benchmark, "misses", samples.model):
        lines.append("miss class: (no misses row for this sample)")
    return "\n".join(lines)


def render_index(samples: Samples, keys: list[tuple[str, int]]) -> str:
    lines = []
    for key in keys:
        grade, miss = samples.grades.get(key), samples.misses.get(key)
        status = grade["status"] if grade else "ungraded"
        what = f" {miss['miss_class']}" if miss is not None and miss["miss_class"] != status else ""
        answer = answer_or_tail({**samples.generations[key], **(grade or {})}, samples.results) if grade else ""
        lines.append(f"{safe_text(key[0], 200)} trial {key[1]}: {status}{what}  {answer}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--model", required=True, help="the registry name (as in results/<benchmark>/generate/)")
    parser.add_argument("--problem", help="problem id; without it (and without --misses) the samples are listed")
    parser.add_argument("--trial", type=int, help="one trial of --problem (default: every trial)")
    parser.add_argument("--misses", action="store_true", help="every sample the model did not get right")
    parser.add_argument(
        "--max-chars",
        type=int,
        default=DEFAULT_MAX_CHARS,
        help=f"cut each text field to this many characters, head and tail [{DEFAULT_MAX_CHARS}]",
    )
    parser.add_argument("--full", action="store_true", help="print every field whole")
    add_folder_arguments(parser)


def run(args: argparse.Namespace) -> int:
    results, cache_dir = run_folders(args)
    if args.max_chars < 1:
        raise InputError(f"--max-chars: {args.max_chars} must be at least 1 (or use --full)")
    max_chars = None if args.full else args.max_chars
    samples = Samples(results, args.benchmark, args.model)
    cache = GenerationCache(cache_dir)
    if args.problem is not None:
        keys = [k for k in samples.samples() if k[0] == args.problem and (args.trial is None or k[1] == args.trial)]
        if not keys:
            ids = sorted({k[0] for k in samples.samples()})
            shown = ", ".join(ids[:20]) + (f", ... ({len(ids)} in all)" if len(ids) > 20 else "")
            trial = f" trial {args.trial}" if args.trial is not None else ""
            raise InputError(
                f"--problem {safe_text(args.problem, 200)}{trial}: no such sample of {args.benchmark}/{args.model}; "
                f"problems: {shown}"
            )
    elif args.trial is not None:
        raise InputError("--trial: give --problem too")
    elif args.misses:
        keys = samples.missed()
        if not keys:
            print(f"{args.benchmark}/{args.model}: no missed sample of {len(samples.samples())}")
            return 0
    else:
        print(render_index(samples, samples.samples()))
        print(f"\n{len(samples.samples())} samples; one in full: extrembench show ... --problem ID [--trial T]")
        return 0
    out = "\n\n".join(render_sample(samples, key, cache, max_chars) for key in keys)
    sys.stdout.write(out + "\n")
    return 0
