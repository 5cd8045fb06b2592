"""chainer-datasets installs and works with chainer-core alone, from wheels, in a fresh venv."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import venv
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUBSET = [
    "tests/datasets_tests/dataset_tests/tabular_tests/test_from_data.py",
    "tests/datasets_tests/iterators_tests/test_serial_iterator.py",
    "tests/datasets_tests/datasets_tests/test_sub_dataset.py",
]


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV"))}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=600, **kwargs)  # type: ignore[call-overload]


@pytest.mark.slow
def test_datasets_with_core_only(tmp_path):
    wheels = tmp_path / "wheels"
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
        + [str(ROOT / "packages" / "core"), str(ROOT / "packages" / "datasets")]
    )
    assert built.returncode == 0, built.stderr
    (datasets_wheel,) = wheels.glob("chainer_datasets-*.whl")
    with zipfile.ZipFile(datasets_wheel) as wheel:
        packages = {name.split("/")[1] for name in wheel.namelist() if name.startswith("chainer/")}
        assert packages == {"dataset", "datasets", "iterators"}
        assert "chainer/__init__.py" not in wheel.namelist()
        for sub in ("dataset", "datasets", "iterators"):
            assert f"chainer/{sub}/py.typed" in wheel.namelist()

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    python = str(env_dir / ("Scripts" if os.name == "nt" else "bin") / "python")
    installed = run(
        [python, "-m", "pip", "install", "-q", "numpy", "pluggy", "pillow", "pytest"]
        + [str(w) for w in wheels.glob("*.whl")]
    )
    if installed.returncode != 0 and (
        "Could not find a version" in installed.stderr or "connection" in installed.stderr.lower()
    ):
        pytest.skip(f"PyPI is not reachable: {installed.stderr[-500:]}")
    assert installed.returncode == 0, installed.stderr

    probe = run(
        [
            python,
            "-c",
            "import chainer, chainer.datasets, chainer.iterators\n"
            "print(chainer.datasets.__file__)\n"
            "try:\n"
            "    import chainer.links\n"
            "except ImportError as e:\n"
            "    print('links:', e)\n",
        ],
        cwd=tmp_path,
    )
    assert probe.returncode == 0, probe.stderr
    location, links = probe.stdout.strip().splitlines()
    assert pathlib.Path(location).is_relative_to(env_dir)
    assert "chainer-links" in links and "pip install chainer-links" in links

    tests = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUBSET], cwd=ROOT)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout
