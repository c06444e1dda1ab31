"""Audit's re-derivation of a grades file: every verdict graded again from the generation text and
the gold, with the grader mode the file records, and compared field by field.

A grades file's sha256 only says it is the file the leaderboard was built from; an edited verdict
followed by a rerun of aggregate has a matching sha256. Grading again is what catches it (the
grader is fast: a whole leaderboard's samples in seconds). Descriptive answers are graded by the
LLM judge, which audit does not run: those rows are counted and named as not re-derived, never
passed silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from extrembench.core.artifacts import lineage_inputs, read_artifact, read_metadata
from extrembench.grading import GRADER_NAME, GRADER_VERSION
from extrembench.grading.shard import grade_samples

# Every field a grade row derives from its generation row, its problem row and the grader.
DERIVED = (
    "source_sha256",
    "cache_key",
    "gold",
    "answer_type",
    "sense",
    "extracted",
    "correct",
    "status",
    "reason",
    "correct_math_verify",
    "correct_amo_official",
    "modes_disagree",
    "finish_reason",
    "prompt_tokens",
    "completion_tokens",
    "scope",
    "correct_final",
    "correct_anywhere",
    "reasoning_answer",
)


@dataclass
class Regraded:
    checked: int = 0
    not_rederived: int = 0  # descriptive answers (judge-graded)
    problems: list[str] = field(default_factory=list)


def _timed_out(row: dict) -> bool:
    return row["status"] == "ungraded" and row["reason"] == "timeout"


def regrade_file(path: Path) -> Regraded:
    """Grade every row of grades file `path` again and name each row whose recorded verdict differs."""
    result = Regraded()
    metadata = read_metadata(path)
    mode = metadata.get("extrembench.grading_mode")
    if mode is None:
        result.problems.append(
            f"{path}: records no grading mode (written before audit re-graded verdicts), so its verdicts "
            f"cannot be re-derived; rerun its grade job (snakemake --forcerun grade)"
        )
        return result
    timeout_s = float(metadata.get("extrembench.grading_timeout_s", "5.0"))
    scope = metadata.get("extrembench.grading_scope", "final")
    recorded = read_artifact(path, "grades").to_pylist()
    graders = sorted({f"{r['grader']} {r['grader_version']}" for r in recorded})
    if graders and graders != [f"{GRADER_NAME} {GRADER_VERSION}"]:
        result.problems.append(
            f"{path}: graded by {', '.join(graders)}, this code grades as {GRADER_NAME} {GRADER_VERSION}: "
            f"its verdicts cannot be re-derived here; rerun its grade job (snakemake --forcerun grade)"
        )
        return result
    inputs = lineage_inputs(path)
    if {"generations", "problems"} - inputs.keys():
        result.problems.append(f"{path}: its lineage names no readable generations and problems file to re-grade from")
        return result
    samples = read_artifact(inputs["generations"], "generations").to_pylist()
    by_id = {p["problem_id"]: p for p in read_artifact(inputs["problems"], "problems").to_pylist()}
    unknown = sorted({s["problem_id"] for s in samples} - by_id.keys())
    if unknown:
        result.problems.append(f"{inputs['generations']}: problems {unknown[:5]} are not in {inputs['problems']}")
        return result
    dag_node = recorded[0]["dag_node"] if recorded else ""
    # judge=None: a descriptive answer comes back ungraded ("no-judge") and is skipped below
    again = grade_samples(samples, by_id, dag_node=dag_node, mode=mode, timeout_s=timeout_s, judge=None, scope=scope)
    ours = {(r["problem_id"], r["trial"]): r for r in again}
    theirs = {(r["problem_id"], r["trial"]): r for r in recorded}
    for key in sorted(ours.keys() ^ theirs.keys()):
        where = "graded but has no generation row" if key in theirs else "has a generation row but no grade row"
        result.problems.append(f"{path}: {key[0]} trial {key[1]} {where}")
    for key in sorted(ours.keys() & theirs.keys()):
        mine, row = ours[key], theirs[key]
        if row["answer_type"] == "description" and mine["reason"] == "no-judge":
            result.not_rederived += 1
            continue
        result.checked += 1
        differing = [f for f in DERIVED if mine[f] != row[f]]
        if not differing:
            continue
        shown = "; ".join(f"{f} {row[f]!r} (re-derived {mine[f]!r})" for f in differing)
        if _timed_out(mine) and not _timed_out(row):
            shown += f" — inconclusive: re-grading hit the {timeout_s:g}s timeout"
        result.problems.append(f"{path}: {key[0]} trial {key[1]}: verdict does not follow ({mode} mode): {shown}")
    return result
