"""File primitives every stage shares: one content hash, one atomic writer, one JSON Lines reader."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def open_regular(path: str | os.PathLike, *, follow_symlinks: bool = True) -> int:
    """A read-only descriptor of `path`, which must be a regular file: OSError otherwise, at once.
    O_NONBLOCK makes opening a FIFO return instead of waiting for a writer forever, and the fstat
    refuses FIFOs, devices (/dev/zero never ends) and directories before a byte is read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO, device or socket"
            raise OSError(f"{os.fspath(path)}: {kind}, not a regular file")
        os.set_blocking(fd, True)  # a regular file: ordinary reads from here on
        return fd
    except BaseException:
        os.close(fd)
        raise


def sha256_file(path: str | os.PathLike) -> str:
    with os.fdopen(open_regular(path), "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@contextmanager
def atomic_output(target: str | os.PathLike, *, fsync: bool = False) -> Iterator[Path]:
    """A private temp path beside `target` for the block to write; renamed over `target` when the
    block succeeds, deleted when it fails. Readers (and a run killed mid-write) only ever see a whole
    file under the final name; rename within one directory is atomic on POSIX and NFS, and the
    random O_EXCL temp name is never shared by two writers, also across hosts."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if fsync:
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes_atomic(target: str | os.PathLike, data: bytes, *, fsync: bool = False) -> None:
    with atomic_output(target, fsync=fsync) as tmp:
        tmp.write_bytes(data)


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, Any]]:
    """(line number, value) of every non-blank line; ValueError naming the file and line on a line
    that is not JSON."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg}); one JSON value per line") from None
