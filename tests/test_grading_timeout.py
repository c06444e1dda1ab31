"""The hard per-sample timeout holds in worker processes on adversarial input (pool.py)."""

from __future__ import annotations

import threading
import time

import pytest

from extrembench.grading import grade_many, grade_response

TIMEOUT = 2.0
# 400 nested parentheses: Math-Verify's LaTeX parser takes far longer than TIMEOUT on this.
STUCK_RESPONSE = "\\boxed{" + "(" * 400 + "1" + ")" * 400 + "}"
# Killing a worker and reading its replacement's reply take a moment beyond the timeout itself.
SLACK = 3.0

ADVERSARIAL = [
    pytest.param("10^{10^{10}}", "\\boxed{10^{10^{10}}+1}", id="power-tower"),
    pytest.param("3", STUCK_RESPONSE, id="deep-nesting"),
    pytest.param("3", "\\boxed{" + "\\frac{1}{" * 300 + "2" + "}" * 300 + "}", id="deep-fractions"),
    pytest.param("3", "Let us think. " * 7_000 + "\\boxed{3}", id="100k-characters"),
    pytest.param("3", "\\boxed{" * 50_000, id="100k-unterminated-boxes"),
]


@pytest.mark.parametrize(("gold", "response"), ADVERSARIAL)
def test_adversarial_input_finishes_within_timeout(gold, response):
    started = time.monotonic()
    result = grade_response(gold, response, timeout=TIMEOUT)
    assert time.monotonic() - started < TIMEOUT + SLACK
    assert result.status in {"correct", "wrong", "no_answer", "ungraded"}
    if result.status == "ungraded":
        assert result.reason == "timeout" and result.correct is None


def test_stuck_sample_is_ungraded_and_the_pool_recovers():
    cases = [
        {"gold": "3", "response": STUCK_RESPONSE, "id": "stuck"},
        {"gold": "2", "response": "\\boxed{2}", "id": "fine"},
    ]
    results = grade_many(cases, workers=1, timeout=TIMEOUT)
    assert (results[0].status, results[0].reason) == ("ungraded", "timeout")
    assert results[1].correct is True


def test_timeout_works_from_a_non_main_thread():
    # Math-Verify's SIGALRM timeout cannot run here; the process-level one must.
    box = {}
    thread = threading.Thread(target=lambda: box.update(result=grade_response("3", STUCK_RESPONSE, timeout=TIMEOUT)))
    started = time.monotonic()
    thread.start()
    thread.join(TIMEOUT + SLACK + 5)
    assert box["result"].reason == "timeout"
    assert time.monotonic() - started < TIMEOUT + SLACK


def test_concurrent_callers_in_threads_get_their_own_results():
    results = {}

    def grade(value):
        results[value] = grade_response(str(value), f"\\boxed{{{value}}}")

    threads = [threading.Thread(target=grade, args=(value,)) for value in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert {value: r.correct for value, r in results.items()} == {value: True for value in range(6)}
