"""Small CNN training step on CPU: Chainer functions against PyTorch, in the same process.

Workload (CIFAR-sized): a 64x3x32x32 float32 batch through
conv(3->32, 3x3, pad 1) - ReLU - max-pool 2 - conv(32->64, 3x3, pad 1) - ReLU - max-pool 2
- linear(4096->256) - ReLU - linear(256->10), softmax cross-entropy, backward and a
momentum-SGD update written here. PyTorch runs with as many threads as NumPy's BLAS.

    python benchmarks/cnn.py            [--profile] [--cpu-time] [--convs]

``--convs`` times the two convolution layers alone (forward and every gradient) on
'@intel64' against PyTorch's (both oneDNN).

Set OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS) before running to choose the thread count.
Each side is timed in fresh processes, ours and torch's in alternation, so both see the
same load on a shared machine and neither is slowed by the other's idle-spinning threads
(see _timing.fresh_process_best); --cpu-time measures process CPU time instead of wall time.

Page faults: glibc hands large freed temporaries back to the kernel, and the next step
faults them in again. Our convolution kernels take their patch matrices from per-thread
scratch buffers (``chainer._workspace``), so our step faults almost never; PyTorch's
step faulted from a hundred to several thousand times (measured when both sides ran in
one process, on the heap left by ours). MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_
(e.g. 1000000000) remove the faults of both.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy

import chainer
import chainer.functions as F
from chainer import function_node

try:
    from benchmarks import _timing
except ImportError:  # run as a script from the benchmarks folder
    import _timing

BATCH, CLASSES = 64, 10
LR, MOMENTUM = 0.01, 0.9


class _SoftmaxCrossEntropy(function_node.FunctionNode):
    """Mean softmax cross-entropy (used only if F.softmax_cross_entropy is missing)."""

    def __init__(self, t: Any) -> None:
        self.t = t

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        z = x - x.max(axis=1, keepdims=True)
        log_p = z - numpy.log(numpy.exp(z).sum(axis=1, keepdims=True))
        self.prob = numpy.exp(log_p)
        loss = -log_p[numpy.arange(len(self.t)), self.t].mean()
        return (numpy.asarray(loss, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        g = self.prob.copy()
        g[numpy.arange(len(self.t)), self.t] -= 1
        g /= len(self.t)
        return (grad_outputs[0] * g,)


def softmax_cross_entropy(x: Any, t: Any) -> Any:
    if hasattr(F, "softmax_cross_entropy"):
        return F.softmax_cross_entropy(x, t)
    return _SoftmaxCrossEntropy(t).apply((x,))[0]


def make_params(rng: numpy.random.Generator) -> list[numpy.ndarray]:
    def he(shape: tuple[int, ...], fan_in: int) -> numpy.ndarray:
        return (rng.standard_normal(shape) * numpy.sqrt(2.0 / fan_in)).astype(numpy.float32)

    return [
        he((32, 3, 3, 3), 27),
        numpy.zeros(32, numpy.float32),
        he((64, 32, 3, 3), 288),
        numpy.zeros(64, numpy.float32),
        he((256, 4096), 4096),
        numpy.zeros(256, numpy.float32),
        he((10, 256), 256),
        numpy.zeros(10, numpy.float32),
    ]


def make_data(rng: numpy.random.Generator) -> tuple[numpy.ndarray, numpy.ndarray]:
    x = rng.standard_normal((BATCH, 3, 32, 32)).astype(numpy.float32)
    t = rng.integers(0, CLASSES, BATCH).astype(numpy.int32)
    return x, t


def chainer_step(params: list[Any], velocities: list[Any], x: Any, t: Any) -> Any:
    """One training step of ours on the arrays' device; returns the loss array (not
    synchronised, so that GPU callers choose when to wait)."""
    W1, b1, W2, b2, W3, b3, W4, b4 = params
    h = F.max_pooling_2d(F.relu(F.convolution_2d(x, W1, b1, pad=1)), 2)
    h = F.max_pooling_2d(F.relu(F.convolution_2d(h, W2, b2, pad=1)), 2)
    h = F.relu(F.linear(h, W3, b3))
    loss = softmax_cross_entropy(F.linear(h, W4, b4), t)
    for p in params:
        p.cleargrad()
    loss.backward()
    for p, v in zip(params, velocities):
        v *= MOMENTUM
        v -= LR * p.grad
        p.array += v
    return loss.array


def torch_step(torch: Any, params: list[Any], velocities: list[Any], x: Any, t: Any) -> Any:
    """The same step in PyTorch, on the tensors' device; returns the loss tensor."""
    tf = torch.nn.functional
    W1, b1, W2, b2, W3, b3, W4, b4 = params
    h = tf.max_pool2d(tf.relu(tf.conv2d(x, W1, b1, padding=1)), 2)
    h = tf.max_pool2d(tf.relu(tf.conv2d(h, W2, b2, padding=1)), 2)
    h = tf.relu(tf.linear(h.reshape(len(x), -1), W3, b3))
    loss = tf.cross_entropy(tf.linear(h, W4, b4), t)
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p, v in zip(params, velocities):
            v.mul_(MOMENTUM).sub_(LR * p.grad)
            p.add_(v)
    return loss.detach()


def chainer_step_fn() -> Callable[[], float]:
    rng = numpy.random.default_rng(0)
    params = [chainer.Variable(a) for a in make_params(rng)]
    velocities = [numpy.zeros_like(p.array) for p in params]
    x, t = make_data(rng)
    return lambda: float(chainer_step(params, velocities, x, t))


def torch_step_fn(torch: Any) -> Callable[[], float]:
    rng = numpy.random.default_rng(0)
    params = [torch.from_numpy(a).requires_grad_() for a in make_params(rng)]
    velocities = [torch.zeros_like(p) for p in params]
    x_np, t_np = make_data(rng)
    x, t = torch.from_numpy(x_np), torch.from_numpy(t_np.astype(numpy.int64))
    return lambda: float(torch_step(torch, params, velocities, x, t))


def chainer_convs_fn() -> Callable[[], float]:
    """The two convolution layers of the step alone (forward, then the gradients of x,
    W and b), for the '@intel64' comparison with PyTorch's oneDNN convolutions."""
    rng = numpy.random.default_rng(0)
    W1, b1, W2, b2 = (chainer.Variable(a) for a in make_params(rng)[:4])
    x, _ = make_data(rng)
    h = numpy.maximum(F.convolution_2d(x, W1.array, b1.array, pad=1).array, 0)
    h = chainer.Variable(h.reshape(BATCH, 32, 16, 2, 16, 2).max(axis=(3, 5)))

    def step() -> float:
        for p in (W1, b1, W2, b2, h):
            p.cleargrad()
        y1 = F.convolution_2d(x, W1, b1, pad=1)
        y2 = F.convolution_2d(h, W2, b2, pad=1)
        y1.grad = numpy.ones_like(y1.array)
        y2.grad = numpy.ones_like(y2.array)
        y1.backward()
        y2.backward()
        return float(W2.grad[0, 0, 0, 0])

    return step


def torch_convs_fn(torch: Any) -> Callable[[], float]:
    rng = numpy.random.default_rng(0)
    W1, b1, W2, b2 = (torch.from_numpy(a).requires_grad_() for a in make_params(rng)[:4])
    x_np, _ = make_data(rng)
    x = torch.from_numpy(x_np)
    with torch.no_grad():
        h = torch.nn.functional.max_pool2d(torch.relu(torch.nn.functional.conv2d(x, W1, b1, padding=1)), 2)
    h.requires_grad_()

    def step() -> float:
        for p in (W1, b1, W2, b2, h):
            p.grad = None
        y1 = torch.nn.functional.conv2d(x, W1, b1, padding=1)
        y2 = torch.nn.functional.conv2d(h, W2, b2, padding=1)
        y1.backward(torch.ones_like(y1))
        y2.backward(torch.ones_like(y2))
        return float(W2.grad[0, 0, 0, 0])

    return step


def run_convs(cpu_time: bool = False) -> dict[str, float]:
    """Milliseconds of the convolution layers alone, on '@intel64' and in PyTorch."""
    extra = ("--convs", "--cpu-time") if cpu_time else ("--convs",)
    best = _timing.fresh_process_best("cnn.py", sides=("intel64", "torch"), extra=extra)
    return {"intel64_convs_ms": best["intel64"] * 1e3, "torch_convs_ms": best["torch"] * 1e3}


def run(cpu_time: bool = False) -> dict[str, float | None]:
    """Milliseconds per training step (wall clock, or process CPU time if ``cpu_time``:
    steadier on a loaded machine, and equal to wall time x threads when they are busy),
    each side measured in fresh processes in alternation (``_timing.fresh_process_best``)."""
    sides = _timing.cpu_sides()
    best = _timing.fresh_process_best("cnn.py", sides=sides, extra=("--cpu-time",) if cpu_time else ())
    theirs = best.get("torch")
    result = {
        "chainer_ms_per_iter": best["ours"] * 1e3,
        "torch_ms_per_iter": None if theirs is None else theirs * 1e3,
        "threads": float(_timing.blas_threads()),
    }
    if "numpy" in sides:  # ours again without chainer-cpu-kernels, for comparison
        result["numpy_only_ms_per_iter"] = best["numpy"] * 1e3
    if "intel64" in sides:  # ours on '@intel64' (oneDNN, use_ideep='auto')
        result["intel64_ms_per_iter"] = best["intel64"] * 1e3
    return result


def main(argv: list[str]) -> int:
    if "--profile" in argv:
        import cProfile
        import pstats

        step = chainer_step_fn()
        step()
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for _ in range(20):
            step()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    cpu_time = "--cpu-time" in argv
    if "--side" in argv:
        clock = time.process_time if cpu_time else time.perf_counter
        ours, theirs = (chainer_convs_fn, torch_convs_fn) if "--convs" in argv else (chainer_step_fn, torch_step_fn)
        _timing.print_side(argv[argv.index("--side") + 1], ours, theirs, number=5, clock=clock)
        return 0
    if "--convs" in argv:
        convs = run_convs(cpu_time)
        ratio = convs["intel64_convs_ms"] / convs["torch_convs_ms"]
        print(
            f"convolution layers: @intel64 {convs['intel64_convs_ms']:.2f} ms, torch {convs['torch_convs_ms']:.2f} ms"
        )
        print(f"ratio @intel64/torch: {ratio:.2f}x")
        return 0
    result = run(cpu_time)
    print(f"threads (NumPy BLAS = torch): {int(result['threads'] or 0)}; clock: {'CPU' if cpu_time else 'wall'}")
    print(
        f"chainer: {result['chainer_ms_per_iter']:.2f} ms/iter (compiled kernels: {_timing.compiled_kernel_plugins() or 'none'})"
    )
    if "numpy_only_ms_per_iter" in result:
        print(f"chainer without compiled kernels: {result['numpy_only_ms_per_iter']:.2f} ms/iter")
    if "intel64_ms_per_iter" in result:
        print(f"chainer on @intel64 (use_ideep='auto'): {result['intel64_ms_per_iter']:.2f} ms/iter")
    if result["torch_ms_per_iter"] is None:
        print("torch:   not installed")
    else:
        ratio = result["chainer_ms_per_iter"] / result["torch_ms_per_iter"]
        print(f"torch:   {result['torch_ms_per_iter']:.2f} ms/iter")
        print(f"ratio chainer/torch: {ratio:.2f}x")
        if "intel64_ms_per_iter" in result:
            print(f"ratio @intel64/torch: {result['intel64_ms_per_iter'] / result['torch_ms_per_iter']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
