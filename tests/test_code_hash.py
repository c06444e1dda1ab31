"""Each stage's code hash covers every module its script imports, computed from import statements."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from extrembench.core.provenance import import_closure, stage_code_hash

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p.relative_to(ROOT) for p in (ROOT / "scripts").glob("*.py"))


def _loaded_by_imports(script: Path) -> set[str]:
    """extrembench modules (with a source file: namespace packages have none) Python actually loads
    when it runs the script's import statements."""
    tree = ast.parse((ROOT / script).read_text())
    imports = "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)))
    probe = (
        imports
        + "\nimport json, sys\nprint(json.dumps(sorted(m for m, mod in sys.modules.items() if m.split('.')[0] == 'extrembench' and getattr(mod, '__file__', None))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# a subprocess per script, ~1-2 s each (idle 2 cores): the fast tier checks one, the full suite all
FAST_SCRIPT = Path("scripts/translate.py")


@pytest.mark.parametrize(
    "script", [pytest.param(s, marks=[] if s == FAST_SCRIPT else [pytest.mark.slow]) for s in SCRIPTS], ids=str
)
def test_closure_covers_every_module_the_script_loads(script):
    closure = {_module_name(p) for p in import_closure([script], base=ROOT) if p.parts[-2:] != script.parts}
    missing = _loaded_by_imports(script) - closure
    assert missing == set(), f"{script}: its code hash misses {sorted(missing)}"


def test_closure_follows_relative_and_from_imports(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import leaf\n")
    (pkg / "sub" / "leaf.py").write_text("def f():\n    from ..deep import g\n")
    (pkg / "deep.py").write_text("import json\n")
    (pkg / "unused.py").write_text("")
    (tmp_path / "entry.py").write_text("from pkg.sub import leaf\n")
    names = {str(p.relative_to(tmp_path)) for p in import_closure(["entry.py"], base=tmp_path, package="pkg")}
    assert names == {"entry.py", "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/leaf.py", "pkg/deep.py"}


def test_stage_hash_changes_with_an_imported_module_only(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "used.py").write_text("X = 1\n")
    (pkg / "other.py").write_text("Y = 1\n")
    (tmp_path / "entry.py").write_text("from pkg import used\n")
    before = stage_code_hash(["entry.py"], base=tmp_path, package="pkg")
    (pkg / "other.py").write_text("Y = 2\n")
    assert stage_code_hash(["entry.py"], base=tmp_path, package="pkg") == before
    (pkg / "used.py").write_text("X = 2\n")
    assert stage_code_hash(["entry.py"], base=tmp_path, package="pkg") != before
