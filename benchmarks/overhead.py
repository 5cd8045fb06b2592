"""Per-op overhead: a 100-step chain of tanh(h * 0.5 + 0.1) on 10 float32 elements,
then sum(h).backward(). Reported as microseconds per op (3 ops per step)."""

from __future__ import annotations

import numpy

import chainer
import chainer.functions as F

try:
    from benchmarks import _timing
except ImportError:  # run as a script from the benchmarks folder
    import _timing

STEPS = 100
OPS = 3 * STEPS


def chainer_step() -> None:
    x = chainer.Variable(numpy.ones(10, dtype=numpy.float32))
    h = x
    for _ in range(STEPS):
        h = F.tanh(h * 0.5 + 0.1)
    F.sum(h).backward()


def torch_step(torch) -> None:
    x = torch.ones(10, dtype=torch.float32, requires_grad=True)
    h = x
    for _ in range(STEPS):
        h = torch.tanh(h * 0.5 + 0.1)
    torch.sum(h).backward()


def run() -> dict[str, float | None]:
    ours = _timing.best_of(chainer_step) / OPS * 1e6
    torch = _timing.torch_or_none()
    theirs = None
    if torch is not None:
        torch.set_num_threads(1)
        theirs = _timing.best_of(lambda: torch_step(torch)) / OPS * 1e6
    return {"chainer_us_per_op": ours, "torch_us_per_op": theirs}


if __name__ == "__main__":
    result = run()
    print(f"chainer: {result['chainer_us_per_op']:.2f} us/op")
    if result["torch_us_per_op"] is not None:
        print(
            f"torch:   {result['torch_us_per_op']:.2f} us/op  (ratio {result['chainer_us_per_op'] / result['torch_us_per_op']:.2f}x)"
        )
