"""Helpers of the packaging tests: build our distributions, fetch third-party wheels once,
and make venvs that install only from a local folder, as from an organisation's own index."""

from __future__ import annotations

import email.parser
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LICENSE = ROOT / "LICENSE"

# Folder under packages/ -> the distribution's file-name prefix (its normalised name).
DISTRIBUTIONS = {
    "chainer": "chainer",
    "core": "chainer_core",
    "links": "chainer_links",
    "datasets": "chainer_datasets",
    "training": "chainer_training",
    "distributed": "chainer_distributed",
    "onnx-export": "chainer_onnx",
    "cpu-kernels": "chainer_cpu_kernels",
    "cudnn": "chainer_cudnn",
}
# What the meta-distribution `chainer` installs without extras.
USUAL_SET = ("core", "links", "datasets", "training")


def run(*args: object, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"command failed: {' '.join(map(str, args))}\n{result.stdout}\n{result.stderr}")
    return result


def offline_env() -> dict[str, str]:
    """The environment for `pip install --no-index`: no pip configuration file and no PIP_*
    variable, so that the local folder is the only place pip looks (a machine's configured
    find-links would otherwise join it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def download(folder: Path, *requirements: str) -> None:
    """Binary wheels of third-party requirements (and their dependencies) into `folder`."""
    try:
        run(sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", folder, *requirements)
    except AssertionError as exc:
        pytest.fail(f"could not download {', '.join(requirements)} from the package index: {exc}")


# PEP 517's build_sdist through the distribution's own backend (what `python -m build --sdist
# --no-isolation` does, without needing the `build` package in the test environment).
_BUILD_SDIST = """
import importlib, sys, tomllib
backend = tomllib.load(open("pyproject.toml", "rb"))["build-system"]["build-backend"]
print(importlib.import_module(backend).build_sdist(sys.argv[1]))
"""


def build(folder: Path, *packages: str, sdist: bool = False) -> None:
    """Wheels of packages/<name> into `folder`, with the build backends of the running
    environment; with `sdist`, the source distribution too, and the wheel built from it
    (so that a file missing from the sdist breaks the wheel)."""
    for name in packages:
        source = ROOT / "packages" / name
        if sdist:
            built = run(sys.executable, "-c", _BUILD_SDIST, folder, cwd=source).stdout.split()[-1]
            source = folder / built
        run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", folder, source)


def wheel_of(folder: Path, name: str) -> Path:
    return next(folder.glob(f"{DISTRIBUTIONS[name]}-*.whl"))


def sdist_of(folder: Path, name: str) -> Path:
    return next(folder.glob(f"{DISTRIBUTIONS[name]}-*.tar.gz"))


def wheel_metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        path = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(archive.read(path).decode())


def requirements(metadata: Message) -> list[tuple[str, str | None]]:
    """(requirement without markers or versions, extra or None) for each Requires-Dist line;
    names normalised, extras of the required distribution kept: ``("chainer-core[cuda12]", "cuda12")``."""
    found = []
    for line in metadata.get_all("Requires-Dist") or []:
        requirement, _, marker = line.partition(";")
        match = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(\[[^\]]*\])?", requirement)
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        name = match.group(1).lower().replace("_", "-") + (match.group(2) or "")
        found.append((name, extra.group(1) if extra else None))
    return found


def sdist_member(sdist: Path, relative: str) -> bytes | None:
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        try:
            member = archive.extractfile(f"{top}/{relative}")
        except KeyError:
            return None
        return member.read() if member is not None else None


def venv(path: Path, folder: Path, *requirements: object) -> Path:
    """A fresh venv at `path` with `requirements` installed from `folder` alone."""
    run(sys.executable, "-m", "venv", path)
    python = path / "bin" / "python"
    if requirements:
        pip_install(python, folder, *requirements)
    return python


def pip_install(python: Path, folder: Path, *args: object) -> subprocess.CompletedProcess:
    return run(python, "-m", "pip", "install", "-q", "--no-index", "--find-links", folder, *args, env=offline_env())


def installed(python: Path) -> dict[str, str]:
    """Distribution name (normalised) -> version, as `pip list` reports them."""
    listed = run(python, "-m", "pip", "list", "--format=freeze", env=offline_env()).stdout
    pairs = (line.split("==") for line in listed.splitlines() if "==" in line)
    return {name.lower().replace("_", "-"): version for name, version in pairs}


def toy_distribution(tmp_path: Path, name: str, version: str, files: dict[str, str], requires: list[str]) -> Path:
    """The source of a small hatchling distribution shipping `files` (path under src/ -> text)."""
    src = tmp_path / f"{name}-{version}"
    for relative, text in files.items():
        (src / "src" / relative).parent.mkdir(parents=True, exist_ok=True)
        (src / "src" / relative).write_text(text)
    packages = sorted({"src/" + relative.split("/")[0] for relative in files})
    (src / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "{name}"
            version = "{version}"
            dependencies = {requires!r}

            [tool.hatch.build.targets.wheel]
            packages = {packages!r}
            """
        )
    )
    return src
