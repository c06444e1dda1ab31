"""Results: the leaderboard and its metrics, the paired comparisons, the figures and the report's front page."""
