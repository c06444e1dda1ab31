"""The classes of a miss (docs/metrics.md, "How models miss"): names only, so the table, the figure
and audit read them without loading the engine's computations."""

MISSES_VERSION = "1"
CLASSES = (
    "correct",
    "no_answer",
    "answer_in_reasoning_only",
    "unparsable",
    "non_real",
    "beyond_extremum",
    "suboptimal_attained",
    "wrong_sense_value",
    "suboptimal_unexplained",
    "undecided",
)
MISSED = CLASSES[1:]  # every class but correct
KINDS = ("all_equal", "boundary", "other_feasible")
