"""The package's layers point one way: every import (module level and inside functions) goes to
the same layer or a lower one, and no group of modules imports itself in a circle.

The order is written once here and in docs/architecture.md (a test below checks they agree):
the small core at the bottom, then cluster accounting, the LLM client layer, the problem model,
verification, problem-set construction, generation, grading, reports, and the console script.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "extrembench"

# Lowest first. A module's layer is its subpackage; `extrembench/__init__.py` is core; `cli.py` is top.
LAYERS = ("core", "cluster", "llm", "problems", "verify", "sources", "generation", "grading", "report", "rl", "cli")


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "core"  # extrembench/__init__.py: the version
    if parts[1] == "cli":
        return "cli"
    return parts[1]


def imports_of(path: Path, known: set[str]) -> list[tuple[str, int]]:
    """(imported module of the package, line) for every import statement, at any depth."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from a.b import c` imports a.b, and a.b.c when c is a module
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name in known:
                found.append((name, node.lineno))
    return found


def import_graph(package: Path = PACKAGE) -> dict[str, dict[str, int]]:
    files = {module_name(p, package): p for p in package.rglob("*.py")}
    known = set(files)
    return {module: {target: line for target, line in imports_of(path, known)} for module, path in files.items()}


def upward_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        for target, line in sorted(targets.items()):
            low, high = layer_of(module), layer_of(target)
            assert low in LAYERS and high in LAYERS, f"{module} or {target}: a layer not in LAYERS"
            if LAYERS.index(high) > LAYERS.index(low):
                problems.append(f"{module}:{line} imports {target} ({low} -> {high}, a higher layer)")
    return problems


def import_circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, circles, counter = {}, {}, set(), [], [], [0]

    def visit(start: str) -> None:
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c != node), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_no_module_imports_a_higher_layer():
    assert upward_imports(import_graph()) == []


def test_no_import_circle():
    # A package's __init__ importing its own submodules is not a circle of layers; the edges from
    # submodules back to their package's __init__ are (a submodule importing a name its package
    # re-exports from a sibling): both are counted, so keep __init__ files free of re-exports.
    assert import_circles(import_graph()) == []


def _package_copy(tmp_path: Path, edits: dict[str, str]) -> Path:
    """A copy of the package's source with some files appended to."""
    copy = tmp_path / "extrembench"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text() + edits.get(str(path.relative_to(PACKAGE)), ""))
    return copy


def test_an_added_upward_import_inside_a_function_is_caught(tmp_path):
    copy = _package_copy(
        tmp_path, {"llm/client.py": "\n\ndef _sneaky():\n    from extrembench.generation import run\n"}
    )
    problems = upward_imports(import_graph(copy))
    assert any(
        p.startswith("extrembench.llm.client:") and "extrembench.generation.run (llm -> generation" in p
        for p in problems
    ), problems


def test_an_added_circle_is_caught(tmp_path):
    copy = _package_copy(
        tmp_path, {"core/files.py": "\n\ndef _sneaky():\n    from extrembench.core import artifacts\n"}
    )
    assert ["extrembench.core.artifacts", "extrembench.core.files"] in import_circles(import_graph(copy))


def test_the_layer_order_is_the_one_docs_architecture_states():
    text = (ROOT / "docs" / "architecture.md").read_text()
    match = re.search(r"^Layers, lowest first: (.+)$", text, re.M)
    assert match, "docs/architecture.md: no line 'Layers, lowest first: ...'"
    stated = tuple(re.findall(r"`([a-z]+)`", match.group(1)))
    assert stated == LAYERS


@pytest.mark.parametrize("name", ["build"])
def test_no_folder_of_the_package_has_a_build_tool_name(name):
    assert not [p for p in PACKAGE.rglob(name) if p.is_dir()]


def test_function_local_imports_say_why():
    """An import inside a function hides a dependency from the reader: allowed where a comment on
    its line or the line above says why (start-up cost, optional dependency, ...)."""
    silent = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                here, above = lines[node.lineno - 1], lines[node.lineno - 2] if node.lineno > 1 else ""
                if "#" not in here and not above.strip().startswith("#"):
                    silent.append(f"{path.relative_to(ROOT)}:{node.lineno}: {here.strip()}")
    assert silent == []


def private_imports(package: Path = PACKAGE) -> list[str]:
    """'file:line: module._name' for every import of a private name from another module of the package
    (dunder names such as __version__ are public)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("extrembench")):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno}: {node.module}.{alias.name}")
    return found


def test_no_module_borrows_another_modules_private_name():
    """Issue 38: 37 private names crossed modules (23 of them from the bound checker into its
    prover). A name another module needs is that module's public interface: named so."""
    assert private_imports() == []


def test_the_private_import_check_sees_a_borrowed_name(tmp_path):
    package = tmp_path / "extrembench"
    package.mkdir()
    (package / "a.py").write_text("def _helper():\n    return 1\n")
    (package / "b.py").write_text("from extrembench.a import _helper\nfrom extrembench import __version__\n")
    assert private_imports(package) == ["extrembench/b.py:1: extrembench.a._helper"]


# Inside verify/ (issue 38): the trust boundary is a folder. The checker is what a reader audits to
# trust a certificate, so it reads nothing but the problem model and the core; provers and the
# numeric search may read the checker (a prover writes the format its checker reads), never the
# other way round.
VERIFY_ROOMS = {
    "extrembench.verify.checker": ("extrembench.core", "extrembench.problems", "extrembench.verify.checker"),
    "extrembench.verify.provers": (
        "extrembench.core",
        "extrembench.problems",
        "extrembench.verify.checker",
        "extrembench.verify.provers",
        "extrembench.verify.blas",
    ),
}


def room_violations(graph: dict[str, dict[str, int]]) -> list[str]:
    found = []
    for module, targets in sorted(graph.items()):
        for room, allowed in VERIFY_ROOMS.items():
            if module == room or module.startswith(room + "."):
                found += [
                    f"{module}:{line} imports {target}"
                    for target, line in sorted(targets.items())
                    if target != "extrembench" and not any(target == a or target.startswith(a + ".") for a in allowed)
                ]
    return found


def test_the_checker_reads_only_core_problems_and_itself_and_provers_never_the_search():
    assert room_violations(import_graph()) == []


def test_the_room_check_sees_a_checker_importing_a_prover(tmp_path):
    package = tmp_path / "extrembench"
    for room in ("verify/checker", "verify/provers"):
        (package / room).mkdir(parents=True)
    (package / "verify/provers/sos.py").write_text("X = 1\n")
    (package / "verify/checker/sos.py").write_text("from extrembench.verify.provers.sos import X\n")
    assert room_violations(import_graph(package)) == [
        "extrembench.verify.checker.sos:1 imports extrembench.verify.provers.sos"
    ]
