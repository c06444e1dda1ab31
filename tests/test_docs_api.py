"""docs/problem-format.md's "Python API" block names importable things: each of its `from M import
a, b` lines is resolved with importlib (the block is read as text, never executed), so a module
split or a rename that leaves the docs behind fails here."""

import importlib
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "problem-format.md"


def api_imports() -> list[tuple[str, list[str]]]:
    section = DOC.read_text().split("## Python API", 1)[1]
    block = section.split("```python", 1)[1].split("```", 1)[0]
    found = re.findall(r"^from ([\w.]+) import (.+)$", block, flags=re.M)
    return [(module, [name.strip() for name in names.split(",")]) for module, names in found]


def test_every_name_in_the_python_api_block_imports():
    imports = api_imports()
    assert len(imports) >= 5
    missing = [
        f"{module}.{name}"
        for module, names in imports
        for name in names
        if not hasattr(importlib.import_module(module), name)
    ]
    assert not missing, f"docs/problem-format.md names what does not exist: {missing}"
