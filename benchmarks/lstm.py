"""LSTM language-model training step on CPU, ours against PyTorch (issue 22).

The step every Chainer RNN tutorial has: token ids embedded (vocabulary 1000, 200 units),
an LSTM of 200 units, a linear layer back to 1000 logits; 35 time steps of a batch of 20;
``loss += F.softmax_cross_entropy(...)`` at every step, one backward, one SGD update.

Two models:
- ``cell``: ``L.LSTM`` applied step by step (PyTorch: ``nn.LSTMCell`` step by step), so the
  graph is long (hundreds of small functions) and every weight is used 35 times;
- ``nstep``: ``L.NStepLSTM`` over the whole sequences (PyTorch: ``nn.LSTM``), one loss
  over all 700 predictions.

    python benchmarks/lstm.py            [--profile [cell|nstep]] [--cpu-time]

Each side is timed in fresh processes, ours and PyTorch's in alternation
(``_timing.fresh_process_best``); milliseconds per training step. ``--cpu-time`` times
with the process's CPU time instead of the wall clock: with one BLAS thread
(``OPENBLAS_NUM_THREADS=1``; PyTorch then gets one too) that is the work of a step, which
other processes on a busy machine do not inflate the way they do wall time.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers

try:
    from benchmarks import _timing
except ImportError:  # run as a script from the benchmarks folder
    import _timing

VOCAB, UNITS, STEPS, BATCH = 1000, 200, 35, 20
LR = 0.1
MODELS = ("cell", "nstep")


def make_data() -> tuple[numpy.ndarray, numpy.ndarray]:
    """Token ids (STEPS, BATCH) and the next-token targets, as int32."""
    rng = numpy.random.default_rng(0)
    tokens = rng.integers(0, VOCAB, (STEPS + 1, BATCH)).astype(numpy.int32)
    return tokens[:-1], tokens[1:]


class CellLM(chainer.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(VOCAB, UNITS)
            self.lstm = L.LSTM(UNITS, UNITS)
            self.out = L.Linear(UNITS, VOCAB)

    def loss(self, xs: numpy.ndarray, ts: numpy.ndarray) -> chainer.Variable:
        self.lstm.reset_state()
        loss = 0
        for x, t in zip(xs, ts):
            loss += F.softmax_cross_entropy(self.out(self.lstm(self.embed(x))), t)
        return loss


class NStepLM(chainer.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(VOCAB, UNITS)
            self.lstm = L.NStepLSTM(1, UNITS, UNITS, 0.0)
            self.out = L.Linear(UNITS, VOCAB)

    def loss(self, xs: numpy.ndarray, ts: numpy.ndarray) -> chainer.Variable:
        # NStepLSTM takes one (time, units) sequence per batch member.
        embedded = self.embed(xs.T)  # (BATCH, STEPS, UNITS)
        _, _, ys = self.lstm(None, None, list(F.separate(embedded, axis=0)))
        h = F.concat(ys, axis=0)  # (BATCH * STEPS, UNITS), batch-major
        return F.softmax_cross_entropy(self.out(h), ts.T.reshape(-1))


def chainer_setup(model_name: str) -> Callable[[], Callable[[], None]]:
    def setup() -> Callable[[], None]:
        numpy.random.seed(0)
        model = CellLM() if model_name == "cell" else NStepLM()
        optimizer = optimizers.SGD(lr=LR).setup(model)
        xs, ts = make_data()

        def step() -> None:
            model.cleargrads()
            loss = model.loss(xs, ts)
            loss.backward()
            optimizer.update()

        return step

    return setup


def torch_setup(model_name: str) -> Callable[[Any], Callable[[], None]]:
    def setup(torch: Any) -> Callable[[], None]:
        torch.manual_seed(0)
        nn = torch.nn
        embed, out = nn.Embedding(VOCAB, UNITS), nn.Linear(UNITS, VOCAB)
        rnn = nn.LSTMCell(UNITS, UNITS) if model_name == "cell" else nn.LSTM(UNITS, UNITS)
        params = [*embed.parameters(), *rnn.parameters(), *out.parameters()]
        optimizer = torch.optim.SGD(params, lr=LR)
        xs_np, ts_np = make_data()
        xs, ts = torch.from_numpy(xs_np.astype(numpy.int64)), torch.from_numpy(ts_np.astype(numpy.int64))
        cross_entropy = nn.functional.cross_entropy

        def cell_loss() -> Any:
            h = c = torch.zeros(BATCH, UNITS)
            loss = 0
            for x, t in zip(xs, ts):
                h, c = rnn(embed(x), (h, c))
                loss = loss + cross_entropy(out(h), t)
            return loss

        def nstep_loss() -> Any:
            ys, _ = rnn(embed(xs))  # (STEPS, BATCH, UNITS)
            return cross_entropy(out(ys.reshape(-1, UNITS)), ts.reshape(-1))

        loss_fn = cell_loss if model_name == "cell" else nstep_loss

        def step() -> None:
            optimizer.zero_grad()
            loss_fn().backward()
            optimizer.step()

        return step

    return setup


def run(cpu_time: bool = False) -> dict[str, float | None]:
    """Milliseconds per step of each model, ours and PyTorch's, each measured in fresh
    processes in alternation (``_timing.fresh_process_best``)."""
    result: dict[str, float | None] = {}
    for model_name in MODELS:
        extra = ("--model", model_name) + (("--cpu-time",) if cpu_time else ())
        best = _timing.fresh_process_best("lstm.py", rounds=3, extra=extra)
        theirs = best.get("torch")
        result[f"chainer_{model_name}_ms_per_step"] = best["ours"] * 1e3
        result[f"torch_{model_name}_ms_per_step"] = None if theirs is None else theirs * 1e3
    return result


def profile(model_name: str) -> None:
    import cProfile
    import pstats

    step = chainer_setup(model_name)()
    step()
    profiler = cProfile.Profile(time.perf_counter)
    profiler.enable()
    for _ in range(10):
        step()
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def main(argv: list[str]) -> int:
    model_name = argv[argv.index("--model") + 1] if "--model" in argv else "cell"
    if "--profile" in argv:
        rest = argv[argv.index("--profile") + 1 :]
        profile(rest[0] if rest and rest[0] in MODELS else model_name)
        return 0
    cpu_time = "--cpu-time" in argv
    if "--side" in argv:
        side = argv[argv.index("--side") + 1]
        clock = time.process_time if cpu_time else time.perf_counter
        _timing.print_side(side, chainer_setup(model_name), torch_setup(model_name), number=2, clock=clock)
        return 0
    result = run(cpu_time)
    for model_name in MODELS:
        ours, theirs = result[f"chainer_{model_name}_ms_per_step"], result[f"torch_{model_name}_ms_per_step"]
        line = f"{model_name}: chainer {ours:.2f} ms/step"
        if ours is not None and theirs is not None:
            line += f", torch {theirs:.2f} ms/step (ratio {ours / theirs:.2f}x)"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
