"""The report's first screen is valid reStructuredText with or without leaderboard rows: docutils
renders it without a warning (an empty run once left the table's option lines as stray text)."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from docutils.core import publish_parts

from extrembench.report.results.front_page import front_page

ROW = {
    "benchmark": "extrem",
    "model": "m",
    "accuracy_mean": 0.5,
    "accuracy_std": 0.0,
    "ci_low": 0.25,
    "ci_high": 0.75,
    "n_problems": 4,
    "n_trials": 2,
}


@pytest.mark.parametrize("rows", [[], [ROW]], ids=["empty", "one-row"])
def test_the_front_page_renders_without_a_docutils_warning(rows):
    board = pd.DataFrame(rows, columns=list(ROW))
    warnings = io.StringIO()
    html = publish_parts(front_page(board), writer_name="html", settings_overrides={"warning_stream": warnings})[
        "html_body"
    ]
    assert warnings.getvalue() == ""
    assert ("<table" in html) == bool(rows)
    assert ":header-rows:" not in html
