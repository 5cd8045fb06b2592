"""TimerHook: elapsed time of every function's forward and backward."""

from __future__ import annotations

import time
from typing import Any, TextIO

import numpy

from chainer import function_hook
from chainer.function_hooks import _report


def _synchronize(arrays: Any) -> None:
    # GPU kernels run asynchronously; wait for them so the time is the kernel's.
    for a in arrays:
        if a is not None and not isinstance(a, numpy.ndarray) and hasattr(a, "device"):
            a.device.synchronize()
            return


class TimerHook(function_hook.FunctionHook):
    """Measures the wall time of each function application (forward and backward).

    Example:
        >>> model = L.Linear(3, 2)
        >>> x = np.ones((1, 3), np.float32)
        >>> with chainer.function_hooks.TimerHook() as hook:
        ...     y = model(x)
        >>> hook.print_report()  # doctest: +ELLIPSIS
        FunctionName  ElapsedTime  Occurrence
        LinearFunction  ...  1

    Attributes:
        call_history: ``(function class name, seconds)`` for every call, in order.
    """

    name = "TimerHook"

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._starts: list[float] = []
        # Time of the outermost calls only: a function applied inside another's
        # backward (double backprop) is counted once, within the outer one.
        self._total_time = 0.0

    def _start(self, arrays: Any) -> None:
        _synchronize(arrays)
        self._starts.append(time.perf_counter())

    def _stop(self, function: Any, arrays: Any) -> None:
        _synchronize(arrays)
        elapsed = time.perf_counter() - self._starts.pop()
        self.call_history.append((function._impl_name, elapsed))
        if not self._starts:
            self._total_time += elapsed

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start(in_data)

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._stop(function, in_data)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._start(out_grad)

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._stop(function, out_grad)

    def total_time(self) -> float:
        """Total time (seconds) of the calls, nested calls counted within their outer one."""
        return self._total_time

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per function label: ``{'elapsed_time': seconds, 'occurrence': count}``."""
        result: dict[str, dict[str, Any]] = {}
        for label, elapsed in self.call_history:
            entry = result.setdefault(label, {"elapsed_time": 0.0, "occurrence": 0})
            entry["elapsed_time"] += elapsed
            entry["occurrence"] += 1
        return result

    def print_report(self, unit: str = "auto", file: TextIO | None = None) -> None:
        """Print the summary as a table to ``file`` (the current ``sys.stdout`` by default).

        ``unit``: 'sec', 'ms', 'us' or 'ns'; 'auto' picks one for the whole table,
        'auto_foreach' one per row.
        """
        summary = self.summary()
        rows = []
        for label, entry in summary.items():
            values = (
                [e["elapsed_time"] for e in summary.values()] if unit != "auto_foreach" else [entry["elapsed_time"]]
            )
            name, scale = _report.choose_unit(values, _report._TIME_UNITS, "auto" if unit == "auto_foreach" else unit)
            rows.append((label, f"{entry['elapsed_time'] / scale:.2f}{name}", str(entry["occurrence"])))
        _report.print_table(rows, ("FunctionName", "ElapsedTime", "Occurrence"), file)
