"""L.Bilinear: y = e1 W e2 + e1 V1 + e2 V2 + b."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

FORWARD_TOL = {np.float16: {"atol": 2e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("nobias", [False, True])
def test_forward_backward_against_numpy(dtype, nobias):
    bias = (initializers.Uniform(1.0),) * 3
    with chainer.using_config("dtype", dtype):
        layer = L.Bilinear(2, 3, 4, nobias=nobias, initial_bias=None if nobias else bias)
    e1 = np.random.uniform(-1, 1, (5, 2)).astype(dtype)
    e2 = np.random.uniform(-1, 1, (5, 3)).astype(dtype)
    y = layer(e1, e2)
    f64 = lambda a: np.asarray(a, np.float64)
    expected = np.einsum("nj,nk,jkl->nl", f64(e1), f64(e2), f64(layer.W.array))
    if not nobias:
        expected += f64(e1) @ f64(layer.V1.array) + f64(e2) @ f64(layer.V2.array) + f64(layer.b.array)
    assert y.shape == (5, 4) and y.dtype == dtype
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    gy = np.random.uniform(-1, 1, (5, 4)).astype(dtype)
    gradient_check.check_backward(
        layer, (e1, e2), gy, params=tuple(layer.params()), dtype=np.float64, **BACKWARD_TOL[dtype]
    )


def test_parameters_and_initialization():
    layer = L.Bilinear(2, 3, 4)
    assert (layer.W.shape, layer.V1.shape, layer.V2.shape, layer.b.shape) == ((2, 3, 4), (2, 4), (3, 4), (4,))
    np.testing.assert_array_equal(layer.b.array, 0)
    assert np.std(layer.V1.array) > 0 and np.std(layer.W.array) > 0
    nobias = L.Bilinear(2, 3, 4, nobias=True)
    assert nobias.V1 is None and nobias.V2 is None and nobias.b is None
    assert [name for name, _ in nobias.namedparams()] == ["/W"]


def test_given_initializers():
    W = np.ones((2, 3, 4), np.float32)
    V1, V2, b = np.full((2, 4), 2.0, np.float32), 3.0, np.arange(4, dtype=np.float32)
    layer = L.Bilinear(2, 3, 4, initialW=W, initial_bias=(V1, V2, b))
    np.testing.assert_array_equal(layer.W.array, W)
    np.testing.assert_array_equal(layer.V1.array, V1)
    np.testing.assert_array_equal(layer.V2.array, np.full((3, 4), 3.0))
    np.testing.assert_array_equal(layer.b.array, b)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Bilinear: initial_bias must be None or a tuple of three initializers"):
        L.Bilinear(2, 3, 4, initial_bias=0)
    with pytest.raises(ValueError, match=r"Bilinear: cannot initialize W with shape \(2, 3, 4\)"):
        L.Bilinear(2, 3, 4, initialW=np.ones((3, 3, 4), np.float32))


def test_zero_grads_fills_gradients_with_zeros():
    layer = L.Bilinear(1, 1, 1)
    # The old name of zerograds, deprecated with it.
    with pytest.warns(DeprecationWarning, match="zerograds is deprecated"):
        layer.zero_grads()
    for param in layer.params():
        np.testing.assert_array_equal(param.grad, 0)
