"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
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


def fresh_process_best(
    script: str, sides: tuple[str, ...] = ("ours", "torch"), rounds: int = 4, extra: tuple[str, ...] = ()
) -> dict[str, float]:
    """Best seconds per step of each side of ``script``, each run measured in a fresh
    Python process (``script --side NAME *extra`` prints ``{"seconds": ...}``), the sides
    alternating ``rounds`` times so that both see the same machine load.

    Separate processes because threads outlive their work: after every GEMM NumPy's
    OpenBLAS workers spin on their cores for about 0.1 s, and PyTorch's OpenMP workers
    wait likewise, so in one process each side's spinning threads slow down the other
    side's next steps (PyTorch's MLP step took 15-16 ms in one process with ours, 9-11 ms
    alone). A side whose process fails is left out (e.g. PyTorch not installed), except
    the first, ours: its failure raises ``RuntimeError`` with the end of its stderr."""
    path = str(Path(__file__).resolve().parent / script)
    best: dict[str, float] = {}
    failed: set[str] = set()
    for _ in range(rounds):
        for side in sides:
            if side in failed:
                continue
            done = subprocess.run([sys.executable, path, "--side", side, *extra], capture_output=True, text=True)
            if done.returncode != 0:
                if side == sides[0]:
                    raise RuntimeError(f"{script} --side {side} failed:\n{done.stderr[-2000:]}")
                failed.add(side)
                continue
            seconds = float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])
            best[side] = min(best.get(side, float("inf")), seconds)
    return best


def without_compiled_kernels() -> None:
    """Unregister the plugins that serve compiled CPU kernels (chainer-cpu-kernels), so
    that chainer-core's NumPy code runs: the ``numpy`` side of the CPU benchmarks."""
    import chainer

    for name in compiled_kernel_plugins():
        chainer.plugins.unregister(name=name)


def intel64_available() -> bool:
    """Whether chainer-intel64 serves '@intel64' here (the ``intel64`` side can run)."""
    from chainer.backends import intel64

    return intel64.is_ideep_available()


def cpu_sides() -> tuple[str, ...]:
    """The sides a CPU benchmark times: ours and PyTorch's, then ours without the compiled
    kernels (``numpy``) when chainer-cpu-kernels is installed, and ours on '@intel64'
    with ``use_ideep='auto'`` (``intel64``) when chainer-intel64 is."""
    sides = ("ours", "torch")
    if compiled_kernel_plugins():
        sides += ("numpy",)
    if intel64_available():
        sides += ("intel64",)
    return sides


def compiled_kernel_plugins() -> list[str]:
    """The plugins serving compiled CPU kernels here (empty: NumPy only)."""
    from chainer.backends import cpu_kernels

    return sorted(set(cpu_kernels.compiled().values()))


def print_side(
    side: str,
    ours: Callable[[], Callable[[], Any]],
    theirs: Callable[[Any], Callable[[], Any]],
    number: int,
    clock: Callable[[], float] = time.perf_counter,
) -> None:
    """The ``--side`` mode of a benchmark script: build the step of ``side`` (``ours()``;
    ``numpy``: ours without compiled CPU kernels; ``intel64``: ours with
    ``use_ideep='auto'`` (chainer-intel64's oneDNN kernels); or ``theirs(torch)`` with PyTorch given
    as many threads as NumPy's BLAS), time it and print the JSON line that
    :func:`fresh_process_best` reads."""
    if side in ("ours", "numpy", "intel64"):
        if side == "numpy":
            without_compiled_kernels()
        if side == "intel64":
            import chainer

            # '@intel64' as Chainer documents it: oneDNN where the plugin finds it faster.
            chainer.config.use_ideep = "auto"
        step = ours()
    else:
        import torch

        torch.set_num_threads(blas_threads())
        step = theirs(torch)
    (seconds,) = interleaved_best([step], repeat=15, number=number, clock=clock)
    print(json.dumps({"seconds": seconds}))
