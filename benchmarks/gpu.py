"""GPU benchmarks: our CuPy paths against PyTorch CUDA, in the same process.

Each figure is the best of several timed runs of ten steps, every run ending in a device
synchronisation; ours and PyTorch's runs alternate, so that both see the same host load
(our steps are bound by the host's Python and kernel launches, and move with it most).

Workloads:

- ``overhead``: the per-op chain of ``overhead.py`` (tanh(h * 0.5 + 0.1), 100 steps, then
  sum(h).backward()) on 10 float32 elements on the GPU: launch and graph overhead.
- ``cnn``: the CNN training step of ``cnn.py`` (64x3x32x32, momentum SGD) on the GPU.
- ``mlp``: the MLP training step of ``mlp.py`` (784-1000-1000-10, batch 100, Adam).
- ``cnn_large``: the CNN step at batch 512, where kernels rather than launches dominate.
- ``resnet50``: ``L.ResNet50Layers`` inference on a 32x3x224x224 batch (ours alone:
  PyTorch has no ResNet-50 without torchvision).
- ``static_small``: a small MLP's training step (784-100-100-10, batch 64, softmax
  cross-entropy, MomentumSGD) define-by-run, with ``chainer.static_graph`` (replayed from
  CUDA Graphs) and in PyTorch eager; ``static_small_loss``: the same with the loss inside
  the static chain; ``static_mlp``: the ``mlp`` workload (Adam) with ``static_graph``.
- ``cnn_optim``: the ``cnn`` step with the frameworks' optimizers (MomentumSGD,
  ``torch.optim.SGD``) rather than ``cnn.py``'s update loop on arrays (whose eight times
  three array operations measure CuPy's launches against PyTorch's), define-by-run and
  with ``static_graph``.

    python benchmarks/gpu.py [name ...]
    python benchmarks/gpu.py --profile name[:variant]   (cProfile of our step, synchronised)

With chainer-cudnn installed and usable, the convolution workloads (``cnn``, ``cnn_large``,
``resnet50``) are timed twice for ours, on cuDNN and with ``use_cudnn='never'`` (im2col
and cuBLAS), in the same alternation. Both libraries compute float32 convolutions at full
precision (PyTorch's ``allow_tf32`` off, our ``use_cudnn_tensor_core`` 'auto'); with
``CHAINER_BENCH_TF32=1`` both use TF32 tensor cores.

Needs CuPy and a CUDA device; PyTorch is optional (its column is then n/a).
"""

from __future__ import annotations

import os
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
    from benchmarks import static_graph as static_bench
except ImportError:  # run as a script from the benchmarks folder
    import _timing
    import cnn
    import mlp
    import static_graph as static_bench


def _sync() -> None:
    cuda.cupy.cuda.Device().synchronize()


def _interleaved(
    funcs: list[Callable[[], Any]], sync: Callable[[], None], repeat: int = 9, number: int = 10
) -> list[float]:
    """Best seconds per call of each function (each timed run ends in a device
    synchronisation), in alternating rounds: the host's load, which moves our
    Python-bound steps most, is then the same for both."""
    for func in funcs:
        for _ in range(3):
            func()
    sync()
    best = [float("inf")] * len(funcs)
    for _ in range(repeat):
        for i, func in enumerate(funcs):
            start = time.perf_counter()
            for _ in range(number):
                func()
            sync()
            best[i] = min(best[i], (time.perf_counter() - start) / number)
    return best


def _sync_all() -> None:
    _sync()
    torch = _torch()
    if torch is not None:
        torch.cuda.synchronize()


# A workload: our step, PyTorch's step (None without PyTorch CUDA), the unit of the
# figures and the number of units per step (ops per step for the overhead); optionally
# other variants of ours, by label.
Workload = tuple[Any, ...]


def _torch() -> Any:
    torch = _timing.torch_or_none()
    if torch is None or not torch.cuda.is_available():
        return None
    torch.backends.cudnn.allow_tf32 = _TF32
    torch.backends.cuda.matmul.allow_tf32 = _TF32
    return torch


_TF32 = os.environ.get("CHAINER_BENCH_TF32") == "1"
# The workloads whose time is mostly convolutions: timed on cuDNN and on im2col.
_CONVOLUTIONAL = ("cnn", "cnn_large", "resnet50", "cnn_optim")


def overhead() -> Workload:
    cp = cuda.cupy

    def ours() -> None:
        h = chainer.Variable(cp.ones(10, dtype=cp.float32))
        for _ in range(100):
            h = F.tanh(h * 0.5 + 0.1)
        F.sum(h).backward()

    torch = _torch()
    if torch is None:
        return ours, None, "us_per_op", 300

    def theirs() -> None:
        h = torch.ones(10, dtype=torch.float32, device="cuda", requires_grad=True)
        for _ in range(100):
            h = torch.tanh(h * 0.5 + 0.1)
        torch.sum(h).backward()

    return ours, theirs, "us_per_op", 300


def _cnn(batch: int) -> Workload:
    cp = cuda.cupy
    rng = numpy.random.default_rng(0)
    host_params = cnn.make_params(rng)
    x_host = rng.standard_normal((batch, 3, 32, 32)).astype(numpy.float32)
    t_host = rng.integers(0, cnn.CLASSES, batch).astype(numpy.int32)

    params = [chainer.Variable(cp.asarray(a)) for a in host_params]
    velocities = [cp.zeros_like(p.array) for p in params]
    x, t = cp.asarray(x_host), cp.asarray(t_host)

    def ours() -> None:
        cnn.chainer_step(params, velocities, x, t)

    torch = _torch()
    if torch is None:
        return ours, None, "ms_per_step", 1
    tparams = [torch.from_numpy(a).cuda().requires_grad_() for a in host_params]
    tvel = [torch.zeros_like(p) for p in tparams]
    tx = torch.from_numpy(x_host).cuda()
    tt = torch.from_numpy(t_host.astype(numpy.int64)).cuda()
    torch.backends.cudnn.benchmark = True

    def theirs() -> None:
        cnn.torch_step(torch, tparams, tvel, tx, tt)

    return ours, theirs, "ms_per_step", 1


def cnn_step() -> Workload:
    return _cnn(cnn.BATCH)


def cnn_large() -> Workload:
    return _cnn(512)


def mlp_step() -> Workload:
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

    torch = _torch()
    if torch is None:
        return ours, None, "ms_per_step", 1
    tmodel = mlp.torch_model(torch).cuda()
    toptimizer = torch.optim.Adam(tmodel.parameters())
    tx = torch.randn(mlp.BATCH, mlp.SIZES[0], device="cuda")
    tt = torch.randint(0, mlp.SIZES[-1], (mlp.BATCH,), device="cuda")
    loss_fn = torch.nn.CrossEntropyLoss()

    def theirs() -> None:
        toptimizer.zero_grad()
        loss_fn(tmodel(tx), tt).backward()
        toptimizer.step()

    return ours, theirs, "ms_per_step", 1


def resnet50() -> Workload:
    import chainer.links as L

    model = L.ResNet50Layers(pretrained_model=None)
    model.to_gpu()
    x = cuda.cupy.asarray(numpy.random.default_rng(0).normal(size=(32, 3, 224, 224)).astype(numpy.float32))

    def ours() -> None:
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            model(x, layers=["prob"])

    return ours, None, "ms_per_batch32", 1


class _LossMLP(static_bench.MLP):
    """The MLP and its loss in one chain (``forward(x, t)`` returns the loss)."""

    def define_by_run(self, x, t):
        return F.softmax_cross_entropy(static_bench.MLP.define_by_run(self, x), t)

    forward = define_by_run


class _StaticLossMLP(_LossMLP):
    forward = chainer.static_graph(_LossMLP.define_by_run)


def _static(sizes: tuple[int, ...], batch: int, adam: bool, loss_inside: bool) -> Workload:
    """Our step define-by-run (first), with static_graph (a variant), and PyTorch eager."""
    cp = cuda.cupy
    rng = numpy.random.default_rng(1)
    x = cp.asarray(rng.normal(size=(batch, sizes[0])).astype(numpy.float32))
    t = cp.asarray(rng.integers(0, sizes[-1], batch).astype(numpy.int32))

    def make(cls: type) -> Callable[[], None]:
        model = cls(sizes)
        model.to_gpu()
        optimizer = (optimizers.Adam() if adam else optimizers.MomentumSGD(lr=0.01)).setup(model)

        def step() -> None:
            model.cleargrads()
            loss = model(x, t) if loss_inside else F.softmax_cross_entropy(model(x), t)
            loss.backward()
            optimizer.update()

        return step

    dynamic = make(_LossMLP if loss_inside else static_bench.MLP)
    static = make(_StaticLossMLP if loss_inside else static_bench.StaticMLP)
    variants = {"static_graph": static}
    torch = _torch()
    if torch is None:
        return dynamic, None, "ms_per_step", 1, variants
    layers: list[Any] = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(torch.nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    tmodel = torch.nn.Sequential(*layers).cuda()
    params = tmodel.parameters()
    toptimizer = torch.optim.Adam(params) if adam else torch.optim.SGD(params, lr=0.01, momentum=0.9)
    tx = torch.as_tensor(x, device="cuda")
    tt = torch.as_tensor(t.astype(numpy.int64), device="cuda")
    loss_fn = torch.nn.CrossEntropyLoss()

    def theirs() -> None:
        toptimizer.zero_grad()
        loss_fn(tmodel(tx), tt).backward()
        toptimizer.step()

    return dynamic, theirs, "ms_per_step", 1, variants


class _CNN(chainer.Chain):
    """The CNN of ``cnn.py`` as a chain, for the optimizers (``cnn_optim``)."""

    def __init__(self, host_params: list[Any]) -> None:
        super().__init__()
        with self.init_scope():
            for name, array in zip(("W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4"), host_params):
                setattr(self, name, chainer.Parameter(array.copy()))

    def define_by_run(self, x: Any, t: Any) -> Any:
        h = F.max_pooling_2d(F.relu(F.convolution_2d(x, self.W1, self.b1, pad=1)), 2)
        h = F.max_pooling_2d(F.relu(F.convolution_2d(h, self.W2, self.b2, pad=1)), 2)
        h = F.relu(F.linear(h, self.W3, self.b3))
        return F.softmax_cross_entropy(F.linear(h, self.W4, self.b4), t)

    forward = define_by_run


class _StaticCNN(_CNN):
    forward = chainer.static_graph(_CNN.define_by_run)


def cnn_optim() -> Workload:
    """The CNN step with the frameworks' optimizers (MomentumSGD, torch.optim.SGD) instead
    of the update loop on arrays of ``cnn.py``; ours define-by-run and with static_graph."""
    cp = cuda.cupy
    rng = numpy.random.default_rng(0)
    host_params = cnn.make_params(rng)
    x_host = rng.standard_normal((cnn.BATCH, 3, 32, 32)).astype(numpy.float32)
    t_host = rng.integers(0, cnn.CLASSES, cnn.BATCH).astype(numpy.int32)
    x, t = cp.asarray(x_host), cp.asarray(t_host)

    def make(cls: type) -> Callable[[], None]:
        model = cls(host_params)
        model.to_gpu()
        optimizer = optimizers.MomentumSGD(lr=cnn.LR, momentum=cnn.MOMENTUM).setup(model)

        def step() -> None:
            model.cleargrads()
            model(x, t).backward()
            optimizer.update()

        return step

    variants = {"static_graph": make(_StaticCNN)}
    torch = _torch()
    if torch is None:
        return make(_CNN), None, "ms_per_step", 1, variants
    tparams = [torch.from_numpy(a).cuda().requires_grad_() for a in host_params]
    toptimizer = torch.optim.SGD(tparams, lr=cnn.LR, momentum=cnn.MOMENTUM)
    tx = torch.from_numpy(x_host).cuda()
    tt = torch.from_numpy(t_host.astype(numpy.int64)).cuda()
    tf = torch.nn.functional
    torch.backends.cudnn.benchmark = True

    def theirs() -> None:
        W1, b1, W2, b2, W3, b3, W4, b4 = tparams
        h = tf.max_pool2d(tf.relu(tf.conv2d(tx, W1, b1, padding=1)), 2)
        h = tf.max_pool2d(tf.relu(tf.conv2d(h, W2, b2, padding=1)), 2)
        h = tf.relu(tf.linear(h.reshape(len(tx), -1), W3, b3))
        toptimizer.zero_grad()
        tf.cross_entropy(tf.linear(h, W4, b4), tt).backward()
        toptimizer.step()

    return make(_CNN), theirs, "ms_per_step", 1, variants


def static_small() -> Workload:
    return _static((784, 100, 100, 10), 64, adam=False, loss_inside=False)


def static_small_loss() -> Workload:
    return _static((784, 100, 100, 10), 64, adam=False, loss_inside=True)


def static_mlp() -> Workload:
    return _static(mlp.SIZES, mlp.BATCH, adam=True, loss_inside=False)


BENCHMARKS = {
    "overhead": overhead,
    "cnn": cnn_step,
    "cnn_large": cnn_large,
    "mlp": mlp_step,
    "resnet50": resnet50,
    "cnn_optim": cnn_optim,
    "static_small": static_small,
    "static_small_loss": static_small_loss,
    "static_mlp": static_mlp,
}


def run(name: str) -> dict[str, float | None]:
    """Our figure (and on im2col, where cuDNN is in use), and PyTorch's (None without
    PyTorch CUDA), for one workload."""
    ours, theirs, unit, per_step, *more = BENCHMARKS[name]()
    scale = (1e6 if unit.startswith("us") else 1e3) / per_step
    funcs = [ours]
    labels = [f"chainer_{unit}"]
    for label, func in (more[0] if more else {}).items():
        funcs.append(func)
        labels.append(f"chainer_{label}_{unit}")
    if cuda.cudnn_enabled and name in _CONVOLUTIONAL:

        def ours_im2col() -> None:
            with chainer.using_config("use_cudnn", "never"):
                ours()

        funcs.append(ours_im2col)
        labels.append(f"chainer_im2col_{unit}")
    if theirs is not None:
        funcs.append(theirs)
    times = _interleaved(
        funcs, _sync_all, repeat=5 if name == "resnet50" else 9, number=3 if name == "resnet50" else 10
    )
    result: dict[str, float | None] = {label: t * scale for label, t in zip(labels, times)}
    result[f"torch_{unit}"] = times[-1] * scale if theirs is not None else None
    return result


def profile(name: str) -> None:
    import cProfile
    import pstats

    name, _, variant = name.partition(":")  # name:variant profiles that variant of ours
    workload = BENCHMARKS[name]()
    step = workload[4][variant] if variant else workload[0]
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
    from chainer.backends import cudnn_library

    print(
        f"cuDNN: {'in use' if cuda.cudnn_enabled else 'not in use: ' + str(cudnn_library.status()[1])}; TF32: {_TF32}"
    )
    if _TF32:
        chainer.global_config.use_cudnn_tensor_core = "always"
    for name in names or list(BENCHMARKS):
        result = run(name)
        print(f"== gpu {name}")
        for key, value in result.items():
            print(f"  {key}: {'n/a' if value is None else f'{value:.3f}'}")
        values = list(result.values())
        ours, theirs = values[0], values[-1]
        if ours and theirs:
            print(f"  ratio chainer/torch: {ours / theirs:.2f}x")
        for label, value in list(result.items())[1:-1]:
            if value and theirs:
                print(f"  ratio {label}/torch: {value / theirs:.2f}x; chainer/{label}: {ours / value:.2f}x")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
