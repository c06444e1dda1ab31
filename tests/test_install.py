"""envs/install.sh, README's installer: llama-cpp-python built for AVX2 from a pip cache of its own,
whatever the user's pip cache holds, and one pin for it everywhere."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from extrembench.llm.llamacpp import BUILD_MARKER, avx512_instruction_count

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "envs" / "install.sh"


def _llama_pin_of_install_script() -> str:
    [pin] = re.findall(r"^\s*llama='([^']+)'", INSTALL.read_text(), re.M)
    return pin


def test_the_installer_pins_the_llama_cpp_version_of_the_cpu_extra_and_the_conda_env():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["cpu"]
    conda = yaml.safe_load((ROOT / "envs" / "llamacpp.yaml").read_text())["dependencies"]
    [pip_section] = [d["pip"] for d in conda if isinstance(d, dict)]
    pin = _llama_pin_of_install_script()
    assert pin in extra
    assert pin in pip_section


def readme_commands() -> list[str]:
    """The lines of README's first fenced code block, read as .ci/run reads them."""
    lines = (ROOT / "README.md").read_text().splitlines()
    fences = [i for i, line in enumerate(lines) if line.startswith("```")]
    return lines[fences[0] + 1 : fences[1]]


def test_readme_opens_with_its_name_then_the_two_commands():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0] == "# extrembench"
    first_fence = next(i for i, line in enumerate(lines) if line.startswith("```"))
    assert first_fence < 12, "README's code block must be on its first screen, after the name and purpose"
    assert len(readme_commands()) == 2


def test_ci_runs_line_2_of_the_readme_block():
    script = (ROOT / ".ci" / "run").read_text()
    command = next(line for line in script.splitlines() if line.startswith("TEST_COMMAND="))
    result = subprocess.run(
        ["bash", "-c", f'{command}; printf %s "$TEST_COMMAND"'], cwd=ROOT, capture_output=True, text=True
    )
    assert result.stdout == readme_commands()[1]


def test_readme_commands_install_through_the_installer():
    first, second = readme_commands()
    for line in (first, second):
        assert "sh envs/install.sh cpu" in line, line


def test_the_installer_refuses_a_missing_venv_naming_it(tmp_path):
    result = subprocess.run(
        ["sh", str(INSTALL), "cpu"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "EXTREMBENCH_VENV": str(tmp_path / "nope")},
    )
    assert result.returncode == 1
    assert f"no venv at {tmp_path / 'nope'}" in result.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) reads the built library")
def test_install_takes_llama_cpp_from_its_own_cache_never_the_users(tmp_path):
    """The user's pip cache (PIP_CACHE_DIR) is never consulted for llama-cpp-python: the venv gets a
    copy with no AVX-512 code and the marker, even when the venv already held another copy.

    EXTREMBENCH_POISONED_PIP_CACHE may name a pip cache holding a natively built wheel of the pinned
    version (how the bug was reproduced); by default an empty cache stands in for it. The new venv
    sees this environment's packages, so only llama-cpp-python and the project are installed; the
    wheel comes from the installer's own cache (filled by README's command, which ran before this)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    users_cache = Path(os.environ.get("EXTREMBENCH_POISONED_PIP_CACHE", tmp_path / "users-pip-cache"))
    env = {**os.environ, "EXTREMBENCH_VENV": str(venv), "PIP_CACHE_DIR": str(users_cache)}
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        ["sh", str(INSTALL), "cpu"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=1800
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "building llama-cpp-python" in result.stdout
    where = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.util; print(importlib.util.find_spec('llama_cpp').origin)",
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    library = Path(where).parent / "lib" / "libggml-cpu.so"
    assert Path(where).is_relative_to(venv), f"llama_cpp imported from {where}, not the new venv"
    assert avx512_instruction_count(library) == 0
    assert (venv / BUILD_MARKER).read_text().startswith(_llama_pin_of_install_script())
    # A second run keeps the marked copy: no rebuild, no reinstall.
    again = subprocess.run(["sh", str(INSTALL), "cpu"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "building llama-cpp-python" not in again.stdout
