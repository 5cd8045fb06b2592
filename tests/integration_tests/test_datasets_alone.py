"""chainer-datasets installs and works with chainer-core alone, from wheels, in a fresh venv."""

from __future__ import annotations

import pathlib
import zipfile

import pytest
from _alone import build_wheels, fresh_venv, run, run_test_folder


@pytest.mark.slow
def test_datasets_with_core_only(tmp_path):
    wheels = build_wheels(tmp_path / "wheels", ["core", "datasets"])
    (datasets_wheel,) = wheels.glob("chainer_datasets-*.whl")
    with zipfile.ZipFile(datasets_wheel) as wheel:
        packages = {name.split("/")[1] for name in wheel.namelist() if name.startswith("chainer/")}
        assert packages == {"dataset", "datasets", "iterators"}
        assert "chainer/__init__.py" not in wheel.namelist()
        for sub in ("dataset", "datasets", "iterators"):
            assert f"chainer/{sub}/py.typed" in wheel.namelist()

    env_dir = tmp_path / "venv"
    python = fresh_venv(env_dir, ["numpy", "pluggy", "pillow", "pytest"] + [str(w) for w in wheels.glob("*.whl")])

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

    run_test_folder(python, "datasets_tests")
