"""The one provenance record: code hashes, git state, software versions, DAG node names.

Snakemake's own metadata keeps no output hash, no git commit and tracks `script:` files by mtime
only (and imported modules not at all), so rules pass `code_hash(...)` of what they run as a
param: a real code edit reruns the stage, a `touch` does not.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

KEY_PACKAGES = ("extrembench", "snakemake", "pyarrow", "pandas", "numpy", "scipy", "sympy",
                "mpmath", "math-verify", "latex2sympy2_extended", "matplotlib", "llama-cpp-python")


def code_hash(paths: Iterable[str | Path], base: str | Path = ".") -> str:
    """sha256 over (path relative to `base`, content) of every file, directories expanded to
    their *.py and *.yaml; relative names keep the hash equal across clones."""
    base = Path(base)
    files: set[Path] = set()
    for entry in (base / p for p in paths):
        if entry.is_dir():
            files.update(f for pattern in ("*.py", "*.yaml") for f in entry.rglob(pattern))
        else:
            files.add(entry)
    digest = hashlib.sha256()
    for path in sorted(files):
        if "__pycache__" in path.parts:
            continue
        digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def git_state(cwd: str | Path = ".") -> dict[str, Any]:
    """Commit and dirty flag of the checkout (None when not a git checkout)."""
    def git(*args: str) -> str | None:
        try:
            return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


def file_commit(path: str | Path, cwd: str | Path = ".") -> str | None:
    """Last commit that touched `path`, or None when untracked."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%H", "--", str(path)], cwd=cwd,
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return out or None


def versions() -> dict[str, str]:
    found = {}
    for name in KEY_PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def dag_node(rule: str, wildcards: Mapping[str, Any]) -> str:
    inner = ",".join(f"{k}={v}" for k, v in sorted(dict(wildcards).items()))
    return f"{rule}[{inner}]"


def inputs_hash(records: Iterable[Mapping[str, str]]) -> str:
    """Hash over the (path, sha256) of every file read."""
    canon = sorted((r["path"], r["sha256"]) for r in records)
    return hashlib.sha256(json.dumps(canon).encode()).hexdigest()
