"""The report's captions state the metrics' policies as docs/metrics.md does (issue 37: the
leaderboard caption said ungraded samples leave every denominator while the code and the docs score
them wrong)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
POLICY = "Ungraded samples are scored wrong by default"


def _text(path: Path) -> str:
    return re.sub(r"\s+", " ", path.read_text()).replace("``", "`")


def test_the_docs_state_the_ungraded_policy_the_code_applies():
    from extrembench.core.config import Grading

    assert POLICY in _text(REPO / "docs" / "metrics.md")
    assert Grading().ungraded == "wrong"


@pytest.mark.parametrize("caption", sorted((REPO / "report").glob("*.rst")), ids=lambda p: p.stem)
def test_every_caption_that_speaks_of_ungraded_samples_states_that_policy(caption):
    text = _text(caption)
    if "ngraded" not in text:
        return
    assert POLICY in text, f"{caption.name}: says of ungraded samples something other than '{POLICY}'"
    # leaving the denominators is the opt-in, named as such wherever it is mentioned
    for sentence in re.split(r"(?<=[.;])\s", text):
        if "denominator" in sentence and "ngraded" in sentence:
            assert "exclude" in sentence, f"{caption.name}: {sentence}"
