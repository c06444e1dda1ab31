"""What a problems folder holds, sorted into problem files and refused entries, before any job.

The folder is not ours: anyone who can add a file to it can add a symlink to a file elsewhere (its
text would land in review.csv, Parquet and logs), a directory named `x.yaml`, a FIFO (reading it
waits for a writer forever) or a link to /dev/zero (never ends). Snakemake itself hashes small
inputs, so such an entry must not even become a job input: only regular files inside the folder,
named as identifiers, are problem files. Every other `*.yaml` entry is refused with a reason and
becomes an `invalid` row naming it; the run goes on.

Only lstat/stat are used here: nothing is opened or read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from extrembench.core.config import NAME_RULE, name_error
from extrembench.core.untrusted_yaml import MAX_FILE_BYTES, shown

SUFFIX = ".yaml"


@dataclass(frozen=True)
class FolderEntries:
    """`files`: id -> path of each problem file; `refused`: id -> (path, reason) of each refused entry."""

    files: dict[str, str] = field(default_factory=dict)
    refused: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return sorted([*self.files, *self.refused])


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def entry_error(path: str | os.PathLike, folder: str | os.PathLike) -> str | None:
    """Why the folder entry `path` is not a problem file, or None when it is one."""
    path = Path(path)
    stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    if name_error(stem) is not None:
        # the file name reaches the job's shell command line (Snakemake's --wait-for-files)
        return f"the file name {shown(stem)} is not an identifier; rename the file ({NAME_RULE})"
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            target = os.path.realpath(path)
            inside = os.path.realpath(folder)
            if os.path.commonpath([target, inside]) != inside:
                return "a symbolic link to a file outside the problems folder; copy the file into the folder instead"
            info = os.stat(path)  # a link within the folder: judged by what it points to
    except OSError as exc:  # a dangling link, a file removed meanwhile, a loop of links
        return f"cannot be read: {exc.strerror or exc}"
    if not stat.S_ISREG(info.st_mode):
        return f"{_kind(info.st_mode)}, not a regular file; a problem file is a plain YAML file"
    if info.st_size > MAX_FILE_BYTES:  # never hashed nor read: a problem file is a few KB
        return f"{info.st_size} bytes, more than the {MAX_FILE_BYTES}-byte limit for one file"
    return None


def problem_folder_entries(folder: str | os.PathLike) -> FolderEntries:
    """Every `*.yaml` entry of `folder` (hidden names excluded, as a shell glob does), sorted into
    problem files and refused entries. A missing folder holds nothing."""
    entries = FolderEntries()
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return entries
    for name in names:
        if name.startswith(".") or not name.endswith(SUFFIX):
            continue
        path = os.path.join(folder, name)
        problem_id = name[: -len(SUFFIX)]
        why = entry_error(path, folder)
        if why is None:
            entries.files[problem_id] = path
        else:
            entries.refused[problem_id] = (path, why)
    return entries
