"""chainer-intel64 from its wheel: built like `nox -s build` does, installed into an empty
venv where pip fetches oneDNN (onednn-cpu-gomp) from the package index, and '@intel64'
available there, its extension finding libdnnl.so.3 by its rpath alone."""

import pathlib
import subprocess
import sys
import zipfile

import pytest

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(*args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stdout}\n{done.stderr[-4000:]}"
    return done


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wheels")
    # chainer-core with the test environment's hatchling; chainer-intel64 in an isolated
    # build environment, where pip fetches setuptools and onednn-devel-cpu-gomp.
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        folder,
        ROOT / "packages" / "core",
    )
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", folder, ROOT / "packages" / "intel64")
    return folder


def test_wheel_contents(wheels):
    (wheel,) = wheels.glob("chainer_intel64-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("chainer_intel64/_dnnl.") and n.endswith(".so") for n in names)
    assert "chainer_intel64/py.typed" in names
    assert not any("libdnnl" in n for n in names), "oneDNN comes from onednn-cpu-gomp, not inside the wheel"


def test_installs_into_an_empty_venv_with_onednn_from_the_index(tmp_path, wheels):
    _run(sys.executable, "-m", "venv", tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    (core,) = wheels.glob("chainer_core-*.whl")
    (intel64,) = wheels.glob("chainer_intel64-*.whl")
    _run(python, "-m", "pip", "install", "-q", core, intel64)
    listed = _run(python, "-m", "pip", "list", "--format=freeze").stdout
    assert "onednn-cpu-gomp==2023.2.0" in listed.replace("_", "-")
    # The extension alone (no preload by chainer_intel64._library): the rpath finds oneDNN.
    code = "import chainer_intel64._dnnl as m; print(m.version()[:3])"
    assert _run(python, "-c", code, env={"PATH": "/usr/bin:/bin"}).stdout.strip() == "(3, 2, 0)"
    code = (
        "import numpy, chainer, chainer.functions as F\n"
        "x = numpy.ones((1, 2, 5, 5), numpy.float32); W = numpy.ones((3, 2, 3, 3), numpy.float32)\n"
        "print(chainer.get_device('@intel64'), chainer.backends.intel64.is_ideep_available())\n"
        "with chainer.using_config('use_ideep', 'always'):\n"
        "    print(float(F.convolution_2d(x, W, pad=1).array[0, 0, 2, 2]))\n"
        "print(chainer.backends.intel64.runtime_info().split(',')[0])\n"
    )
    out = _run(python, "-c", code, env={"PATH": "/usr/bin:/bin"}).stdout.split("\n")
    assert out[0] == "@intel64 True" and out[1] == "18.0" and out[2].startswith("oneDNN 3.2.0")
