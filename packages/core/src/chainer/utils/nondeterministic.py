"""Warnings for nondeterministic computations (``chainer.config.warn_nondeterministic``)."""

from __future__ import annotations

import warnings

from chainer import configuration


def nondeterministic(f_name: str) -> None:
    """Warn, if ``chainer.config.warn_nondeterministic`` is on, that ``f_name`` (code that
    cannot be made deterministic by a seed, such as atomic additions) is running."""
    if configuration.config.warn_nondeterministic:
        warnings.warn(
            "Potentially non-deterministic code is being executed while config.warn_nondeterministic is set. "
            f"Source: {f_name}",
            stacklevel=2,
        )
