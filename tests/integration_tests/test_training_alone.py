"""chainer-training installs and works with chainer-core and chainer-datasets alone
(no chainer-links, no matplotlib), from wheels, in a fresh venv."""

from __future__ import annotations

import pathlib
import zipfile

import pytest
from _alone import ROOT, build_wheels, fresh_venv, install, run, run_test_folder


@pytest.mark.slow
def test_training_with_core_and_datasets_only(tmp_path):
    wheels = build_wheels(tmp_path / "wheels", ["core", "datasets", "training"])
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
    python = fresh_venv(env_dir, ["numpy", "pluggy", "pillow", "pytest"] + [str(w) for w in wheels.glob("*.whl")])

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

    # Then the whole test folder, with the plot extra and the test plugin of the
    # extension hook (the tests need them; still no chainer-links).
    install(python, ["matplotlib>=3.8"])
    install(python, [str(ROOT / "tests" / "plugins" / "chainer-plugin-tinyext")], "--no-deps")
    run_test_folder(python, "training_tests")
