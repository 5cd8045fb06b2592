"""CupyMemoryProfileHook: memory each function takes from CuPy's memory pool."""

from __future__ import annotations

import importlib
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


def _memory_hook_module() -> Any:
    if cuda._unavailable_reason() is not None:
        return None
    try:
        return importlib.import_module("cupy.cuda.memory_hook")
    except ImportError:
        return None


class CupyMemoryCumulativeHook:
    """A CuPy memory hook that adds up, while active, the bytes taken from CuPy's memory
    pool (``used_bytes``) and the bytes the pool acquired from the device
    (``acquired_bytes``). Use it as a context manager; it needs CuPy.

    Attributes:
        used_bytes: Bytes of the pool's allocations so far.
        acquired_bytes: Bytes the pool allocated on the device so far.
    """

    name = "CupyMemoryCumulativeHook"

    def __init__(self) -> None:
        self.used_bytes = 0
        self.acquired_bytes = 0

    def alloc_preprocess(self, **kwargs: Any) -> None:
        self.acquired_bytes += kwargs["mem_size"]

    def alloc_postprocess(self, **kwargs: Any) -> None:
        pass

    def malloc_preprocess(self, **kwargs: Any) -> None:
        self.used_bytes += kwargs["mem_size"]

    def malloc_postprocess(self, **kwargs: Any) -> None:
        pass

    def free_preprocess(self, **kwargs: Any) -> None:
        pass

    def free_postprocess(self, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> CupyMemoryCumulativeHook:
        module = _memory_hook_module()
        if module is None:
            cuda.check_cuda_available()
            raise RuntimeError("CupyMemoryCumulativeHook: this CuPy has no cupy.cuda.memory_hook")
        hooks = module.get_memory_hooks()
        if self.name in hooks:
            raise KeyError(f"CupyMemoryCumulativeHook: a memory hook named {self.name!r} is already active")
        hooks[self.name] = self
        return self

    def __exit__(self, *exc_info: Any) -> None:
        module = _memory_hook_module()
        if module is not None:
            module.get_memory_hooks().pop(self.name, None)


def __getattr__(name: str) -> Any:
    # Resolved on use: import chainer never imports CuPy.
    if name == "memory_hook_available":
        return _memory_hook_module() is not None
    raise AttributeError(f"module 'chainer.function_hooks.cupy_memory_profile' has no attribute {name!r}")
