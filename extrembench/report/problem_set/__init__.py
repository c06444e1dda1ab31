"""The problem set's description by computation: sources, difficulty, cheap guesses, the competition table."""
