"""CupyMemoryProfileHook: memory each function takes from CuPy's memory pool."""

from __future__ import annotations

import importlib
from typing import Any, TextIO

from chainer import function_hook
from chainer.backends import cuda
from chainer.function_hooks import _report

_BYTE_UNITS = ("B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB")


class CupyMemoryProfileHook(function_hook.FunctionHook):
    """Records, per function call, the bytes used from and acquired by CuPy's default
    memory pool. Needs CuPy and a GPU (raises ``RuntimeError`` saying why otherwise).

    While the hook is active, a :class:`CupyMemoryCumulativeHook` counts the pool's
    allocations; each call's figures are what it counted between the call's pre- and
    post-processing, so a function called inside another (a backward that applies
    functions) counts in both, one level deeper.

    Attributes:
        call_history: ``(function label, used bytes, acquired bytes, depth)`` per call.
    """

    name = "CupyMemoryProfileHook"

    def __init__(self) -> None:
        cuda.check_cuda_available()
        self.call_history: list[tuple[str, int, int, int]] = []
        self._memory_hook = CupyMemoryCumulativeHook()
        self._running_stack: list[tuple[int, int]] = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0

    def added(self, function: Any = None) -> None:
        self._memory_hook.__enter__()

    def deleted(self, function: Any = None) -> None:
        self._memory_hook.__exit__()

    def _start(self) -> None:
        self._running_stack.append((self._memory_hook.used_bytes, self._memory_hook.acquired_bytes))

    def _stop(self, function: Any) -> None:
        used0, acquired0 = self._running_stack.pop()
        used = self._memory_hook.used_bytes - used0
        acquired = self._memory_hook.acquired_bytes - acquired0
        depth = len(self._running_stack)
        self.call_history.append((function._impl_name, used, acquired, depth))
        if depth == 0:
            # The outermost calls' figures include those of the calls nested in them.
            self._total_used_bytes += used
            self._total_acquired_bytes += acquired

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._start()

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._stop(function)

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._start()

    def backward_postprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        self._stop(function)

    def total_used_bytes(self) -> int:
        """Bytes used by all calls (nested calls counted once, in the call around them)."""
        return self._total_used_bytes

    def total_acquired_bytes(self) -> int:
        """Bytes acquired by all calls (nested calls counted once)."""
        return self._total_acquired_bytes

    def summary(self) -> dict[str, dict[str, int]]:
        """Per function label: ``{'used_bytes', 'acquired_bytes', 'occurrence'}``."""
        result: dict[str, dict[str, int]] = {}
        for label, used, acquired, _depth in self.call_history:
            entry = result.setdefault(label, {"used_bytes": 0, "acquired_bytes": 0, "occurrence": 0})
            entry["used_bytes"] += used
            entry["acquired_bytes"] += acquired
            entry["occurrence"] += 1
        return result

    def _choose_unit(self, size: float) -> tuple[int, str]:
        """``(divisor, unit)``: the largest of B, KB, ..., ZB (powers of 1024) not above ``size``."""
        denominator, unit = 1, _BYTE_UNITS[0]
        for name in _BYTE_UNITS[1:]:
            if size < denominator * 1024:
                break
            denominator *= 1024
            unit = name
        return denominator, unit

    def print_report(self, unit: str = "auto", file: TextIO | None = None) -> None:
        """Print the summary as a table to ``file`` (the current ``sys.stdout`` by default).

        ``unit``: one of B, KB, MB, GB, TB, PB, EB, ZB; 'auto' picks one for the whole
        table (from the smallest figure), 'auto_foreach' one per figure.
        """
        if unit not in ("auto", "auto_foreach") and unit not in _BYTE_UNITS:
            raise ValueError(
                f"CupyMemoryProfileHook.print_report: unit must be 'auto', 'auto_foreach' or one of "
                f"{list(_BYTE_UNITS)}, got {unit!r}"
            )
        summary = self.summary()
        if unit == "auto":
            figures = [v for e in summary.values() for v in (e["used_bytes"], e["acquired_bytes"])]
            fixed: tuple[int, str] | None = self._choose_unit(min(figures) if figures else 0)
        elif unit == "auto_foreach":
            fixed = None
        else:
            fixed = 1024 ** _BYTE_UNITS.index(unit), unit

        def fmt(size: int) -> str:
            denominator, name = fixed if fixed is not None else self._choose_unit(size)
            return f"{size / denominator:.2f}{name}"

        rows = [
            (label, fmt(e["used_bytes"]), fmt(e["acquired_bytes"]), str(e["occurrence"]))
            for label, e in summary.items()
        ]
        _report.print_table(rows, ("FunctionName", "UsedBytes", "AcquiredBytes", "Occurrence"), file)


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
