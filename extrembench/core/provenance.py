"""The one provenance record: code hashes, git state, software versions, DAG node names.

Snakemake's own metadata keeps no output hash, no git commit and tracks `script:` files by mtime
only (and imported modules not at all), so rules pass `code_hash(...)` of what they run as a
param: a real code edit reruns the stage, a `touch` does not.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import subprocess
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

KEY_PACKAGES = (
    "extrembench",
    "snakemake",
    "pyarrow",
    "pandas",
    "numpy",
    "scipy",
    "sympy",
    "mpmath",
    "math-verify",
    "latex2sympy2_extended",
    "matplotlib",
    "llama-cpp-python",
)


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


def _module_file(name: str, base: Path) -> Path | None:
    """The source file of module `name` (dotted) under `base`, or None when it is not ours."""
    parts = name.split(".")
    for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def _imported_names(path: Path, base: Path) -> set[str]:
    """Dotted names that `path` imports (absolute and relative, at any depth of the file)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    package = ".".join(path.relative_to(base).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(anchor + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            # `from pkg import mod` may name a submodule, not an attribute.
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def import_closure(entries: Iterable[str | Path], base: str | Path = ".", package: str = "extrembench") -> list[Path]:
    """Every file of `package` that the entry files import, directly or through each other, found
    by reading their import statements (never by importing them): what a stage runs, computed
    instead of listed by hand, so a new module can never be left out of a stage's code hash.
    Parent packages' __init__.py files count too (Python runs them on import)."""
    base = Path(base)
    seen: set[Path] = set()
    todo = [base / entry for entry in entries]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imported_names(path, base):
            if name != package and not name.startswith(package + "."):
                continue
            parts = name.split(".")
            for depth in range(1, len(parts) + 1):
                found = _module_file(".".join(parts[:depth]), base)
                if found is not None and found not in seen:
                    todo.append(found)
    return sorted(seen)


def stage_code_hash(entries: Iterable[str | Path], base: str | Path = ".", package: str = "extrembench") -> str:
    """Code hash of a stage: its entry scripts and every package module they import."""
    base = Path(base)
    return code_hash([f.relative_to(base) for f in import_closure(entries, base, package)], base=base)


def _git(*args: str, cwd: str | Path) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def git_state(cwd: str | Path = ".") -> dict[str, Any]:
    """Commit and dirty flag of the checkout (None when not a git checkout)."""
    commit = _git("rev-parse", "HEAD", cwd=cwd)
    status = _git("status", "--porcelain", "--untracked-files=no", cwd=cwd)
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


def file_commit(path: str | Path, cwd: str | Path = ".") -> str | None:
    """Last commit that touched `path`, or None when untracked."""
    return _git("log", "-1", "--format=%H", "--", str(path), cwd=cwd) or None


def file_state(path: str | Path, cwd: str | Path = ".") -> str:
    """Where the content of `path` comes from, as audit prints it: 'git <commit>' when the file is
    as that commit left it, 'uncommitted (edited after git <commit>)' when the working copy differs
    (the last commit did not make this content), 'untracked' otherwise."""
    commit = file_commit(path, cwd)
    if commit is None:
        return "untracked"
    if _git("status", "--porcelain", "--", str(path), cwd=cwd):
        return f"uncommitted (edited after git {commit[:12]})"
    return f"git {commit[:12]}"


def versions() -> dict[str, str]:
    found = {}
    for name in KEY_PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[name] = metadata.version(name)
    return found


def dag_node(rule: str, wildcards: Mapping[str, Any]) -> str:
    inner = ",".join(f"{k}={v}" for k, v in sorted(dict(wildcards).items()))
    return f"{rule}[{inner}]"


def inputs_hash(records: Iterable[Mapping[str, str]]) -> str:
    """Hash over the (path, sha256) of every file read."""
    canon = sorted((r["path"], r["sha256"]) for r in records)
    return hashlib.sha256(json.dumps(canon).encode()).hexdigest()
