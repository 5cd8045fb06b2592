"""CupyMemoryProfileHook: memory each function takes from CuPy's memory pool."""

from __future__ import annotations

from typing import Any, TextIO

from chainer import function_hook
from chainer.backends import cuda
from chainer.function_hooks import _report


class CupyMemoryProfileHook(function_hook.FunctionHook):
    """Records, per function call, the bytes used from and acquired by CuPy's default
    memory pool. Needs CuPy and a GPU (raises ``RuntimeError`` saying why otherwise).

    Attributes:
        call_history: ``(function label, used bytes, acquired bytes)`` per call.
    """

    name = "CupyMemoryProfileHook"

    def __init__(self) -> None:
        cuda.check_cuda_available()
        self._pool = cuda.cupy.get_default_memory_pool()
        self.call_history: list[tuple[str, int, int]] = []
        self._starts: list[tuple[int, int]] = []

    def _start(self) -> None:
        self._starts.append((self._pool.used_bytes(), self._pool.total_bytes()))

    def _stop(self, function: Any) -> None:
        used0, total0 = self._starts.pop()
        used = self._pool.used_bytes() - used0
        acquired = self._pool.total_bytes() - total0
        self.call_history.append((function._impl_name, used, acquired))

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start()

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._stop(function)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._start()

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._stop(function)

    def total_used_bytes(self) -> int:
        return sum(u for _, u, _ in self.call_history)

    def total_acquired_bytes(self) -> int:
        return sum(a for _, _, a in self.call_history)

    def summary(self) -> dict[str, dict[str, int]]:
        """Per function label: ``{'used_bytes', 'acquired_bytes', 'occurrence'}``."""
        result: dict[str, dict[str, int]] = {}
        for label, used, acquired in self.call_history:
            entry = result.setdefault(label, {"used_bytes": 0, "acquired_bytes": 0, "occurrence": 0})
            entry["used_bytes"] += used
            entry["acquired_bytes"] += acquired
            entry["occurrence"] += 1
        return result

    def print_report(self, unit: str = "auto", file: TextIO | None = None) -> None:
        summary = self.summary()
        name, scale = _report.choose_unit((e["used_bytes"] for e in summary.values()), _report._BYTE_UNITS, unit)
        rows = [
            (label, f"{e['used_bytes'] / scale:.2f}{name}", f"{e['acquired_bytes'] / scale:.2f}{name}")
            for label, e in summary.items()
        ]
        _report.print_table(rows, ("FunctionName", "UsedBytes", "AcquiredBytes"), file)
