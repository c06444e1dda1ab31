"""The remaining time of countable work, as progress lines print it."""

from __future__ import annotations


def eta_text(done: int, total: int, elapsed_s: float) -> str:
    """'eta 3m05s' from the mean pace so far; '' before the first item or once all are done."""
    if done <= 0 or done >= total or elapsed_s <= 0:
        return ""
    seconds = round(elapsed_s / done * (total - done))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"eta {hours}h{minutes:02d}m"
    return f"eta {minutes}m{seconds:02d}s" if minutes else f"eta {seconds}s"
