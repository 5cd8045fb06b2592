"""Checks of the environment Chainer runs in: versions that are known not to work.

:func:`check` warns about each problem found. It is not run by ``import chainer`` (that
stays fast); ``python -m chainer doctor`` reports the same and more.
"""

from __future__ import annotations

import importlib.metadata
import warnings

# CuPy major versions this distribution is written for (GPU arrays, kernels, NCCL).
_CUPY_MAJOR = 14


def _distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def _check_optional_dependencies() -> None:
    """Warn about optional libraries installed in versions Chainer does not work with."""
    cupy_versions = {
        dist.metadata["Name"]: dist.version
        for dist in importlib.metadata.distributions()
        if (dist.metadata["Name"] or "").lower().startswith("cupy")
    }
    for name, version in sorted(cupy_versions.items()):
        major = version.split(".")[0]
        if major.isdigit() and int(major) < _CUPY_MAJOR:
            warnings.warn(
                f"{name} {version} is installed, but Chainer's GPU code is written for CuPy {_CUPY_MAJOR}; "
                f"upgrade it (pip install -U {name}) or GPU functions may fail",
                RuntimeWarning,
                stacklevel=3,
            )
    if _distribution_version("chainer") is not None:
        warnings.warn(
            "the original 'chainer' distribution (7.x) is installed too and writes the same 'chainer' package; "
            "uninstall it (pip uninstall chainer) and reinstall chainer-core",
            RuntimeWarning,
            stacklevel=3,
        )


def check() -> None:
    """Warn (``RuntimeWarning``) about each known-bad part of the environment: CuPy older
    than the one supported, the original ``chainer`` distribution installed alongside."""
    _check_optional_dependencies()
