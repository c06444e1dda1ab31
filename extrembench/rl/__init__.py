"""Proven answers as training data (issue 41): one canonical row per problem and confirmed variant
(rows.py), splits that keep evaluated families out of `train` (splits.py), the export in the
layouts RL trainers read (export.py, formats.py) and the reward function with an adapter per
trainer (reward.py). docs/rl.md describes them."""
