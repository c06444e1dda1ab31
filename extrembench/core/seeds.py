"""The one name digest seeds are drawn from: sha256 of the names joined by the unit separator
(\\x1f, which no name contains), so a seed depends on the names, never on the process (Python's
hash() does) or on where the names are joined."""

from __future__ import annotations

import hashlib


def name_digest(*names: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(n) for n in names).encode()).digest()
