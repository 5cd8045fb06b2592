"""A distribution installed from its wheel with only what it depends on, in a fresh venv:
what a team that installs only the pieces it needs gets. Used by the ``test_*_alone``
tests, which then run the distribution's whole test folder there."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import venv

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(
    args: list[str], env_overrides: dict[str, str] | None = None, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV"))}
    env.update(env_overrides or {})
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=900, **kwargs)  # type: ignore[call-overload]


def build_wheels(out: pathlib.Path, packages: list[str]) -> pathlib.Path:
    """Wheels of ``packages/<name>`` for each name, into ``out``."""
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(out)]
        + [str(ROOT / "packages" / name) for name in packages]
    )
    assert built.returncode == 0, built.stderr
    return out


def fresh_venv(where: pathlib.Path, requirements: list[str]) -> str:
    """A new venv without system site-packages, with ``requirements`` installed; returns
    its python. Skips the test when the package index cannot be reached."""
    venv.create(where, with_pip=True, system_site_packages=False)
    python = str(where / ("Scripts" if os.name == "nt" else "bin") / "python")
    install(python, requirements)
    return python


def install(python: str, requirements: list[str], *options: str) -> None:
    installed = run([python, "-m", "pip", "install", "-q", *options, *requirements])
    if installed.returncode != 0 and (
        "Could not find a version" in installed.stderr or "connection" in installed.stderr.lower()
    ):
        pytest.skip(f"the package index is not reachable: {installed.stderr[-500:]}")
    assert installed.returncode == 0, installed.stderr


def run_test_folder(python: str, folder: str) -> str:
    """Runs ``tests/<folder>`` with that python; returns pytest's output."""
    tests = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/{folder}"], cwd=ROOT)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout
    return tests.stdout
