"""chainer-training installs and works with chainer-core and chainer-datasets alone
(no chainer-links, no matplotlib), from wheels, in a fresh venv."""

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
    "tests/training_tests/test_trainer.py",
    "tests/training_tests/triggers_tests/test_interval_trigger.py",
    "tests/training_tests/extensions_tests/test_log_report.py",
    "tests/training_tests/extensions_tests/test_snapshot.py",
    "tests/training_tests/updaters_tests/test_standard_updater.py",
]


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV"))}
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=600, **kwargs)  # type: ignore[call-overload]


@pytest.mark.slow
def test_training_with_core_and_datasets_only(tmp_path):
    wheels = tmp_path / "wheels"
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
        + [str(ROOT / "packages" / name) for name in ("core", "datasets", "training")]
    )
    assert built.returncode == 0, built.stderr
    (training_wheel,) = wheels.glob("chainer_training-*.whl")
    with zipfile.ZipFile(training_wheel) as wheel:
        names = wheel.namelist()
        assert {name.split("/")[1] for name in names if name.startswith("chainer/")} == {"training"}
        assert "chainer/__init__.py" not in names
        assert "chainer/training/py.typed" in names
        assert "chainer/training/extensions/snapshot_writers.py" in names
        metadata = wheel.read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert "Requires-Dist: chainer-core>=8.0.0" in metadata
    assert "Requires-Dist: chainer-datasets>=8.0.0" in metadata
    assert "Provides-Extra: plot" in metadata

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
            "-W",
            "always",
            "-c",
            "import warnings, chainer, chainer.training\n"
            "from chainer.training import extensions\n"
            "print(chainer.training.__file__)\n"
            "print(extensions.PlotReport.available())\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    extensions.PlotReport(['main/loss'])\n"
            "print(caught[0].message)\n"
            "try:\n"
            "    import chainer.links\n"
            "except ImportError as e:\n"
            "    print('links:', e)\n",
        ],
        cwd=tmp_path,
    )
    assert probe.returncode == 0, probe.stderr
    location, plot_available, warning, links = probe.stdout.strip().splitlines()
    assert pathlib.Path(location).is_relative_to(env_dir)
    assert plot_available == "False"
    assert "matplotlib is not installed" in warning and "chainer-training[plot]" in warning
    assert "chainer-links" in links

    tests = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUBSET], cwd=ROOT)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout
