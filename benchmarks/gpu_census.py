"""Where a GPU training step's time goes: the kernels it launches, the CUDA calls it makes
and the host time of its building blocks.

``benchmarks/gpu.py`` says how long a step takes against PyTorch; this script says why.
Our define-by-run steps are bound by the host (each CuPy launch costs tens of
microseconds of Python on the lent machines), so the questions are how many launches a
step makes, which of them synchronise the host with the device, and what each building
block costs on the host:

    python benchmarks/gpu_census.py kernels NAME[:variant] ...
        Per step of ours and of PyTorch's (the workloads of gpu.py): the kernels launched
        and their device time, and the CUDA runtime/driver calls (launches, copies,
        synchronisations, allocations), from torch.profiler, whose CUPTI tracing sees
        every kernel of the process, CuPy's included.
    python benchmarks/gpu_census.py budget
        Host microseconds per call of the pieces of the MLP step of gpu.py (allocation,
        one elementwise launch, a raw kernel launch, a broadcast add, a reduction, a
        GEMM through CuPy and through chainer's cuBLAS call, one FunctionNode.apply,
        F.linear / F.relu / softmax cross-entropy forward, backward, the optimizer
        update), each timed without synchronising inside its loop (what the host pays to
        queue the work), and with the device's completion.

Needs CuPy and a CUDA device; ``kernels`` needs PyTorch with CUDA.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy

import chainer
import chainer.functions as F
from chainer.backends import cuda

try:
    from benchmarks import gpu, mlp
except ImportError:  # run as a script from the benchmarks folder
    import gpu
    import mlp


# ---------------------------------------------------------------- kernels per step


def _device_us(event: Any) -> float:
    """The device time of a profiler event in microseconds (the attribute's name moved
    between PyTorch releases)."""
    for name in ("self_device_time_total", "self_cuda_time_total", "device_time_total", "cuda_time_total"):
        value = getattr(event, name, None)
        if value is not None:
            return float(value)
    return 0.0


# CUDA runtime and driver calls: cudaLaunchKernel, cuLaunchKernel, cudaMemcpyAsync, ...
_API_CALL = re.compile(r"cu(da)?[A-Z]")


def _census_of(
    step: Callable[[], None], steps: int
) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float]]]:
    """``(kernels, api_calls)`` of ``steps`` runs of ``step``: name -> (calls per step,
    microseconds per step: device time for kernels, host time for API calls)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(5):
        step()
    gpu._sync_all()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        gpu._sync_all()
        torch.cuda.synchronize()
    kernels: dict[str, tuple[float, float]] = {}
    api: dict[str, tuple[float, float]] = {}
    for event in prof.key_averages():
        key = event.key
        device_type = str(getattr(event, "device_type", ""))
        if "CUDA" in device_type and _device_us(event) > 0:
            kernels[key] = (event.count / steps, _device_us(event) / steps)
        elif _API_CALL.match(key):
            api[key] = (event.count / steps, event.self_cpu_time_total / steps)
    return kernels, api


def _print_census(title: str, kernels: dict[str, tuple[float, float]], api: dict[str, tuple[float, float]]) -> None:
    launches = sum(count for count, _ in kernels.values())
    busy = sum(us for _, us in kernels.values())
    print(f"-- {title}: {launches:.1f} device operations (kernels, copies, fills) per step, {busy:.1f} us busy")
    for name, (count, us) in sorted(kernels.items(), key=lambda kv: -kv[1][0])[:30]:
        print(f"   {count:6.1f} x {us / max(count, 1e-9):8.1f} us  {name[:110]}")
    print(f"   CUDA API calls per step ({sum(c for c, _ in api.values()):.1f}):")
    for name, (count, us) in sorted(api.items(), key=lambda kv: -kv[1][0]):
        print(f"   {count:6.1f} x {us / max(count, 1e-9):8.1f} us  {name}")


def kernels(names: list[str], steps: int = 10) -> None:
    if gpu._torch() is None:
        print("gpu_census kernels: needs PyTorch with CUDA (its profiler traces the kernels)")
        return
    for spec in names:
        name, _, variant = spec.partition(":")
        ours, theirs, _unit, _per_step, *more = gpu.BENCHMARKS[name]()
        step = more[0][variant] if variant else ours
        # Host time of a step, with launches queued (no synchronisation in the loop).
        start = time.perf_counter()
        for _ in range(steps):
            step()
        queued = (time.perf_counter() - start) / steps
        gpu._sync_all()
        print(f"== {spec}: host time per step {queued * 1e3:.3f} ms (queued)")
        _print_census(f"ours ({spec})", *_census_of(step, steps))
        if theirs is not None:
            _print_census(f"PyTorch ({name})", *_census_of(theirs, steps))
        sys.stdout.flush()


# ---------------------------------------------------------------- host budget


def _host_us(func: Callable[[], Any], number: int = 200, repeat: int = 5) -> tuple[float, float]:
    """Best microseconds per call of ``func``: host time with the work only queued, and
    with the device's completion (a synchronisation after the loop)."""
    sync = gpu._sync
    for _ in range(10):
        func()
    sync()
    queued = done = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        middle = time.perf_counter()
        sync()
        end = time.perf_counter()
        queued = min(queued, (middle - start) / number)
        done = min(done, (end - start) / number)
    return queued * 1e6, done * 1e6


class _Identity(chainer.FunctionNode):
    """A function that computes nothing: what FunctionNode.apply costs around a forward."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return grad_outputs


def _budget_items() -> list[tuple[str, Callable[[], Any]]]:
    cp = cuda.cupy
    from chainer import optimizers
    from chainer.backends import _cuda_blas

    rng = numpy.random.default_rng(0)
    batch, n_in, n_hidden, n_out = mlp.BATCH, mlp.SIZES[0], mlp.SIZES[1], mlp.SIZES[-1]
    x = cp.asarray(rng.normal(size=(batch, n_in)).astype(numpy.float32))
    W = cp.asarray(rng.normal(size=(n_hidden, n_in)).astype(numpy.float32))
    b = cp.asarray(rng.normal(size=n_hidden).astype(numpy.float32))
    h = cp.asarray(rng.normal(size=(batch, n_hidden)).astype(numpy.float32))
    small = cp.ones(10, dtype=cp.float32)
    t = cp.asarray(rng.integers(0, n_out, batch).astype(numpy.int32))
    logits = cp.asarray(rng.normal(size=(batch, n_out)).astype(numpy.float32))
    double = cp.ElementwiseKernel("T x", "T y", "y = x + x", "census_double")
    raw = cp.RawKernel(
        r"""extern "C" __global__ void census_double(const float* x, float* y, long long n) {
            for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
                 i += (long long)gridDim.x * blockDim.x) y[i] = x[i] + x[i];
        }""",
        "census_double",
    )
    h_out = cp.empty_like(h)
    n_h = numpy.int64(h.size)
    grid = ((h.size + 255) // 256,)

    xv, tv = chainer.Variable(x), t
    Wv, bv = chainer.Parameter(W), chainer.Parameter(b)
    hv = chainer.Variable(h)
    model = mlp.MLP()
    model.to_device(chainer.get_device("@cupy:0"))
    optimizer = optimizers.Adam().setup(model)

    def mlp_forward() -> Any:
        return F.softmax_cross_entropy(model(xv), tv)

    def mlp_forward_backward() -> None:
        model.cleargrads()
        mlp_forward().backward()

    mlp_forward_backward()
    flag = cp.zeros((), dtype=cp.int32)

    return [
        ("cupy.empty (100x1000 float32)", lambda: cp.empty((batch, n_hidden), cp.float32)),
        ("ElementwiseKernel y = x + x (100x1000)", lambda: double(h)),
        ("ElementwiseKernel into out=", lambda: double(h, h_out)),
        ("RawKernel y = x + x (100x1000, out given)", lambda: raw(grid, (256,), (h, h_out, n_h))),
        ("cupy ufunc h * 2.0", lambda: h * 2.0),
        ("broadcast add h + b", lambda: h + b),
        ("in-place broadcast add h_out += b", lambda: h_out.__iadd__(b)),
        ("reduction h.sum(axis=0)", lambda: h.sum(axis=0)),
        ("cupy.maximum(h, 0) (ReLU forward)", lambda: cp.maximum(h, 0, dtype=h.dtype)),
        ("cupy dot x @ W.T", lambda: x.dot(W.T)),
        ("_cuda_blas.matmul x @ W.T", lambda: _cuda_blas.matmul(x, W.T)),
        ("device-to-host copy of a flag (synchronises)", lambda: int(flag)),
        ("ones of size 10 (tiny kernel)", lambda: cp.ones(10, cp.float32)),
        ("tiny ufunc small * 0.5", lambda: small * 0.5),
        ("FunctionNode.apply of an identity", lambda: _Identity().apply((hv,))),
        ("F.identity", lambda: F.identity(hv)),
        ("F.relu forward", lambda: F.relu(hv)),
        ("F.linear forward (with bias)", lambda: F.linear(xv, Wv, bv)),
        ("F.softmax_cross_entropy forward", lambda: F.softmax_cross_entropy(chainer.Variable(logits), tv)),
        ("MLP forward with the loss", mlp_forward),
        ("MLP cleargrads + forward + backward", mlp_forward_backward),
        ("Adam optimizer.update() (6 parameters)", optimizer.update),
    ]


def budget() -> None:
    print(f"{'host us per call: queued / done':>60}")
    for label, func in _budget_items():
        try:
            queued, done = _host_us(func, number=50 if label.startswith("MLP") else 200)
            print(f"{label:<50} {queued:9.1f} {done:9.1f}")
        except Exception as exc:  # one broken probe does not hide the others
            print(f"{label:<50} failed: {type(exc).__name__}: {exc}")
        sys.stdout.flush()


def main(argv: list[str]) -> int:
    reason = cuda._unavailable_reason()
    if reason is not None:
        print(f"gpu_census: skipped ({reason})")
        return 0
    if not argv or argv[0] not in ("kernels", "budget"):
        print(__doc__)
        return 2
    if argv[0] == "kernels":
        kernels(argv[1:] or ["mlp"])
    else:
        budget()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
