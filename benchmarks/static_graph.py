"""chainer.static_graph against define-by-run on the same MLP training step.

Workloads: a training step (forward, softmax cross-entropy, backward, MomentumSGD
update) and the forward alone (with the graph recorded: the part a replay replaces) of
- mlp:   784-1000-1000-10 with ReLU, batch 100 (GEMM-bound on CPU);
- small: 784-100-100-10, batch 1 (bound by per-function Python overhead).

The two variants run in alternating rounds so that a busy machine slows both alike.
Each round is timed by the wall clock and by the CPU time of the process (all BLAS
threads included), which a loaded machine disturbs much less. Reported are the best
round of each variant and the median of the per-round ratios (define-by-run time over
static time: above 1 means the static graph is faster).

Measured on the 2-core development machine (shared, loaded), OpenBLAS with one
thread, CPU time, best of 15 alternating rounds, ranges over 4 alternations of the
code before and after the recorded backward (2026-11-27, with the traversal's
parameter gradients as arrays of main 61fd5f6 in both):

- small forward: define-by-run 34.9-36.2 us; static 34.7-35.5 us before (ratio
  0.99-1.02), 28.9-29.4 us after (1.19-1.25x): the fast replay runs the nodes'
  forward on arrays and makes one node for the chain;
- small step: define-by-run 246-252 us; static 248-254 us before (ratio 0.98-1.00),
  255-263 us after (0.95-0.98): the backward now runs the recorded backward
  schedule, but most of it is the recorded nodes' own ``backward`` calls (each
  applies its gradient functions), which any replay must make; linking the
  nodes for them (their retained inputs are read through variable nodes, ~5 us)
  costs what the forward saved, and the chain's node and the replay loop a few us
  more: the step is 2-5 % slower on the CPU. The recorded backward is a fixed sequence of
  kernel launches, the groundwork for capturing the step into a CUDA Graph on the GPU
  (see chainer/graph_optimizations/_replay.py); the optimizer update (~74 us) is
  not replayed;
- small step with the recorded optimizer update (chainer/graph_optimizations/_update.py,
  2026-11-27, ranges over 4 alternations of main a478e97 and the branch, same
  measurement): static 255.8-259.2 us before, 246.6-250.8 us after (ratio to
  define-by-run 0.950-0.962 before, 0.974-0.984 after); define-by-run 243.9-246.3 us
  before, 239.9-245.5 us after (owning the gradients got cheaper for both). The update
  alone, in the step: 75.8-76.7 us before, 67.6-68.5 us after. What is left of it is
  mostly the rules' own ``_update_param`` (hyperparameters looked up through their
  parents, the kernel looked up and the shapes checked at every call: ~21 us over the
  ~15 us the six compiled MomentumSGD kernels take on warm caches); taking that out
  needs the rules to hand the plan a prepared kernel call, which is also what a
  multi-tensor launch and a captured update on the GPU need;
- mlp (784-1000-1000-10, batch 100): GEMM-bound, about 90 % of the step; the runs
  of the day were too disturbed by other load to separate the variants (ratios
  0.74-1.03 both before and after).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy

import chainer
import chainer.functions as F
from chainer import optimizers

WORKLOADS = {"mlp": ((784, 1000, 1000, 10), 100), "small": ((784, 100, 100, 10), 1)}


class MLP(chainer.Chain):
    def __init__(self, sizes: tuple[int, ...]) -> None:
        super().__init__()
        rng = numpy.random.default_rng(0)
        self.n_layers = len(sizes) - 1
        with self.init_scope():
            for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
                w = rng.normal(0, n_in**-0.5, (n_out, n_in)).astype(numpy.float32)
                setattr(self, f"W{i}", chainer.Parameter(w))
                setattr(self, f"b{i}", chainer.Parameter(numpy.zeros(n_out, numpy.float32)))

    def define_by_run(self, x):
        h = x
        for i in range(self.n_layers):
            h = F.linear(h, getattr(self, f"W{i}"), getattr(self, f"b{i}"))
            if i < self.n_layers - 1:
                h = F.relu(h)
        return h

    forward = define_by_run


class StaticMLP(MLP):
    forward = chainer.static_graph(MLP.define_by_run)


def _loss(y, t):
    if hasattr(F, "softmax_cross_entropy"):
        return F.softmax_cross_entropy(y, t)
    return -F.sum(F.select_item(F.log_softmax(y), t)) / y.shape[0]


def _forward_function(cls: type, sizes: tuple[int, ...], batch: int):
    model = cls(sizes)
    x = numpy.random.default_rng(1).normal(size=(batch, sizes[0])).astype(numpy.float32)

    def forward() -> None:
        model(x)

    return forward


def _step_function(cls: type, sizes: tuple[int, ...], batch: int):
    model = cls(sizes)
    optimizer = optimizers.MomentumSGD(lr=0.01).setup(model)
    rng = numpy.random.default_rng(1)
    x = rng.normal(size=(batch, sizes[0])).astype(numpy.float32)
    t = rng.integers(0, sizes[-1], batch).astype(numpy.int32)

    def step() -> None:
        model.cleargrads()
        _loss(model(x), t).backward()
        optimizer.update()

    return step


def compare(
    sizes: tuple[int, ...], batch: int, rounds: int = 15, number: int = 20, make: Any = _step_function
) -> dict[str, float]:
    dynamic = make(MLP, sizes, batch)
    static = make(StaticMLP, sizes, batch)
    for _ in range(5):
        dynamic()
        static()
    result = {}
    for clock_name, clock in (("wall", time.perf_counter), ("cpu", time.process_time)):
        times: dict[str, list[float]] = {"dynamic": [], "static": []}
        for r in range(rounds):
            order = (("dynamic", dynamic), ("static", static))
            for name, step in order if r % 2 == 0 else order[::-1]:
                start = clock()
                for _ in range(number):
                    step()
                times[name].append((clock() - start) / number)
        ratios = [d / s for d, s in zip(times["dynamic"], times["static"])]
        result.update(
            {
                f"{clock_name}_define_by_run_ms_per_step": min(times["dynamic"]) * 1e3,
                f"{clock_name}_static_graph_ms_per_step": min(times["static"]) * 1e3,
                f"{clock_name}_speedup_median_of_rounds": statistics.median(ratios),
            }
        )
    return result


def run() -> dict[str, float | None]:
    result: dict[str, float | None] = {}
    for name, (sizes, batch) in WORKLOADS.items():
        rounds, number = (15, 10) if name == "mlp" else (15, 200)
        for key, value in compare(sizes, batch, rounds, number).items():
            result[f"{name}_step_{key}"] = value
        for key, value in compare(sizes, batch, rounds, number * 4, _forward_function).items():
            result[f"{name}_forward_{key}"] = value
    return result


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value:.4f}")
