"""Links shared by the serializer tests (chainer.links is another distribution)."""

import numpy
import pytest

import chainer
import chainer.functions as F


class Linear(chainer.Link):
    def __init__(self, in_size, out_size=None):
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.out_size = out_size
        with self.init_scope():
            w = None if in_size is None else numpy.random.uniform(-1, 1, (out_size, in_size)).astype(numpy.float32)
            self.W = chainer.Parameter(w)
            self.b = chainer.Parameter(numpy.random.uniform(-1, 1, out_size).astype(numpy.float32))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        return F.linear(x, self.W, self.b)


class Norm(chainer.Link):
    """Holds persistents like BatchNormalization: avg_mean, avg_var, N."""

    def __init__(self, size):
        super().__init__()
        with self.init_scope():
            self.gamma = chainer.Parameter(numpy.ones(size, numpy.float32))
        self.add_persistent("avg_mean", numpy.random.uniform(-1, 1, size).astype(numpy.float32))
        self.add_persistent("avg_var", numpy.random.uniform(0, 1, size).astype(numpy.float32))
        self.add_persistent("N", 7)


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(3, 4)
            self.bn = Norm(4)
            self.l2 = Linear(None, 2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class Classifier(chainer.Chain):
    def __init__(self, predictor):
        super().__init__()
        with self.init_scope():
            self.predictor = predictor


EXPECTED_KEYS = [
    "predictor/bn/N",
    "predictor/bn/avg_mean",
    "predictor/bn/avg_var",
    "predictor/bn/gamma",
    "predictor/l1/W",
    "predictor/l1/b",
    "predictor/l2/W",
    "predictor/l2/b",
]


def snapshot(link):
    """Copies of every parameter and persistent value, by path."""
    state = {}
    for path, param in link.namedparams():
        state[path] = None if param.array is None else param.array.copy()
    for path, sub in link.namedlinks():
        for name in sorted(sub._persistent):
            value = sub.__dict__[name]
            state[path.rstrip("/") + "/" + name] = value.copy() if isinstance(value, numpy.ndarray) else value
    return state


def assert_same_state(a, b):
    assert sorted(a) == sorted(b)
    for key in a:
        if a[key] is None or b[key] is None:
            assert a[key] is None and b[key] is None, key
        else:
            numpy.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.fixture
def model():
    numpy.random.seed(1)
    return Classifier(MLP())


@pytest.fixture
def h():
    """The helpers above, for the test modules (conftest cannot be imported by name)."""
    import types

    return types.SimpleNamespace(
        Linear=Linear,
        Norm=Norm,
        MLP=MLP,
        Classifier=Classifier,
        EXPECTED_KEYS=EXPECTED_KEYS,
        snapshot=snapshot,
        assert_same_state=assert_same_state,
    )
