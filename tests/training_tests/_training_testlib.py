"""Small links, losses and data for the chainer-training tests.

``L`` and ``F`` are chainer.links / chainer.functions where they already provide what
the documentation's programs use (Linear, Classifier, the losses and accuracies), and
stand-ins written here otherwise, so the programs run as written either way.
"""

from __future__ import annotations

import types

import numpy

import chainer
import chainer.functions as _F
from chainer import initializers, reporter


class Linear(chainer.Link):
    """y = x W^T + b, with the input size inferred at the first call when it is None."""

    def __init__(self, in_size, out_size=None, nobias=False, initialW=None):
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.out_size = out_size
        with self.init_scope():
            self.W = chainer.Parameter(initializers.LeCunNormal() if initialW is None else initialW)
            if in_size is not None:
                self.W.initialize((out_size, in_size))
            self.b = None if nobias else chainer.Parameter(0.0, (out_size,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, int(numpy.prod(x.shape[1:]))))
        if x.ndim > 2:
            x = _F.reshape(x, (x.shape[0], -1))
        return _F.linear(x, self.W, self.b)


def softmax_cross_entropy(y, t):
    log_p = _F.log_softmax(y)
    return -_F.sum(_F.select_item(log_p, t)) / y.shape[0]


def accuracy(y, t):
    y = chainer.as_array(y)
    xp = chainer.backend.get_array_module(y)
    return chainer.Variable(xp.asarray((y.argmax(axis=1) == t).mean(), dtype=y.dtype))


def sigmoid_cross_entropy(x, t):
    t = chainer.as_array(t).astype(x.dtype)
    return _F.sum(_F.softplus(x) - x * t) / x.size


def binary_accuracy(y, t):
    y = chainer.as_array(y)
    return chainer.Variable(numpy.asarray(((y >= 0) == (t == 1)).mean(), dtype=y.dtype))


class Classifier(chainer.Chain):
    def __init__(self, predictor, lossfun=softmax_cross_entropy, accfun=accuracy):
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        with self.init_scope():
            self.predictor = predictor

    def forward(self, x, t):
        self.y = self.predictor(x)
        self.loss = self.lossfun(self.y, t)
        reporter.report({"loss": self.loss}, self)
        self.accuracy = self.accfun(self.y, t)
        reporter.report({"accuracy": self.accuracy}, self)
        return self.loss


def _links_namespace():
    try:
        import chainer.links as real
    except ImportError:  # chainer-links is not installed (chainer-training alone)
        real = None
    if real is not None and all(hasattr(real, name) for name in ("Linear", "Classifier")):
        return real
    return types.SimpleNamespace(Linear=Linear, Classifier=Classifier)


class _FunctionsNamespace(types.ModuleType):
    """chainer.functions, with stand-ins for the losses it does not have yet."""

    def __getattr__(self, name):
        return getattr(_F, name)


def _functions_namespace():
    needed = {
        "softmax_cross_entropy": softmax_cross_entropy,
        "accuracy": accuracy,
        "sigmoid_cross_entropy": sigmoid_cross_entropy,
        "binary_accuracy": binary_accuracy,
    }
    if all(hasattr(_F, name) for name in needed):
        return _F
    ns = _FunctionsNamespace("F")
    for name, fn in needed.items():
        if not hasattr(_F, name):
            setattr(ns, name, fn)
    return ns


L = _links_namespace()
F = _functions_namespace()


class MLP(chainer.Chain):
    def __init__(self, n_units=4, n_out=3):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(None, n_units)
            self.l2 = Linear(None, n_out)

    def forward(self, x):
        return self.l2(_F.relu(self.l1(x)))


def classification_data(n=40, n_in=5, n_out=3, seed=0, dtype=numpy.float32):
    """A learnable synthetic classification set: labels from a random linear map."""
    rng = numpy.random.RandomState(seed)
    x = rng.standard_normal((n, n_in)).astype(dtype)
    w = rng.standard_normal((n_in, n_out))
    t = (x @ w).argmax(axis=1).astype(numpy.int32)
    return chainer.datasets.TupleDataset(x, t)


def make_trainer(tmp_path, *, n=40, batch_size=8, stop=(3, "epoch"), lr=0.1, seed=0, shuffle=True, model=None):
    """A small classification trainer on CPU (SGD, SerialIterator)."""
    dataset = classification_data(n=n, seed=seed)
    model = model or Classifier(MLP())
    optimizer = chainer.optimizers.SGD(lr=lr).setup(model)
    it = chainer.iterators.SerialIterator(dataset, batch_size, shuffle=shuffle)
    updater = chainer.training.updaters.StandardUpdater(it, optimizer, device=-1)
    return chainer.training.Trainer(updater, stop, out=str(tmp_path / "result"))


class FakeUpdater:
    """Counters of an updater reading batches of ``batch_size`` from ``size`` examples
    (as SerialIterator does: an epoch ends inside a batch when size % batch_size != 0)."""

    def __init__(self, size=10, batch_size=3):
        self.size = size
        self.batch_size = batch_size
        self.iteration = 0

    @property
    def epoch_detail(self):
        return self.iteration * self.batch_size / self.size

    @property
    def epoch(self):
        return int(self.epoch_detail)

    @property
    def previous_epoch_detail(self):
        return None if self.iteration == 0 else (self.iteration - 1) * self.batch_size / self.size

    @property
    def is_new_epoch(self):
        return self.iteration > 0 and int(self.previous_epoch_detail) != self.epoch

    def update(self):
        self.iteration += 1

    def serialize(self, serializer):
        self.iteration = int(serializer("iteration", self.iteration))


class FakeTrainer:
    """What triggers and reports read from a trainer: ``updater``, ``observation``,
    ``elapsed_time``, ``is_before_training``."""

    def __init__(self, size=10, batch_size=3):
        self.updater = FakeUpdater(size, batch_size)
        self.observation = {}
        self.elapsed_time = 0.0

    @property
    def is_before_training(self):
        return self.updater.iteration == 0


def fire_sequence(trigger, trainer, n, observations=None):
    """Advance ``trainer`` n iterations, calling ``trigger`` after each; return the
    iterations at which it fired."""
    fired = []
    for i in range(n):
        trainer.updater.update()
        trainer.observation = observations[i] if observations is not None else {}
        if trigger(trainer):
            fired.append(trainer.updater.iteration)
    return fired


def save_and_load(src, dst):
    """Save ``src`` to an in-memory NPZ dict and load it into ``dst`` (through the
    two-pass load of chainer.serializers)."""
    import io

    from chainer import serializers

    buf = io.BytesIO()
    serializers.save_npz(buf, src)
    buf.seek(0)
    serializers.load_npz(buf, dst)


class Regression(chainer.Link):
    """loss = mean over the batch of sum((x W^T + b - t) ** 2); reports 'loss'."""

    def __init__(self, n_in=3, n_out=2, seed=0):
        super().__init__()
        rng = numpy.random.RandomState(seed)
        with self.init_scope():
            self.W = chainer.Parameter(rng.standard_normal((n_out, n_in)).astype(numpy.float32))
            self.b = chainer.Parameter(rng.standard_normal(n_out).astype(numpy.float32))

    def forward(self, x, t):
        d = _F.linear(x, self.W, self.b) - t
        loss = _F.sum(d * d) / x.shape[0]
        reporter.report({"loss": loss}, self)
        return loss


def regression_grads(W, b, x, t):
    """The gradients of Regression's loss, written with NumPy."""
    d = x @ W.T + b - t
    n = x.shape[0]
    return 2 * d.T @ x / n, 2 * d.sum(axis=0) / n


def regression_data(n=12, n_in=3, n_out=2, seed=1):
    rng = numpy.random.RandomState(seed)
    x = rng.standard_normal((n, n_in)).astype(numpy.float32)
    t = rng.standard_normal((n, n_out)).astype(numpy.float32)
    return x, t


class HyperOptimizer:
    """Just the attributes a shift extension sets (``lr``, ``momentum``...)."""

    def __init__(self, **attrs):
        self.__dict__.update(attrs)


def run_schedule(extension, optimizer, n, trainer=None):
    """Initialize ``extension`` and call it n times; return the attribute values after
    initialize and after each call (the attribute is ``extension._attr``)."""
    trainer = trainer or FakeTrainer()
    extension.initialize(trainer)
    values = [getattr(optimizer, extension._attr)]
    for _ in range(n):
        trainer.updater.update()
        extension(trainer)
        values.append(getattr(optimizer, extension._attr))
    return values
