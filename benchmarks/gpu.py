"""GPU benchmarks: our CuPy paths against PyTorch CUDA, in the same process.

Workloads (each step ends in a device synchronisation, for both frameworks):

- ``overhead``: the per-op chain of ``overhead.py`` (tanh(h * 0.5 + 0.1), 100 steps, then
  sum(h).backward()) on 10 float32 elements on the GPU: launch and graph overhead.
- ``cnn``: the CNN training step of ``cnn.py`` (64x3x32x32, momentum SGD) on the GPU.
- ``mlp``: the MLP training step of ``mlp.py`` (784-1000-1000-10, batch 100, Adam).
- ``cnn_large``: the CNN step at batch 512, where kernels rather than launches dominate.
- ``resnet50``: ``L.ResNet50Layers`` inference on a 32x3x224x224 batch (ours alone:
  PyTorch has no ResNet-50 without torchvision).

    python benchmarks/gpu.py [name ...]
    python benchmarks/gpu.py --profile name     (cProfile of our step, synchronised)

Needs CuPy and a CUDA device; PyTorch is optional (its column is then n/a).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy

import chainer
import chainer.functions as F
from chainer import optimizers
from chainer.backends import cuda

try:
    from benchmarks import _timing, cnn, mlp
except ImportError:  # run as a script from the benchmarks folder
    import _timing
    import cnn
    import mlp


def _sync() -> None:
    cuda.cupy.cuda.Device().synchronize()


def _best(func: Callable[[], Any], sync: Callable[[], None], repeat: int = 7, number: int = 10) -> float:
    for _ in range(3):
        func()
    sync()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            func()
        sync()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def _torch() -> Any:
    torch = _timing.torch_or_none()
    if torch is None or not torch.cuda.is_available():
        return None
    return torch


def overhead() -> dict[str, float | None]:
    cp = cuda.cupy

    def ours() -> None:
        h = chainer.Variable(cp.ones(10, dtype=cp.float32))
        for _ in range(100):
            h = F.tanh(h * 0.5 + 0.1)
        F.sum(h).backward()

    result: dict[str, float | None] = {"chainer_us_per_op": _best(ours, _sync) / 300 * 1e6, "torch_us_per_op": None}
    torch = _torch()
    if torch is not None:

        def theirs() -> None:
            h = torch.ones(10, dtype=torch.float32, device="cuda", requires_grad=True)
            for _ in range(100):
                h = torch.tanh(h * 0.5 + 0.1)
            torch.sum(h).backward()

        result["torch_us_per_op"] = _best(theirs, torch.cuda.synchronize) / 300 * 1e6
    return result


def _cnn(batch: int) -> dict[str, float | None]:
    cp = cuda.cupy
    rng = numpy.random.default_rng(0)
    host_params = cnn.make_params(rng)
    x_host = rng.standard_normal((batch, 3, 32, 32)).astype(numpy.float32)
    t_host = rng.integers(0, cnn.CLASSES, batch).astype(numpy.int32)

    params = [chainer.Variable(cp.asarray(a)) for a in host_params]
    velocities = [cp.zeros_like(p.array) for p in params]
    x, t = cp.asarray(x_host), cp.asarray(t_host)

    def ours() -> None:
        W1, b1, W2, b2, W3, b3, W4, b4 = params
        h = F.max_pooling_2d(F.relu(F.convolution_2d(x, W1, b1, pad=1)), 2)
        h = F.max_pooling_2d(F.relu(F.convolution_2d(h, W2, b2, pad=1)), 2)
        h = F.relu(F.linear(h, W3, b3))
        loss = F.softmax_cross_entropy(F.linear(h, W4, b4), t)
        for p in params:
            p.cleargrad()
        loss.backward()
        for p, v in zip(params, velocities):
            v *= cnn.MOMENTUM
            v -= cnn.LR * p.grad
            p.array += v

    result: dict[str, float | None] = {"chainer_ms_per_step": _best(ours, _sync) * 1e3, "torch_ms_per_step": None}
    torch = _torch()
    if torch is not None:
        tparams = [torch.from_numpy(a).cuda().requires_grad_() for a in host_params]
        tvel = [torch.zeros_like(p) for p in tparams]
        tx = torch.from_numpy(x_host).cuda()
        tt = torch.from_numpy(t_host.astype(numpy.int64)).cuda()
        tf = torch.nn.functional
        torch.backends.cudnn.benchmark = True

        def theirs() -> None:
            W1, b1, W2, b2, W3, b3, W4, b4 = tparams
            h = tf.max_pool2d(tf.relu(tf.conv2d(tx, W1, b1, padding=1)), 2)
            h = tf.max_pool2d(tf.relu(tf.conv2d(h, W2, b2, padding=1)), 2)
            h = tf.relu(tf.linear(h.reshape(batch, -1), W3, b3))
            loss = tf.cross_entropy(tf.linear(h, W4, b4), tt)
            for p in tparams:
                p.grad = None
            loss.backward()
            with torch.no_grad():
                for p, v in zip(tparams, tvel):
                    v.mul_(cnn.MOMENTUM).sub_(cnn.LR * p.grad)
                    p.add_(v)

        result["torch_ms_per_step"] = _best(theirs, torch.cuda.synchronize) * 1e3
    return result


def cnn_step() -> dict[str, float | None]:
    return _cnn(cnn.BATCH)


def cnn_large() -> dict[str, float | None]:
    return _cnn(512)


def mlp_step() -> dict[str, float | None]:
    cp = cuda.cupy
    model = mlp.MLP()
    model.to_gpu()
    optimizer = optimizers.Adam().setup(model)
    rng = numpy.random.default_rng(1)
    x = cp.asarray(rng.normal(size=(mlp.BATCH, mlp.SIZES[0])).astype(numpy.float32))
    t = cp.asarray(rng.integers(0, mlp.SIZES[-1], mlp.BATCH).astype(numpy.int32))

    def ours() -> None:
        model.cleargrads()
        F.softmax_cross_entropy(model(x), t).backward()
        optimizer.update()

    result: dict[str, float | None] = {"chainer_ms_per_step": _best(ours, _sync) * 1e3, "torch_ms_per_step": None}
    torch = _torch()
    if torch is not None:
        layers: list[Any] = []
        for i, (n_in, n_out) in enumerate(zip(mlp.SIZES[:-1], mlp.SIZES[1:])):
            layers.append(torch.nn.Linear(n_in, n_out))
            if i < len(mlp.SIZES) - 2:
                layers.append(torch.nn.ReLU())
        tmodel = torch.nn.Sequential(*layers).cuda()
        toptimizer = torch.optim.Adam(tmodel.parameters())
        tx = torch.randn(mlp.BATCH, mlp.SIZES[0], device="cuda")
        tt = torch.randint(0, mlp.SIZES[-1], (mlp.BATCH,), device="cuda")
        loss_fn = torch.nn.CrossEntropyLoss()

        def theirs() -> None:
            toptimizer.zero_grad()
            loss_fn(tmodel(tx), tt).backward()
            toptimizer.step()

        result["torch_ms_per_step"] = _best(theirs, torch.cuda.synchronize) * 1e3
    return result


def resnet50() -> dict[str, float | None]:
    import chainer.links as L

    model = L.ResNet50Layers(pretrained_model=None)
    model.to_gpu()
    x = cuda.cupy.asarray(numpy.random.default_rng(0).normal(size=(32, 3, 224, 224)).astype(numpy.float32))

    def ours() -> None:
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            model(x, layers=["prob"])

    return {"chainer_ms_per_batch32": _best(ours, _sync, repeat=3, number=3) * 1e3}


BENCHMARKS = {"overhead": overhead, "cnn": cnn_step, "cnn_large": cnn_large, "mlp": mlp_step, "resnet50": resnet50}


def profile(name: str) -> None:
    import cProfile
    import pstats

    # Run the benchmark with a _best that only keeps the step functions (ours first).
    global _best
    timed = _best
    captured: list[Callable[[], Any]] = []
    _best = lambda func, sync, **kw: captured.append(func) or 1.0
    try:
        BENCHMARKS[name]()
    finally:
        _best = timed
    step = captured[0]
    for _ in range(5):
        step()
    _sync()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        step()
    _sync()
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)


def main(names: list[str]) -> int:
    reason = cuda._unavailable_reason()
    if reason is not None:
        print(f"gpu benchmarks: skipped ({reason})")
        return 0
    if names[:1] == ["--profile"]:
        for name in names[1:]:
            profile(name)
        return 0
    torch = _torch()
    print(
        f"device: {cuda.cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}; torch: {torch and torch.__version__}"
    )
    for name in names or list(BENCHMARKS):
        result = BENCHMARKS[name]()
        print(f"== gpu {name}")
        for key, value in result.items():
            print(f"  {key}: {'n/a' if value is None else f'{value:.3f}'}")
        ours = [v for k, v in result.items() if k.startswith("chainer")]
        theirs = [v for k, v in result.items() if k.startswith("torch")]
        if ours and theirs and theirs[0]:
            print(f"  ratio chainer/torch: {ours[0] / theirs[0]:.2f}x")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
