"""L.Linear: shapes (also inferred lazily), initialisation, forward against NumPy and
gradients through the layer."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

DTYPES = [np.float16, np.float32, np.float64]
FORWARD_TOL = {np.float16: {"atol": 5e-3, "rtol": 5e-2}, np.float32: {"atol": 1e-6, "rtol": 1e-5}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-4, "rtol": 1e-3}, np.float64: {}}


def test_sizes_given():
    layer = L.Linear(3, 2)
    assert layer.W.shape == (2, 3) and layer.b.shape == (2,)
    assert layer.in_size == 3 and layer.out_size == 2
    assert layer(np.zeros((4, 3), np.float32)).shape == (4, 2)
    assert sorted(name for name, _ in layer.namedparams()) == ["/W", "/b"]


@pytest.mark.parametrize("make", [lambda: L.Linear(2), lambda: L.Linear(None, 2)], ids=["out_only", "in_none"])
def test_in_size_inferred_from_first_input(make):
    layer = make()
    assert layer.W.array is None and layer.in_size is None and layer.out_size == 2
    assert layer.b.shape == (2,)
    y = layer(np.ones((3, 4, 5), np.float32))
    assert y.shape == (3, 2)
    assert layer.W.shape == (2, 20) and layer.in_size == 20


def test_n_batch_axes():
    x = np.random.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    layer = L.Linear(5)
    y = layer(x, n_batch_axes=2)
    assert layer.W.shape == (5, 4) and y.shape == (2, 3, 5)
    np.testing.assert_allclose(y.array, x @ layer.W.array.T + layer.b.array, rtol=1e-5, atol=1e-6)
    flat = layer(x.reshape(6, 4))
    np.testing.assert_allclose(y.array.reshape(6, 5), flat.array, rtol=1e-6)


def test_lazy_layer_rejects_bad_n_batch_axes():
    with pytest.raises(ValueError, match="Linear: cannot infer in_size"):
        L.Linear(3)(np.ones((2, 4), np.float32), n_batch_axes=0)


def test_default_initialization_is_lecun_normal():
    layer = L.Linear(400, 300)
    W = layer.W.array
    assert W.dtype == np.float32
    assert abs(W.mean()) < 3e-3
    np.testing.assert_allclose(W.std(), 1 / np.sqrt(400), rtol=0.03)
    np.testing.assert_array_equal(layer.b.array, np.zeros(300, np.float32))


def test_scalar_initializers():
    layer = L.Linear(3, 2, initialW=0.5, initial_bias=-2)
    np.testing.assert_array_equal(layer.W.array, np.full((2, 3), 0.5, np.float32))
    np.testing.assert_array_equal(layer.b.array, [-2.0, -2.0])


def test_array_initializers_are_copied():
    W = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.0, 2.0], np.float32)
    layer = L.Linear(3, 2, initialW=W, initial_bias=b)
    np.testing.assert_array_equal(layer.W.array, W)
    np.testing.assert_array_equal(layer.b.array, b)
    assert not np.shares_memory(layer.W.array, W)
    lazy = L.Linear(2, initialW=W)
    lazy(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(lazy.W.array, W)


def test_initializer_objects():
    layer = L.Linear(3, 2, initialW=initializers.Constant(3.0), initial_bias=initializers.One())
    np.testing.assert_array_equal(layer.W.array, np.full((2, 3), 3, np.float32))
    np.testing.assert_array_equal(layer.b.array, [1.0, 1.0])


def test_nobias():
    layer = L.Linear(3, 2, nobias=True)
    assert layer.b is None
    assert [name for name, _ in layer.namedparams()] == ["/W"]
    x = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    np.testing.assert_allclose(layer(x).array, x @ layer.W.array.T, rtol=1e-6)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Linear: out_size must be a positive int, got 0"):
        L.Linear(3, 0)
    with pytest.raises(ValueError, match="Linear: in_size must be a positive int or None, got -1"):
        L.Linear(-1, 2)
    with pytest.raises(TypeError, match="Linear: initialW must be None, a scalar, an array or an initializer, got str"):
        L.Linear(3, 2, initialW="ones")
    with pytest.raises(ValueError, match=r"Linear: cannot initialize W with shape \(2, 3\)"):
        L.Linear(3, 2, initialW=np.ones((4, 4), np.float32))


def test_input_of_wrong_size():
    with pytest.raises(chainer.utils.type_check.InvalidType):
        L.Linear(3, 2)(np.ones((1, 4), np.float32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_and_backward(dtype, nobias):
    with chainer.using_config("dtype", dtype):
        layer = L.Linear(3, 2, nobias=nobias, initial_bias=np.array([0.5, -1.0]))
    x = np.random.uniform(-1, 1, (4, 3)).astype(dtype)
    y = layer(x)
    assert y.dtype == dtype and layer.W.dtype == dtype
    W = layer.W.array.astype(np.float64)
    expected = x.astype(np.float64) @ W.T
    if not nobias:
        expected += [0.5, -1.0]
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])

    gy = np.random.uniform(-1, 1, (4, 2)).astype(dtype)
    gradient_check.check_backward(layer, x, gy, params=tuple(layer.params()), dtype=np.float64, **BACKWARD_TOL[dtype])


def test_gradients_of_the_documentation_example():
    layer = L.Linear(3, 2)
    x = chainer.Variable(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    y = layer(x)
    layer.cleargrads()
    y.grad = np.ones((2, 2), np.float32)
    y.backward()
    np.testing.assert_array_equal(layer.W.grad, [[5, 7, 9], [5, 7, 9]])
    np.testing.assert_array_equal(layer.b.grad, [2, 2])


def test_repr():
    assert repr(L.Linear(3, 2)) == "Linear(in_size=3, out_size=2, nobias=False)"
    assert repr(L.Linear(2, nobias=True)) == "Linear(in_size=None, out_size=2, nobias=True)"


@pytest.mark.parametrize("nobias", [False, True])
def test_from_params_copies_the_given_parameters(nobias):
    source = L.Linear(3, 2, nobias=nobias)
    layer = L.Linear.from_params(source.W, source.b, nobias=nobias)
    assert (layer.in_size, layer.out_size) == (3, 2) and (layer.b is None) == nobias
    np.testing.assert_array_equal(layer.W.array, source.W.array)
    assert layer.W.array is not source.W.array
    if not nobias:
        np.testing.assert_array_equal(layer.b.array, source.b.array)
    with pytest.raises(ValueError, match=r"Linear.from_params: b has 3 elements, W has 2 rows"):
        L.Linear.from_params(source.W, np.zeros(3, np.float32))


def test_a_shape_as_out_size_constructs_but_cannot_make_w():
    # Chainer 7 accepts Linear((3, 3)) (the bias takes the shape); W cannot be created.
    layer = L.Linear((3, 3))
    assert layer.out_size == (3, 3) and layer.b.shape == (3, 3)
    with pytest.raises(ValueError, match=r"Linear: out_size must be an int to create W, got \(3, 3\)"):
        layer(np.ones((1, 2), np.float32))
