"""MLP training step: 784-1000-1000-10 with ReLU, batch 100, softmax cross-entropy, Adam.
Reported as milliseconds per step (forward, backward, update), next to PyTorch CPU."""

from __future__ import annotations

import sys

import numpy

import chainer
import chainer.functions as F
from chainer import optimizers

try:
    from benchmarks import _timing
except ImportError:  # run as a script from the benchmarks folder
    import _timing

BATCH = 100
SIZES = (784, 1000, 1000, 10)


class MLP(chainer.Chain):
    def __init__(self) -> None:
        super().__init__()
        rng = numpy.random.default_rng(0)
        with self.init_scope():
            for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
                setattr(
                    self, f"W{i}", chainer.Parameter(rng.normal(0, n_in**-0.5, (n_out, n_in)).astype(numpy.float32))
                )
                setattr(self, f"b{i}", chainer.Parameter(numpy.zeros(n_out, numpy.float32)))

    def forward(self, x):
        h = x
        for i in range(len(SIZES) - 1):
            h = F.linear(h, getattr(self, f"W{i}"), getattr(self, f"b{i}"))
            if i < len(SIZES) - 2:
                h = F.relu(h)
        return h


def _loss(y, t):
    if hasattr(F, "softmax_cross_entropy"):
        return F.softmax_cross_entropy(y, t)
    return -F.sum(F.select_item(F.log_softmax(y), t)) / y.shape[0]


def chainer_setup():
    model = MLP()
    optimizer = optimizers.Adam().setup(model)
    rng = numpy.random.default_rng(1)
    x = rng.normal(size=(BATCH, SIZES[0])).astype(numpy.float32)
    t = rng.integers(0, SIZES[-1], BATCH).astype(numpy.int32)

    def step() -> None:
        model.cleargrads()
        loss = _loss(model(x), t)
        loss.backward()
        optimizer.update()

    return step


def torch_model(torch):
    """The same MLP as a PyTorch module (on the CPU)."""
    layers = []
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(torch.nn.Linear(n_in, n_out))
        if i < len(SIZES) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def torch_setup(torch):
    model = torch_model(torch)
    optimizer = torch.optim.Adam(model.parameters())
    x = torch.randn(BATCH, SIZES[0])
    t = torch.randint(0, SIZES[-1], (BATCH,))
    loss_fn = torch.nn.CrossEntropyLoss()

    def step() -> None:
        optimizer.zero_grad()
        loss = loss_fn(model(x), t)
        loss.backward()
        optimizer.step()

    return step


def run() -> dict[str, float | None]:
    """Milliseconds per step, ours and PyTorch's (as many threads as NumPy's BLAS), each
    measured in fresh processes in alternation (see ``_timing.fresh_process_best``)."""
    sides = _timing.cpu_sides()
    best = _timing.fresh_process_best("mlp.py", sides=sides)
    theirs = best.get("torch")
    result = {"chainer_ms_per_step": best["ours"] * 1e3, "torch_ms_per_step": None if theirs is None else theirs * 1e3}
    if "numpy" in sides:  # ours again without chainer-cpu-kernels, for comparison
        result["numpy_only_ms_per_step"] = best["numpy"] * 1e3
    if "intel64" in sides:  # ours on '@intel64' (oneDNN, use_ideep='auto')
        result["intel64_ms_per_step"] = best["intel64"] * 1e3
    return result


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--side":
        _timing.print_side(sys.argv[2], chainer_setup, torch_setup, number=10)
        sys.exit(0)
    result = run()
    print(
        f"chainer: {result['chainer_ms_per_step']:.2f} ms/step (compiled kernels: {_timing.compiled_kernel_plugins() or 'none'})"
    )
    if "numpy_only_ms_per_step" in result:
        print(f"chainer without compiled kernels: {result['numpy_only_ms_per_step']:.2f} ms/step")
    if "intel64_ms_per_step" in result:
        print(f"chainer on @intel64 (use_ideep='auto'): {result['intel64_ms_per_step']:.2f} ms/step")
    if result["torch_ms_per_step"] is not None:
        ratio = result["chainer_ms_per_step"] / result["torch_ms_per_step"]
        print(f"torch:   {result['torch_ms_per_step']:.2f} ms/step  (ratio {ratio:.2f}x)")
