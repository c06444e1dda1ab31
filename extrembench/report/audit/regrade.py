"""Audit's re-derivation of a grades file: every verdict graded again from the generation text and
the gold, with the grader mode the file records, and compared field by field.

A grades file's sha256 only says it is the file the leaderboard was built from; an edited verdict
followed by a rerun of aggregate has a matching sha256. Grading again is what catches it (the
grader is fast: a whole leaderboard's samples in seconds). Descriptive answers were graded by the
LLM judge: its votes are read back from the response cache under the keys the grade job's calls
were filed under (the file records the judge: llm/judge.py, RecordedJudge) and the majority taken
again, so an edited judge verdict fails too; no endpoint is opened. A vote missing from the cache
leaves that sample ungraded here, which differs from a recorded verdict and is named.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from extrembench.core.artifacts import lineage_inputs, read_artifact, read_metadata
from extrembench.grading import GRADER_NAME, GRADER_VERSION
from extrembench.grading.shard import grade_samples
from extrembench.llm.judge import recorded_judge

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
    not_rederived: int = 0  # judge verdicts not re-derived (no cache given)
    judged: int = 0  # verdicts the judge decided, re-derived from recorded votes
    votes_read: int = 0  # recorded judge votes read back
    problems: list[str] = field(default_factory=list)


def _timed_out(row: dict) -> bool:
    return row["status"] == "ungraded" and row["reason"] == "timeout"


def _judged(row: dict) -> bool:
    return (row["reason"] or "").removeprefix("reasoning-").startswith("judge")


def regrade_file(path: Path, cache_dir: Path | None = None) -> Regraded:
    """Grade every row of grades file `path` again and name each row whose recorded verdict differs.
    With `cache_dir`, judge verdicts are re-derived from the votes recorded there; without it they
    are counted in `not_rederived`."""
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
    reasons = metadata.get("extrembench.model_reasons", "false") == "true"
    recorded = read_artifact(path, "grades").to_pylist()
    graders = sorted({f"{r['grader']} {r['grader_version']}" for r in recorded})
    if graders and graders != [f"{GRADER_NAME} {GRADER_VERSION}"]:
        result.problems.append(
            f"{path}: graded by {', '.join(graders)}, this code grades as {GRADER_NAME} {GRADER_VERSION}: "
            f"its verdicts cannot be re-derived here; rerun its grade job (snakemake --forcerun grade)"
        )
        return result
    lineage = _lineage_samples(path, result)
    if lineage is None:
        return result
    samples, by_id = lineage
    dag_node = recorded[0]["dag_node"] if recorded else ""
    judge_value = metadata.get("extrembench.judge")
    if judge_value is None and any(_judged(r) for r in recorded):
        result.problems.append(
            f"{path}: has judge verdicts but records no judge (written before audit re-derived them), so they "
            f"cannot be re-derived; rerun its grade job (snakemake --forcerun grade)"
        )
        return result
    judge = recorded_judge(judge_value, cache_dir) if cache_dir is not None else None
    # without a judge a descriptive answer comes back ungraded ("no-judge") and is skipped below
    again = grade_samples(
        samples, by_id, dag_node=dag_node, mode=mode, timeout_s=timeout_s, judge=judge, scope=scope, reasons=reasons
    )
    result.votes_read = judge.read if judge is not None else 0
    _compare(result, path, again, recorded, rederive_judged=cache_dir is not None, mode=mode, timeout_s=timeout_s)
    return result


def _lineage_samples(path: Path, result: Regraded) -> tuple[list[dict], dict[str, dict]] | None:
    """(generation rows, problem rows by id) the grades file was graded from; None (named in `result`) if unreadable."""
    inputs = lineage_inputs(path)
    if {"generations", "problems"} - inputs.keys():
        result.problems.append(f"{path}: its lineage names no readable generations and problems file to re-grade from")
        return None
    samples = read_artifact(inputs["generations"], "generations").to_pylist()
    by_id = {p["problem_id"]: p for p in read_artifact(inputs["problems"], "problems").to_pylist()}
    unknown = sorted({s["problem_id"] for s in samples} - by_id.keys())
    if unknown:
        result.problems.append(f"{inputs['generations']}: problems {unknown[:5]} are not in {inputs['problems']}")
        return None
    return samples, by_id


def _compare(
    result: Regraded,
    path: Path,
    again: list[dict],
    recorded: list[dict],
    *,
    rederive_judged: bool,
    mode: str,
    timeout_s: float,
) -> None:
    """Count the re-graded rows into `result` and name each whose recorded verdict differs."""
    ours = {(r["problem_id"], r["trial"]): r for r in again}
    theirs = {(r["problem_id"], r["trial"]): r for r in recorded}
    for key in sorted(ours.keys() ^ theirs.keys()):
        where = "graded but has no generation row" if key in theirs else "has a generation row but no grade row"
        result.problems.append(f"{path}: {key[0]} trial {key[1]} {where}")
    for key in sorted(ours.keys() & theirs.keys()):
        mine, row = ours[key], theirs[key]
        if not rederive_judged and _judged(row) and mine["reason"].removeprefix("reasoning-") == "no-judge":
            result.not_rederived += 1
            continue
        result.checked += 1
        result.judged += _judged(mine)
        differing = [f for f in DERIVED if mine[f] != row[f]]
        if not differing:
            continue
        shown = "; ".join(f"{f} {row[f]!r} (re-derived {mine[f]!r})" for f in differing)
        if _timed_out(mine) and not _timed_out(row):
            shown += f" — inconclusive: re-grading hit the {timeout_s:g}s timeout"
        result.problems.append(f"{path}: {key[0]} trial {key[1]}: verdict does not follow ({mode} mode): {shown}")
