"""Translate a source problem into English with an LLM, keeping its notation.

The model is told to translate the words and copy every formula unchanged, and its reply is held
to that: each formula of the source (`$...$`, `\\(...\\)`, `\\[...\\]`, and, in CJK text, each run of
formula characters between the words) must appear in the translation, no source-script text may
remain, and a reply cut off at max_tokens is not a translation. A reply that fails raises
TranslationError carrying the raw output, so the caller can record it.

Per problem, `translate_fields` applies the precedence curated > original (already English) >
LLM, and says which produced the text.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from extrembench.core.artifacts import write_artifact
from extrembench.llm.calls import LLMCaller
from extrembench.problems.failures import file_sha256_or_none, problem_failure, read_problem_yaml, stage_stopping_errors
from extrembench.problems.latex import MATH_SEGMENT
from extrembench.problems.problem import check_source

log = logging.getLogger(__name__)

TRANSLATE_SEED = 0
LANGUAGE_NAMES = {
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "ru": "Russian",
    "vi": "Vietnamese",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "ro": "Romanian",
    "pl": "Polish",
    "tr": "Turkish",
    "fa": "Persian",
    "uk": "Ukrainian",
}

_SYSTEM = (
    "You translate olympiad mathematics problems into English. Copy every formula, symbol, "
    "variable name and LaTeX command exactly as written (math such as $a+b+c=3$ stays unchanged); "
    "translate only the words. Do not solve, explain or add anything. Reply with the English "
    "translation only."
)
_FORMULA_CHARS = re.compile(r"[=<>+\-*/^≤≥√]")
_LABEL = re.compile(r"^\s*(english\s+)?translation\s*:\s*", re.I)
_FENCE = re.compile(r"^\s*```[a-z]*\n(.*?)\n```\s*$", re.S)


class TranslationError(ValueError):
    """The model's reply is not a usable translation; `raw` keeps what it said."""

    def __init__(self, reason: str, *, raw: str | None, key: str | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw
        self.key = key


def translation_messages(text: str, source_language: str) -> list[dict[str, str]]:
    language = LANGUAGE_NAMES.get(source_language, f"the language with code {source_language!r}")
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": f"Translate this {language} problem into English:\n\n{text}"},
    ]


def _is_foreign_script(char: str) -> bool:
    """CJK ideographs, kana, hangul, Cyrillic: letters an English translation must not contain."""
    if not char.isalpha():
        return False
    name = unicodedata.name(char, "")
    return name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "CYRILLIC"))


def _squash(text: str) -> str:
    # Full-width forms (＋, （, ＝) and spacing differ between a source and a faithful copy.
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def source_formulas(text: str) -> list[str]:
    """The formulas a translation must keep: delimited math, and in text written in a foreign
    script the runs between its words that contain an operator (e.g. 'a+b+c=3')."""
    formulas = [next(g for g in m.groups() if g is not None) for m in MATH_SEGMENT.finditer(text)]
    prose = MATH_SEGMENT.sub(" ", text)
    if any(_is_foreign_script(c) for c in prose):
        runs = re.split(r"[^\x21-\x7e\s≤≥√·×]+", unicodedata.normalize("NFKC", prose))
        formulas += [run.strip(" ,.;:") for run in runs if _FORMULA_CHARS.search(run)]
    return [f for f in formulas if _squash(f)]


def clean_reply(content: str) -> str:
    """Strip what models wrap around an answer: a code fence, a 'Translation:' label."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    return _LABEL.sub("", text, count=1).strip()


def check_translation(source: str, translation: str) -> str | None:
    """Why `translation` does not render `source` with its notation kept, or None."""
    if not translation:
        return "empty reply"
    leftover = sorted({c for c in translation if _is_foreign_script(c)})
    if leftover:
        return f"the reply still contains untranslated text ({''.join(leftover[:10])})"
    kept = _squash(translation)
    missing = [f for f in source_formulas(source) if _squash(f) not in kept]
    if missing:
        return f"formula(s) not kept verbatim: {', '.join(repr(f) for f in missing[:5])}"
    return None


def translate_recorded(text: str, source_language: str, caller: LLMCaller) -> tuple[str, str]:
    """(English translation, cache key of the call); raises TranslationError (raw output kept) when
    the reply is unusable, LLMCallError when the endpoint cannot be reached."""
    result = caller.call(translation_messages(text, source_language), seed=TRANSLATE_SEED)
    problem = result.unusable_reason()
    translation = clean_reply(result.content) if problem is None else None
    if problem is None:
        problem = check_translation(text, translation)
    if problem is not None:
        raise TranslationError(problem, raw=result.content, key=result.key)
    return translation, result.key


def translate_fields(source: Mapping[str, Any] | None, caller: LLMCaller | None) -> dict[str, Any]:
    """The translation columns of one problem: curated translation > original text when already
    English > LLM (when a caller is given) > none. `translated_by` is 'curated' | 'original' |
    'llm:<model>' | 'none'; a failed LLM translation keeps its reason and raw output."""
    source = source or {}
    fields = {
        "translation": None,
        "translated_by": "none",
        "translation_error": None,
        "translation_raw": None,
        "translation_call_key": None,
    }
    language, text = source.get("language"), source.get("text")
    if source.get("translation"):
        fields.update(translation=source["translation"], translated_by="curated")
    elif language in (None, "en"):
        fields.update(translation=text, translated_by="original")
    elif not text:
        fields["translation_error"] = "source.text: empty; nothing to translate"
    elif caller is None:
        fields["translation_error"] = (
            "no curated source.translation and no translate.model configured; "
            "add a translation to the problem file or set translate.model"
        )
    else:
        try:
            translation, key = translate_recorded(text, language, caller)
            fields.update(translation=translation, translated_by=caller.label, translation_call_key=key)
        except TranslationError as exc:
            fields.update(
                translation_error=f"{caller.label}: {exc.reason}", translation_raw=exc.raw, translation_call_key=exc.key
            )
            log.warning("translation failed: %s", fields["translation_error"])
    return fields


# --- the rule's job: read artifacts, run this stage per problem, write its artifact
def translate_shard(problem_files: Sequence[str], output: Path, *, benchmark: str, dag_node: str, caller=None) -> None:
    """Curated translation where the file has one; the original where it is already English;
    otherwise the configured LLM (`caller`), every call recorded in the cache."""

    infrastructure = stage_stopping_errors()
    rows = []
    for path in sorted(map(Path, problem_files)):
        row = {
            "benchmark": benchmark,
            "problem_id": path.stem,
            "source_path": str(path),
            "source_sha256": file_sha256_or_none(path),
            "language": None,
            "source_text": None,
            "error": None,
            "dag_node": dag_node,
            "translation": None,
            "translated_by": "none",
            "translation_error": None,
            "translation_raw": None,
            "translation_call_key": None,
        }
        try:
            source = check_source(read_problem_yaml(path), path=path)
            row.update(language=source.get("language"), source_text=source.get("text"))
            row.update(translate_fields(source, caller))
        except infrastructure:
            raise
        except Exception as exc:  # this problem's fault: recorded, the shard goes on
            field, reason = problem_failure(exc, "translate")
            row["error"] = f"{field}: {reason}"
            log.warning("translate: %s: %s", path, row["error"])
        rows.append(row)
    write_artifact(rows, output, "translations", inputs=[*problem_files])
    log.info("translated %d problems: %s", len(rows), dict(Counter(r["translated_by"] for r in rows)))
