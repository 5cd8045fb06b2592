"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(func: Callable[[], None], *, repeat: int = 7, number: int = 20, warmup: int = 5) -> float:
    """Best mean seconds per call over ``repeat`` rounds of ``number`` calls."""
    for _ in range(warmup):
        func()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def interleaved_best(
    funcs: list[Callable[[], Any]], repeat: int = 9, number: int = 5, clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    """Best mean seconds per call of each function, measured in alternating rounds so
    that both see the same machine load (other processes may share the cores)."""
    for func in funcs:
        for _ in range(3):
            func()
    best = [float("inf")] * len(funcs)
    for _ in range(repeat):
        for i, func in enumerate(funcs):
            start = clock()
            for _ in range(number):
                func()
            best[i] = min(best[i], (clock() - start) / number)
    return best


def torch_or_none():
    try:
        import torch
    except ImportError:
        return None
    return torch


def blas_threads() -> int:
    """Threads NumPy's BLAS uses (PyTorch is given the same number, for fairness)."""
    try:
        from threadpoolctl import threadpool_info

        counts = [info["num_threads"] for info in threadpool_info() if info.get("user_api") == "blas"]
        if counts:
            return max(counts)
    except ImportError:
        pass
    import os

    return len(os.sched_getaffinity(0))
