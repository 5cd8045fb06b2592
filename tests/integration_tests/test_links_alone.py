"""chainer-links installs and works with chainer-core alone (no chainer-datasets, no
chainer-training), from wheels, in a fresh venv, and its whole test folder passes there."""

from __future__ import annotations

import pathlib
import zipfile

import pytest
from _alone import ROOT, build_wheels, fresh_venv, install, run, run_test_folder


@pytest.mark.slow
def test_links_with_core_only(tmp_path):
    wheels = build_wheels(tmp_path / "wheels", ["core", "links"])
    (links_wheel,) = wheels.glob("chainer_links-*.whl")
    with zipfile.ZipFile(links_wheel) as wheel:
        names = wheel.namelist()
        assert {name.split("/")[1] for name in names if name.startswith("chainer/")} == {"links"}
        assert "chainer/__init__.py" not in names
        metadata = wheel.read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert "Requires-Dist: chainer-core>=8.0.0" in metadata
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert not [line for line in requires if "chainer-datasets" in line or "chainer-training" in line], requires

    env_dir = tmp_path / "venv"
    python = fresh_venv(env_dir, ["numpy", "pluggy", "pytest"] + [str(w) for w in wheels.glob("*.whl")])
    probe = run(
        [
            python,
            "-c",
            "import chainer, chainer.links as L\n"
            "print(L.__file__)\n"
            "try:\n"
            "    L.VGG16Layers()  # pretrained_model='auto' looks in the dataset root\n"
            "except FileNotFoundError as e:\n"
            "    print('zoo:', e)\n"
            "try:\n"
            "    import chainer.training\n"
            "except ImportError as e:\n"
            "    print('training:', e)\n",
        ],
        cwd=tmp_path,
        env_overrides={"CHAINER_DATASET_ROOT": str(tmp_path / "dataset-root")},
    )
    assert probe.returncode == 0, probe.stderr
    location, zoo, training = probe.stdout.strip().splitlines()
    assert pathlib.Path(location).is_relative_to(env_dir)
    assert "VGG16Layers" in zoo and str(tmp_path / "dataset-root") in zoo
    assert "chainer-training" in training

    # The whole test folder, with the test plugins of the link and device hooks and the
    # libraries some tests compare against (still no chainer-datasets or chainer-training).
    install(python, ["scipy", "pillow", "h5py"])
    plugins = [str(ROOT / "tests" / "plugins" / name) for name in ("chainer-plugin-tinylink", "chainer-plugin-fakedev")]
    install(python, plugins, "--no-deps")
    run_test_folder(python, "links_tests")
