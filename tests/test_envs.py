"""The conda env files build a working environment from where Snakemake copies them.

Snakemake copies `envs/<name>.yaml` to `<workdir>/.snakemake/conda/<hash>.yaml` and conda runs the
pip section from that folder, so a relative project path must be relative to the copy, not to
`envs/`. Conda channels are not reachable here, so the pip section's project line is installed
into a plain venv, from the copied location, and the package imported from the checkout copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # a pip build per env file

ENV_FILES = sorted((ROOT / "envs").glob("*.yaml"))


def _pip_section(env_file: Path) -> list[str]:
    spec = yaml.safe_load(env_file.read_text())
    sections = [d["pip"] for d in spec["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(sections) == 1, f"{env_file.name}: expected one pip section"
    return sections[0]


@pytest.mark.parametrize("env_file", ENV_FILES, ids=lambda p: p.name)
def test_env_file_installs_the_checkout_from_snakemakes_copy(env_file, tmp_path):
    project_lines = [line for line in _pip_section(env_file) if line.startswith("-e ")]
    assert len(project_lines) == 1, f"{env_file.name}: the pip section must install the project once"
    workdir = tmp_path / "work"
    workdir.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, workdir / name)
    shutil.copytree(ROOT / "extrembench", workdir / "extrembench", ignore=shutil.ignore_patterns("__pycache__"))
    copied = workdir / ".snakemake" / "conda" / "0123abcd.yaml"
    copied.parent.mkdir(parents=True)
    shutil.copy(env_file, copied)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The new venv sees this environment's packages (pip, the pinned dependencies), so only the
    # project line is installed: no download besides the build backend pip may fetch.
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "outer-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    target = project_lines[0].split(maxsplit=1)[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # import what was installed, nothing else
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", target],
        cwd=copied.parent,
        capture_output=True,
        text=True,
        env=env,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    where = subprocess.run(
        [str(python), "-c", "import extrembench; print(extrembench.__file__)"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    assert Path(where).resolve() == (workdir / "extrembench" / "__init__.py").resolve()
