"""Shard-level runners of the build and evaluation stages: read artifacts, call the stage's
library, write artifacts. The Snakemake scripts are one call into here.

A problem file that cannot be read or converted never stops a shard: it becomes a row with the
file, field and reason, and validate marks it `invalid`, so the run goes on and ends with a
summary naming it.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from extrembench.artifacts import read_artifact, sha256_file, write_artifact
from extrembench.config import Config, Validation, config_hash

log = logging.getLogger(__name__)


def _not_one_problems_fault() -> tuple[type[BaseException], ...]:
    """Failures that stop a stage job: the endpoint, the server, the disk, the memory. Anything
    else raised while handling one problem is that problem's fault and becomes its error row."""
    from extrembench.generation.client import EndpointError
    from extrembench.generation.server import ServerError
    from extrembench.llm_calls import LLMCallError

    return (LLMCallError, EndpointError, ServerError, OSError, MemoryError)


def _problem_failure(exc: Exception, stage: str) -> tuple[str, str]:
    """(field, reason) of a per-problem failure: ProblemError says both; anything else is named
    by its type under the stage (its traceback goes to the job's log)."""
    from extrembench.problem import ProblemError

    if isinstance(exc, ProblemError):
        return exc.field, exc.reason
    log.error("%s: unexpected failure on one problem (recorded as its error)", stage, exc_info=exc)
    return f"({stage})", f"{type(exc).__name__}: {exc}"[:500]


def _file_sha256(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:  # an unreadable file: the loader names the problem below
        return None


def _read_problem_yaml(path: Path) -> Any:
    """The raw data of one problem file through the untrusted-YAML loader (ProblemError on failure)."""
    from extrembench.problem import ProblemError
    from extrembench.untrusted_yaml import UntrustedYAMLError, load_untrusted_yaml

    try:
        return load_untrusted_yaml(path)
    except UntrustedYAMLError as exc:
        raise ProblemError(str(path), exc.field, exc.reason) from None


def translate_shard(problem_files: Sequence[str], output: Path, *, benchmark: str, dag_node: str,
                    caller=None) -> None:
    """Curated translation where the file has one; the original where it is already English;
    otherwise the configured LLM (`caller`), every call recorded in the cache."""
    from extrembench.problem import check_source
    from extrembench.translate import translate_fields

    infrastructure = _not_one_problems_fault()
    rows = []
    for path in sorted(map(Path, problem_files)):
        row = {"benchmark": benchmark, "problem_id": path.stem, "source_path": str(path),
               "source_sha256": _file_sha256(path), "language": None, "source_text": None, "error": None,
               "dag_node": dag_node, "translation": None, "translated_by": "none", "translation_error": None,
               "translation_raw": None, "translation_call_key": None}
        try:
            source = check_source(_read_problem_yaml(path), path=path)
            row.update(language=source.get("language"), source_text=source.get("text"))
            row.update(translate_fields(source, caller))
        except infrastructure:
            raise
        except Exception as exc:  # this problem's fault: recorded, the shard goes on
            field, reason = _problem_failure(exc, "translate")
            row["error"] = f"{field}: {reason}"
            log.warning("translate: %s: %s", path, row["error"])
        rows.append(row)
    write_artifact(rows, output, "translations", inputs=[*problem_files])
    log.info("translated %d problems: %s", len(rows), dict(Counter(r["translated_by"] for r in rows)))


def convert_shard(problem_files: Sequence[str], translations: Path, output: Path, *, benchmark: str,
                  dag_node: str, caller=None, max_attempts: int = 3) -> None:
    """Curated fields or the structured source inequality (deterministic); a source-only file
    (no `objective`) goes to the configured LLM, whose spec is checked like any problem file."""
    from extrembench.convert import convert_problem
    from extrembench.llm_convert import conversion_columns, convert_with_llm
    from extrembench.problem import ProblemError, check_source, file_id_error, load_problem

    english = {r["problem_id"]: r["translation"] for r in read_artifact(translations, "translations").to_pylist()}
    infrastructure = _not_one_problems_fault()
    rows = []
    for path in sorted(map(Path, problem_files)):
        row = {"benchmark": benchmark, "problem_id": path.stem, "source_path": str(path),
               "source_sha256": _file_sha256(path), "sense": None, "variables_json": None,
               "constraints_json": None, "objective": None, "answer": None, "statement": None,
               "technique": [], "difficulty": None, "converted_by": None, "error": None,
               "error_field": None, "llm_attempts": None, "llm_raw_outputs_json": None,
               "llm_call_keys": [], "dag_node": dag_node}
        try:
            data = _read_problem_yaml(path)
            if isinstance(data, dict) and "objective" not in data and "source" in data:
                # source-only: the statement is converted by the LLM, the spec checked by validate
                check_source(data, path=path)
                mismatch = file_id_error(data["id"], path) if "id" in data else None
                if mismatch:
                    raise ProblemError(str(path), "id", mismatch)
                if caller is None:
                    raise ProblemError(str(path), "objective",
                                       "no curated extremal fields and no convert.model configured; add sense/"
                                       "variables/objective/answer (or source.inequality) or set convert.model")
                if not english.get(path.stem):
                    raise ProblemError(str(path), "source.translation",
                                       "no English text to convert (see the translate stage's translation_error)")
                row.update(conversion_columns(convert_with_llm(path.stem, english[path.stem], caller,
                                                               max_attempts=max_attempts)))
            else:
                problem = load_problem(path)  # schema, id = file name, every expression parsed
                spec, origin = convert_problem(problem)
                row.update(sense=spec.sense, variables_json=json.dumps(spec.variables),
                           constraints_json=json.dumps(list(spec.constraints)), objective=spec.objective,
                           answer=spec.answer, statement=spec.statement, technique=list(problem.technique),
                           difficulty=problem.difficulty, converted_by=origin)
        except infrastructure:
            raise
        except Exception as exc:  # this problem's fault: recorded, validate marks it invalid
            field, reason = _problem_failure(exc, "convert")
            row.update(error=reason, error_field=field)
            log.warning("convert: %s: %s: %s", path, field, reason)
        rows.append(row)
    write_artifact(rows, output, "conversions", inputs=[*problem_files, translations])


def formalize_shard(statements: Path, output: Path, *, benchmark: str, shard: int, n_shards: int,
                    limit: int | None, dag_node: str, caller=None, max_attempts: int = 3) -> None:
    """Extremal problems given as statement + answer (ExtremBench's release format) → specs: the
    rule-based formalizer first, the configured LLM (`caller`) when the rules cannot read one."""
    from extrembench.llm_convert import conversion_columns, formalize_with_fallback
    from extrembench.shards import shard_of

    digest = sha256_file(statements)
    records = []
    with open(statements, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    record = json.loads(line)
                    records.append((number, str(record["id"]), record["statement"], record["answer"]))
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ValueError(f"{statements}:{number}: need a JSON object with id, statement, answer ({exc})") from exc
    records.sort(key=lambda r: r[1])
    if limit:
        records = records[:limit]
    rows = []
    for number, problem_id, statement, answer in records:
        if shard_of(problem_id, n_shards) != shard:
            continue
        outcome = formalize_with_fallback(problem_id, statement, answer, caller, max_attempts=max_attempts)
        row = {"benchmark": benchmark, "problem_id": problem_id, "source_path": f"{statements}#line={number}",
               "source_sha256": digest, "technique": [], "difficulty": None, "dag_node": dag_node,
               **conversion_columns(outcome)}
        if outcome.spec is not None and row["statement"] is None:
            row["statement"] = statement
        if outcome.spec is None:
            row["error_field"] = "statement"
        rows.append(row)
    write_artifact(rows, output, "conversions", inputs=[statements])
    log.info("formalized %d problems: %d by rules, %d failed", len(rows),
             sum(r["converted_by"] == "rules" for r in rows), sum(r["error"] is not None for r in rows))


def review_table(problem_tables: Sequence[str], output: Path) -> None:
    """Every built problem the validator did not confirm, with why: what a curator reviews."""
    import pandas as pd

    columns = ["benchmark", "problem_id", "status", "reason", "source_path", "best_value", "witness_json"]
    frames = [read_artifact(p, "problems").to_pandas()[columns] for p in problem_tables]
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    flagged = table[table["status"] != "confirmed"].sort_values(["benchmark", "problem_id"], kind="stable")
    write_csv(flagged, output)
    log.info("review: %d of %d problems not confirmed", len(flagged), len(table))


def _gold_text(answer: str | None, status: str) -> str | None:
    """Gold for the grader: LaTeX for a problem the validator parsed; as written otherwise (an
    invalid problem is never asked, and its answer may not parse)."""
    from extrembench.convert import answer_latex
    from extrembench.expr import ExpressionError

    if answer is None or status == "invalid":
        return answer
    try:
        return answer_latex(answer)
    except ExpressionError:
        return answer


def _validate_one(conv: dict, *, effort, seed: int) -> tuple:
    """(status, reason, best value, witness, answerless spec, certificate) of one conversion row; fills in
    conv["statement"] when the spec came without one."""
    from extrembench.validate import check_problem

    if conv["error"] is not None:
        return "invalid", f"{conv['source_path']}: {conv['error_field']}: {conv['error']}", None, None, None, None
    # The machine-checkable spec, without the answer (what the reference solver is given).
    spec = {"id": conv["problem_id"], "sense": conv["sense"], "variables": json.loads(conv["variables_json"]),
            "constraints": json.loads(conv["constraints_json"]), "objective": conv["objective"]}
    if conv["converted_by"] in ("curated", "inequality"):
        target = conv["source_path"]  # the problem file itself, checked as `extrembench check` does
    else:
        # No problem file holds this spec (an LLM or the formalizer wrote it): check it like
        # one, including its statement against the spec when there is a statement.
        from extrembench.problem import problem_from_dict

        claimed = {**spec, "answer": conv["answer"]}
        if conv["statement"]:
            claimed["statement"] = conv["statement"]
        target = problem_from_dict(claimed, path=conv["source_path"])
    result = check_problem(target, seed=seed, effort=effort)
    if conv["statement"] is None and not isinstance(target, str):
        from extrembench.convert import render_statement

        conv["statement"] = render_statement(target)
    return result.status, result.reason, result.best_value, result.witness, spec, result.certificate


def validate_shard(problem_files: Sequence[str], conversions: Path, output: Path, *, benchmark: str,
                   dag_node: str, settings: Validation) -> None:
    """settings: the config's `validation` block (seed, starts, iterations, time_cap_s)."""
    from extrembench.certificates import VERIFIER_VERSION, certificate_json
    from extrembench.validate import Effort

    seed = settings.seed
    effort = Effort.from_settings(settings)
    infrastructure = _not_one_problems_fault()
    rows = []
    for conv in read_artifact(conversions, "conversions").to_pylist():
        spec, certificate = None, None
        try:
            status, reason, best, witness, spec, certificate = _validate_one(conv, effort=effort, seed=seed)
            gold = _gold_text(conv["answer"], status)
        except infrastructure:
            raise
        except Exception as exc:  # this problem's fault: invalid, with file, field and reason
            field, why = _problem_failure(exc, "validate")
            status, reason, best, witness, gold = "invalid", f"{conv['source_path']}: {field}: {why}", None, None, conv["answer"]
            certificate = None
        log.info("%s: %s %s", conv["problem_id"], status, "" if status == "confirmed" else reason)
        rows.append({
            "benchmark": benchmark, "problem_id": conv["problem_id"], "source_path": conv["source_path"],
            "source_sha256": conv["source_sha256"], "statement": conv["statement"], "answer": gold,
            "answer_type": "number", "sense": conv["sense"], "technique": conv["technique"],
            "difficulty": conv["difficulty"], "spec_json": json.dumps(spec, sort_keys=True) if spec else None,
            "status": status, "reason": reason, "best_value": best,
            "witness_json": json.dumps(witness, sort_keys=True) if witness is not None else None,
            "certificate": certificate_json(certificate),
            "certificate_kind": certificate["kind"] if certificate else None,
            "certificate_verifier": VERIFIER_VERSION if certificate else None,
            "dag_node": dag_node,
        })
    write_artifact(rows, output, "problems", inputs=[*problem_files, conversions])


def grade_shard(generations: Path, problems: Path, output: Path, *, dag_node: str, mode: str,
                timeout_s: float, judge=None) -> None:  # judge: extrembench.judge_backend.LLMJudge
    """Grade the final content (never the reasoning) in every mode; the row's verdict is `mode`'s,
    and the other modes' verdicts are kept so disagreements are counted, not hidden."""
    from extrembench.grading import GRADER_NAME, GRADER_VERSION, GradeResult
    from extrembench.grading.grade import grade_all_modes, modes_disagree

    by_id = {p["problem_id"]: p for p in read_artifact(problems, "problems").to_pylist()}
    samples = read_artifact(generations, "generations").to_pylist()
    # A sample without final content (cut off inside its reasoning, an engine error, an abstaining
    # solver) is no answer: nothing to extract, and never sent to the judge.
    answered = [i for i, sample in enumerate(samples) if sample["content"] is not None]
    cases = [{"id": f"{samples[i]['problem_id']}#{samples[i]['trial']}",
              "gold": by_id[samples[i]["problem_id"]]["answer"], "response": samples[i]["content"],
              "answer_type": by_id[samples[i]["problem_id"]]["answer_type"],
              "question": by_id[samples[i]["problem_id"]]["statement"]} for i in answered]
    verdicts = dict(zip(answered, grade_all_modes(cases, timeout=timeout_s, judge=judge)))
    rows = []
    for index, sample in enumerate(samples):
        problem = by_id[sample["problem_id"]]
        if index in verdicts:
            by_mode = verdicts[index]
            result, disagree = by_mode[mode], modes_disagree(by_mode)
            math_verify, amo_official = by_mode["math-verify"].correct, by_mode["amo-official"].correct
        elif sample["finish_reason"] == "failed":
            # The request failed (endpoint error), the model never answered: left out of accuracy.
            result = GradeResult(correct=None, extracted=None, status="failed", reason=sample["error"])
            disagree, math_verify, amo_official = False, None, None
        else:
            result = GradeResult(correct=False, extracted=None, status="no_answer",
                                 reason=f"no content (finish_reason={sample['finish_reason']})")
            disagree, math_verify, amo_official = False, False, False
        rows.append({
            "benchmark": sample["benchmark"], "model": sample["model"], "problem_id": sample["problem_id"],
            "trial": sample["trial"], "source_sha256": sample["source_sha256"], "cache_key": sample["cache_key"],
            "gold": problem["answer"], "answer_type": problem["answer_type"], "sense": problem["sense"],
            "technique": problem["technique"], "difficulty": problem["difficulty"],
            "certificate_kind": problem["certificate_kind"], "extracted": result.extracted, "correct": result.correct, "status": result.status,
            "reason": result.reason, "correct_math_verify": math_verify,
            "correct_amo_official": amo_official, "modes_disagree": disagree,
            "finish_reason": sample["finish_reason"], "prompt_tokens": sample["prompt_tokens"],
            "completion_tokens": sample["completion_tokens"], "grader": GRADER_NAME,
            "grader_version": GRADER_VERSION, "dag_node": dag_node,
        })
    write_artifact(rows, output, "grades", inputs=[generations, problems])
    log.info("graded %d samples: %d correct", len(rows), sum(bool(r["correct"]) for r in rows))


def aggregate(grade_files: Sequence[str], *, outputs: dict[str, Path], config: Config,
              published_dir: str | None, seed: int = 0, generation_files: Sequence[str] = ()) -> None:
    """Leaderboard per (benchmark, model), each row stamped with the lineage of its number, plus
    the difficulty, technique, correlation and published-vs-reproduced tables."""
    import pandas as pd
    import pyarrow as pa

    from extrembench import provenance
    from extrembench.artifacts import file_record
    from extrembench.grading.guarded import GuardedEquivalence
    from extrembench.leaderboard import (
        apply_ungraded_policy,
        build_correlations,
        build_difficulty,
        build_leaderboard,
        build_technique_table,
        restrict_to_certified,
        write_markdown,
    )
    from extrembench.published import compare_published, published_for_run

    grades = pd.concat([read_artifact(p, "grades").to_pandas() for p in grade_files], ignore_index=True)
    ungraded = config.grading.ungraded
    require = config.aggregate.require_certificate
    grades = restrict_to_certified(grades, require)
    if require != "none":
        log.info("aggregate.require_certificate=%s: %d samples of certified problems kept", require, len(grades))
    # maj@k groups extracted answers (untrusted model output) by equivalence: under a hard timeout
    with GuardedEquivalence(timeout=config.grading.timeout_s, mode=config.grading.mode) as equivalent:
        board = build_leaderboard(grades, equivalent=equivalent, seed=seed, ungraded=ungraded)
    if generation_files:  # the cost ledger columns (extrembench/cost.py)
        from extrembench.cost import cost_table, read_generations, with_cost_columns

        board = with_cost_columns(board, cost_table(read_generations(generation_files), config.models, config.cluster))
    grades = apply_ungraded_policy(grades, ungraded)  # the per-problem tables score them the same way
    if equivalent.timeouts:
        log.warning("maj@k: %d answer comparisons timed out and were counted as different answers",
                    equivalent.timeouts)
    records = [file_record(p) for p in grade_files]
    git = provenance.git_state()
    board["inputs_sha256"] = provenance.inputs_hash(records)
    board["config_sha256"] = config_hash(config)
    board["git_commit"] = git["git_commit"]
    board["git_dirty"] = git["git_dirty"]
    board["versions_json"] = json.dumps(provenance.versions(), sort_keys=True)
    table = pa.Table.from_pandas(board, preserve_index=False)
    # audit recomputes accuracy and interval from the grade rows: it needs the seed and the policy
    write_artifact(table, outputs["parquet"], "leaderboard", schema=table.schema, inputs=grade_files,
                   extra_metadata={"bootstrap_seed": str(seed), "ungraded": ungraded})
    write_csv(board, outputs["csv"])
    write_markdown(board, outputs["md"])
    if "checksums" in outputs:
        write_checksums([outputs["parquet"], outputs["csv"], outputs["md"]], outputs["checksums"])
    write_csv(build_difficulty(grades), outputs["difficulty"])
    write_csv(build_technique_table(grades), outputs["techniques"])
    write_csv(build_correlations(board, seed=seed), outputs["correlations"])
    published = published_for_run(published_dir, config)
    write_csv(compare_published(board, published), outputs["published"])
    log.info("leaderboard: %d rows from %d grade files", len(board), len(grade_files))


def write_checksums(paths: Sequence[str | Path], output: Path) -> None:
    """`sha256sum -c`-style lines for the leaderboard files; `extrembench audit` rechecks them."""
    lines = [f"{sha256_file(p)}  {p}\n" for p in paths]
    Path(output).write_text("".join(lines), encoding="utf-8")


def write_csv(frame, path: Path) -> None:
    """Tables for people: fixed float format and line ends, so equal content gives equal bytes."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, float_format="%.6g", lineterminator="\n")


def ingest_shard(dataset: str, root: Path, output: Path, *, benchmark: str, shard: int, n_shards: int,
                 limit: int | None, dag_node: str) -> None:
    """One shard of an official dataset as a problem table (checksums verified on read)."""
    from extrembench.ingest import DATASETS, load_benchmark
    from extrembench.shards import shard_of

    records = sorted(load_benchmark(dataset, root), key=lambda r: r["problem_id"])
    if limit:
        records = records[:limit]
    rows = [{
        "benchmark": benchmark, "problem_id": r["problem_id"], "source_path": r["source_path"],
        "source_sha256": r["source_sha256"], "statement": r["statement"], "answer": r["answer"],
        "answer_type": r["answer_type"], "sense": None, "technique": [], "difficulty": None,
        "spec_json": None, "status": "ingested", "reason": f"{dataset} (checksums verified)",
        "best_value": None, "witness_json": None, "certificate": None, "certificate_kind": None,
        "certificate_verifier": None, "dag_node": dag_node,
    } for r in records if shard_of(r["problem_id"], n_shards) == shard]
    inputs = [root / name for name in DATASETS[dataset].files]
    write_artifact(rows, output, "problems", inputs=inputs)
    log.info("ingested %d of %d %s problems into shard %d", len(rows), len(records), dataset, shard)


def vary_shard(parent_problems: Path, problem_files: Sequence[str], outputs: dict[str, Path], *, benchmark: str,
               variant_benchmark: str, per_problem: int, seed: int, kinds: Sequence[str], dag_node: str,
               check, search, share: float = 1.0) -> None:
    """Variants of every confirmed problem of one shard (extrembench.variants): every candidate to
    outputs['variants'] (confirmed and dropped, with why), the confirmed ones as the problem table
    of `variant_benchmark` (outputs['problems']), which generate and grade read like any other.
    `check(problem)` / `search(problem)`: the validator and its numeric search, with the run's
    validation settings. `share` < 1 varies only the problems whose id hashes below it (a stable
    choice: editing one problem never changes which others are varied)."""
    from extrembench.certificates import VERIFIER_VERSION, certificate_json
    from extrembench.problem import load_problem
    from extrembench.variants import Settings, content_hash, in_share, variants_of

    settings = Settings(per_problem=per_problem, seed=seed, kinds=tuple(kinds))
    known = {str(Path(p)) for p in problem_files}
    rows, asked = [], []
    parents = [r for r in read_artifact(parent_problems, "problems").to_pylist()
               if r["status"] == "confirmed" and in_share(r["problem_id"], share, seed)]
    for number, parent_row in enumerate(sorted(parents, key=lambda r: r["problem_id"]), start=1):
        if str(Path(parent_row["source_path"])) not in known:
            continue  # no problem file to vary (a formalized spec): nothing to re-derive from
        parent = load_problem(parent_row["source_path"])
        witness = json.loads(parent_row["witness_json"]) if parent_row["witness_json"] else None
        candidates = variants_of(parent, settings, check=check, search=search, parent_witness=witness)
        for c in candidates:
            problem = c.problem
            spec = None if problem is None else {
                "id": c.variant_id, "sense": problem.sense, "variables": problem.variables,
                "constraints": list(problem.constraints), "objective": problem.objective}
            row = {
                "benchmark": benchmark, "variant_benchmark": variant_benchmark, "problem_id": c.variant_id,
                "parent_id": parent.id, "parent_source_path": parent_row["source_path"],
                "parent_sha256": parent_row["source_sha256"], "kind": c.kind, "technique": c.technique,
                "transformation": c.transformation_text(),
                "transformation_json": json.dumps(c.transformation, sort_keys=True, ensure_ascii=False),
                "content_sha256": content_hash(problem) if problem is not None else None,
                "statement": problem.statement if problem is not None else None,
                "answer": problem.answer if problem is not None else None, "sense": parent.sense,
                "spec_json": json.dumps(spec, sort_keys=True) if spec else None, "status": c.status,
                "drop_reason": c.drop_reason, "validation_status": c.validation_status,
                "validation_reason": c.validation_reason, "best_value": c.best_value,
                "witness_json": json.dumps(c.witness, sort_keys=True) if c.witness is not None else None,
                "seed": seed, "dag_node": dag_node,
            }
            rows.append(row)
            if c.status == "confirmed":
                asked.append({
                    "benchmark": variant_benchmark, "problem_id": c.variant_id,
                    "source_path": parent_row["source_path"], "source_sha256": row["content_sha256"],
                    "statement": problem.statement, "answer": _gold_text(problem.answer, "confirmed"),
                    "answer_type": "number", "sense": parent.sense, "technique": list(parent.technique),
                    "difficulty": parent.difficulty, "spec_json": row["spec_json"], "status": "confirmed",
                    "reason": f"{c.kind} variant of {parent.id} ({c.technique}): {c.transformation_text()}",
                    "best_value": c.best_value, "witness_json": row["witness_json"],
                    "certificate": certificate_json(c.certificate),
                    "certificate_kind": c.certificate["kind"] if c.certificate else None,
                    "certificate_verifier": VERIFIER_VERSION if c.certificate else None, "dag_node": dag_node,
                })
        counts = Counter((c.kind, c.status) for c in candidates)
        log.info("[%d/%d] %s: %s", number, len(parents), parent.id,
                 ", ".join(f"{k} {s} {n}" for (k, s), n in sorted(counts.items())))
    write_artifact(rows, outputs["variants"], "variants", inputs=[parent_problems, *problem_files])
    write_artifact(asked, outputs["problems"], "problems", inputs=[outputs["variants"]])
    log.info("vary: %d candidates, %d confirmed variants", len(rows), len(asked))
