"""Tests of chainer.Sequential."""

import functools
import pickle
import types

import numpy
import pytest

import chainer
import chainer as ch
import chainer.functions as F


class _Normal(chainer.Initializer):
    def __call__(self, array):
        array[...] = numpy.random.standard_normal(array.shape)


class Linear(chainer.Link):
    """A small Linear link (chainer.links is another distribution)."""

    def __init__(self, in_size, out_size=None):
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.out_size = out_size
        with self.init_scope():
            self.W = chainer.Parameter(_Normal(), None if in_size is None else (out_size, in_size))
            self.b = chainer.Parameter(_Normal(), (out_size,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        return F.linear(x, self.W, self.b)


L = types.SimpleNamespace(Linear=Linear)


def _relu(x):
    return numpy.maximum(x, 0)


def _linear(x, link):
    return x @ link.W.array.T + link.b.array


def test_docs_mushroom_mlp():
    # The network definition of the docs' "Mushrooms" example, verbatim.
    def MLP(n_units, n_out):
        layer = ch.Sequential(L.Linear(n_units), F.relu)
        model = layer.repeat(2)
        model.append(L.Linear(n_out))

        return model

    model = MLP(44, 1)
    assert len(model) == 3
    assert isinstance(model[0], ch.Sequential) and isinstance(model[1], ch.Sequential)
    assert model[0][1] is F.relu
    x = numpy.random.uniform(-1, 1, (5, 22)).astype(numpy.float32)
    y = model(x)
    first, second, last = model[0][0], model[1][0], model[2]
    # The shapes the docs describe: 44x22, 44x44 and 1x44.
    assert first.W.shape == (44, 22) and second.W.shape == (44, 44) and last.W.shape == (1, 44)
    # repeat() made independent copies: different initial values
    assert not numpy.array_equal(first.b.array, second.b.array)
    expected = _linear(_relu(_linear(_relu(_linear(x, first)), second)), last)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)
    assert [name for name, _ in model.namedparams()] == ["/0/0/W", "/0/0/b", "/1/0/W", "/1/0/b", "/2/W", "/2/b"]


def test_children_are_the_links_in_layer_order():
    a, b = Linear(2, 3), Linear(3, 2)
    seq = ch.Sequential(a, F.relu, b)
    assert list(seq.children()) == [a, b]
    assert [child.name for child in seq.children()] == ["0", "1"]
    assert [name for name, _ in seq.namedlinks(skipself=True)] == ["/0", "/1"]


def test_list_operations_keep_children_consistent():
    a, b, c = Linear(2, 2), Linear(2, 2), Linear(2, 2)
    seq = ch.Sequential(a, F.relu)
    seq.append(b)
    seq.insert(0, F.tanh)
    seq.insert(-1, c)
    assert seq[:] == [F.tanh, a, F.relu, c, b]
    assert list(seq.children()) == [a, c, b]
    assert len(seq) == 5
    assert seq.index(c) == 3
    assert seq.count(F.relu) == 1
    assert seq.pop() is b
    assert [child.name for child in seq.children()] == ["0", "1"]
    seq.remove(a)
    assert seq[:] == [F.tanh, F.relu, c]
    assert list(seq.children())[0] is c and c.name == "0"
    del seq[0]
    assert seq[:] == [F.relu, c]
    seq[0] = a
    assert seq[:] == [a, c]
    assert [child.name for child in seq.children()] == ["0", "1"]
    assert list(seq.children())[0] is a
    del seq[:]
    assert len(seq) == 0 and len(list(seq.children())) == 0


def test_clear_extend_iter():
    a = Linear(2, 2)
    seq = ch.Sequential(a, F.relu)
    other = ch.Sequential(F.sigmoid)
    seq.extend(other)
    assert list(seq) == [a, F.relu, F.sigmoid]
    seq.clear()
    assert len(seq) == 0 and list(seq.children()) == []


def test_index_errors():
    seq = ch.Sequential(F.relu)
    with pytest.raises(ValueError, match="not a layer"):
        seq.index(F.tanh)
    with pytest.raises(IndexError, match="out of range"):
        seq.pop(3)
    with pytest.raises(ValueError, match="must be callable"):
        seq.append(3)
    with pytest.raises(ValueError, match="must be callable"):
        ch.Sequential(F.relu, "relu")
    with pytest.raises(TypeError, match="slice assignment"):
        seq[0:1] = [F.tanh]


def test_count_and_remove_by_layer_type():
    seq = ch.Sequential(Linear(2, 2), F.relu, Linear(2, 2), F.relu, functools.partial(F.relu))
    assert seq.count_by_layer_type("Linear") == 2
    assert seq.count_by_layer_type("relu") == 2
    assert seq.count_by_layer_type("partial") == 1
    seq.remove_by_layer_type("relu")
    assert seq.count_by_layer_type("relu") == 0 and len(seq) == 3
    assert [child.name for child in seq.children()] == ["0", "1"]


def test_flatten():
    a, b, c = Linear(2, 2), Linear(2, 2), Linear(2, 2)
    inner = ch.Sequential(b, F.relu)
    seq = ch.Sequential(a, ch.Sequential(inner, c))
    flat = seq.flatten()
    layers = list(flat)
    assert len(layers) == 4
    assert layers[0] is a and layers[1] is b and layers[2] is F.relu and layers[3] is c


def test_forward_unpacks_tuples():
    def split(x):
        return x, 2 * x

    def add(x, y):
        return x + y

    seq = ch.Sequential(split, add)
    assert seq(3) == 9
    seq2 = ch.Sequential(add)
    assert seq2(1, 2) == 3


def test_forward_of_empty_model():
    with pytest.raises(RuntimeError, match="no layer"):
        ch.Sequential()(1)


def test_add_iadd_mul():
    a, b = Linear(2, 2), Linear(2, 2)
    s1, s2 = ch.Sequential(a), ch.Sequential(F.relu, b)
    s3 = s1 + s2
    assert list(s3)[0] is a and list(s3)[2] is b and len(s3) == 3
    assert len(s1) == 1 and len(s2) == 2  # operands unchanged
    s4 = s1 + F.relu
    assert list(s4)[1] is F.relu
    s5 = F.tanh + s1
    assert list(s5)[0] is F.tanh
    s1 += s2
    assert len(s1) == 3
    s1 += F.sigmoid
    assert list(s1)[-1] is F.sigmoid
    tripled = ch.Sequential(Linear(2, 2), F.relu) * 3
    assert len(tripled) == 3 and all(isinstance(layer, ch.Sequential) for layer in tripled)
    assert len(2 * ch.Sequential(F.relu)) == 2
    # Neither a Sequential nor a layer: a ValueError, as in Chainer 7.
    with pytest.raises(ValueError, match="the \\+ operator takes a Sequential or a callable layer, got int"):
        s1 + 3
    with pytest.raises(ValueError, match="the \\+= operator"):
        s1 += 3


def test_copy_share_rebuilds_layers():
    a = Linear(2, 2)
    seq = ch.Sequential(a, F.relu)
    c = seq.copy()
    layers = list(c)
    assert layers[0] is not a and layers[0].W.array is a.W.array
    assert layers[1] is F.relu
    assert list(c.children())[0] is layers[0]


def test_copy_copy_and_copyparams():
    seq = ch.Sequential(Linear(2, 2), F.relu, Linear(2, 1))
    c = seq.copy(mode="copy")
    for p, q in zip(seq.params(), c.params()):
        numpy.testing.assert_array_equal(p.array, q.array)
        assert p.array is not q.array
    other = ch.Sequential(Linear(2, 2), F.relu, Linear(2, 1))
    other.copyparams(seq)
    for p, q in zip(seq.params(), other.params()):
        numpy.testing.assert_array_equal(p.array, q.array)
    with pytest.raises(TypeError, match="only copy from a Sequential"):
        other.copyparams(chainer.ChainList(Linear(2, 2), Linear(2, 1)))


def test_repr():
    seq = ch.Sequential(Linear(2, 2), F.relu)
    assert repr(seq) == "Sequential(\n  (0): Linear(),\n  (1): relu,\n)"


def test_repr_shows_the_source_of_lambdas():
    # Two lambdas on one line: each is printed as its own expression.
    first, second = (lambda x: F.leaky_relu(x, slope=0.2)), (lambda y: y * 2)
    partial = functools.partial(F.leaky_relu, slope=0.3)
    seq = ch.Sequential(first, second, partial)
    lines = repr(seq).splitlines()
    assert lines[1] == "  (0): lambda x: F.leaky_relu(x, slope=0.2),"
    assert lines[2] == "  (1): lambda y: y * 2,"
    assert lines[3] == f"  (2): {partial!r},"


def test_pickling_refuses_lambdas_but_copies_keep_them():
    double = lambda x: 2 * x
    seq = ch.Sequential(Linear(2, 2), double)
    with pytest.raises(ValueError, match="cannot pickle a model with a lambda"):
        pickle.dumps(seq)
    copied = seq.copy(mode="copy")
    assert list(copied)[1] is double
    assert len(pickle.dumps(ch.Sequential(Linear(2, 2), F.relu))) > 0


def test_insert_index_out_of_range_is_an_index_error():
    seq = ch.Sequential(F.relu)
    seq.insert(-1, F.tanh)
    assert list(seq) == [F.tanh, F.relu]
    for index in (3, -3):
        with pytest.raises(IndexError, match=f"index {index} is out of range for 2 layers"):
            seq.insert(index, F.sigmoid)


def test_serialize_keys_count_links_only():
    store = {}

    class Recorder:
        def __init__(self, prefix=""):
            self.prefix = prefix

        def __getitem__(self, key):
            return Recorder(self.prefix + key + "/")

        def __call__(self, key, value):
            store[self.prefix + key] = value
            return value

    ch.Sequential(Linear(2, 2), F.relu, Linear(2, 1)).serialize(Recorder())
    assert sorted(store) == ["0/W", "0/b", "1/W", "1/b"]
