"""Report side: metrics, leaderboard, figures, paired statistics, audit."""
