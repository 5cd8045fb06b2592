"""TimerHook: wall-clock time spent in the ``forward`` of links."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from chainer import backend, link_hook

_UNITS = {"sec": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}


def _choose_unit(seconds: float) -> str:
    for unit in ("sec", "ms", "us"):
        if seconds * _UNITS[unit] >= 1.0:
            return unit
    return "ns"


class TimerHook(link_hook.LinkHook):
    """Link hook measuring the time spent in :meth:`Link.forward <chainer.Link.forward>`.

    Times are wall-clock seconds; for a link on a GPU the device is synchronized before
    each reading, so the time includes the kernels ``forward`` launched.

    Attributes:
        call_history: ``(link class name, seconds)`` for each call, in completion order.

    Example:
        >>> model = L.Linear(3, 2)
        >>> x = np.ones((1, 3), np.float32)
        >>> with chainer.link_hooks.TimerHook() as hook:
        ...     y = model(x)
        >>> hook.print_report()  # doctest: +ELLIPSIS
        LinkName  ElapsedTime  Occurrence
        Linear  ...  1
    """

    name = "TimerHook"
    table = _UNITS

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._starts: list[float] = []
        self._total_time = 0.0

    @staticmethod
    def _now(link: Any) -> float:
        device = link.device
        if isinstance(device, backend.GpuDevice):
            device.device.synchronize()
        return time.perf_counter()

    def forward_preprocess(self, args: link_hook._ForwardPreprocessCallbackArgs) -> None:
        self._starts.append(self._now(args.link))

    def forward_postprocess(self, args: link_hook._ForwardPostprocessCallbackArgs) -> None:
        elapsed = self._now(args.link) - self._starts.pop()
        self.call_history.append((type(args.link).__name__, elapsed))
        if not self._starts:
            # Only outermost calls count, so nested links are not counted twice.
            self._total_time += elapsed

    def _forward_aborted(self, args: link_hook._ForwardPreprocessCallbackArgs) -> None:
        if self._starts:
            self._starts.pop()

    def total_time(self) -> float:
        """Seconds spent in the outermost ``forward`` calls (nested calls not added twice)."""
        return self._total_time

    def summary(self) -> dict[str, dict[str, float]]:
        """Per link class: ``{'elapsed_time': seconds, 'occurrence': calls}``, in order of
        first completion."""
        result: dict[str, dict[str, float]] = {}
        for name, elapsed in self.call_history:
            entry = result.setdefault(name, {"elapsed_time": 0.0, "occurrence": 0})
            entry["elapsed_time"] += elapsed
            entry["occurrence"] += 1
        return result

    def print_report(self, unit: str = "auto", file: TextIO | None = None) -> None:
        """Print :meth:`summary` as a table.

        Args:
            unit: ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``; ``'auto'`` picks one unit for the
                whole table (from the smallest time), ``'auto_foreach'`` one per row.
            file: Where to write (``sys.stdout`` by default).
        """
        if unit not in _UNITS and unit not in ("auto", "auto_foreach"):
            raise ValueError(
                f"TimerHook.print_report: unit must be one of {sorted(_UNITS)}, 'auto' or 'auto_foreach', got {unit!r}"
            )
        out = sys.stdout if file is None else file
        summary = self.summary()
        if unit == "auto":
            times = [entry["elapsed_time"] for entry in summary.values() if entry["elapsed_time"] > 0]
            unit = _choose_unit(min(times)) if times else "sec"
        width = max([len("LinkName")] + [len(name) for name in summary])
        out.write(f"{'LinkName':>{width}}  {'ElapsedTime':>12}  {'Occurrence':>10}\n")
        for name, entry in summary.items():
            row_unit = _choose_unit(entry["elapsed_time"]) if unit == "auto_foreach" else unit
            value = entry["elapsed_time"] * _UNITS[row_unit]
            elapsed = f"{value:.3f}{row_unit}"
            out.write(f"{name:>{width}}  {elapsed:>12}  {int(entry['occurrence']):>10}\n")
