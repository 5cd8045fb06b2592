"""Matplotlib, imported on first use and drawn without pyplot's global state.

Figures are made with ``matplotlib.figure.Figure`` on an Agg canvas: no GUI backend is
selected, nothing is shared between threads, and the user's pyplot figures are left
alone. Files are written atomically.
"""

from __future__ import annotations

import functools
import os
import warnings
from typing import Any

from chainer.training import _util


@functools.cache
def available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def warn_unavailable(where: str) -> None:
    warnings.warn(
        f"{where}: matplotlib is not installed, so nothing will be plotted; install it with: "
        "pip install 'chainer-training[plot]' (or pip install matplotlib)"
    )


def new_figure(figsize: Any = None) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    FigureCanvasAgg(figure)
    return figure


def save_figure(figure: Any, path: str, **kwargs: Any) -> None:
    """Save ``figure`` to ``path`` atomically; the format follows the file extension
    (PNG when there is none)."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    fmt = ext if ext in figure.canvas.get_supported_filetypes() else "png"
    with _util.atomic_path(path) as tmp:
        figure.savefig(tmp, format=fmt, **kwargs)
