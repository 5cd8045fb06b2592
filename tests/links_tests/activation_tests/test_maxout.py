"""L.Maxout: y_i = max_j (sum_k W_ijk x_k + b_ij), through a Linear of out * pool units."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


def _reference(x, W, b):
    """``W`` of shape (out, pool, in), ``b`` of shape (out, pool) or None."""
    z = np.einsum("nk,ijk->nij", np.asarray(x, np.float64).reshape(len(x), -1), np.asarray(W, np.float64))
    if b is not None:
        z += b
    return z.max(axis=2)


@pytest.mark.parametrize("dtype, tol", [(np.float16, 2e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
def test_forward_against_numpy(dtype, tol):
    W = np.random.uniform(-1, 1, (2, 3, 4))
    b = np.random.uniform(-1, 1, (2, 3))
    with chainer.using_config("dtype", dtype):
        layer = L.Maxout(4, 2, 3, initialW=W, initial_bias=b)
    assert layer.linear.W.shape == (6, 4) and layer.linear.b.shape == (6,)
    # Unit i * pool + j of the linear layer is piece j of output i.
    np.testing.assert_allclose(layer.linear.W.array.reshape(2, 3, 4), W, rtol=tol)
    x = np.random.uniform(-1, 1, (5, 4)).astype(dtype)
    y = layer(x)
    assert y.shape == (5, 2) and y.dtype == dtype
    np.testing.assert_allclose(y.array, _reference(x, layer.linear.W.array.reshape(2, 3, 4), b), rtol=tol, atol=tol)


def test_gradients():
    with chainer.using_config("dtype", np.float64):
        layer = L.Maxout(3, 2, 2, initial_bias=initializers.Uniform(1.0))
    x = np.random.uniform(-1, 1, (4, 3))
    gy = np.random.uniform(-1, 1, (4, 2))
    gradient_check.check_backward(layer, x, gy, params=tuple(layer.params()), detect_nondifferentiable=True)


def test_default_initialization_and_nobias():
    layer = L.Maxout(200, 50, 4)
    np.testing.assert_allclose(layer.linear.W.array.std(), 1 / np.sqrt(200), rtol=0.05)
    np.testing.assert_array_equal(layer.linear.b.array, 0)
    nobias = L.Maxout(3, 2, 2, initial_bias=None)
    assert nobias.linear.b is None
    x = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    np.testing.assert_allclose(
        nobias(x).array, _reference(x, nobias.linear.W.array.reshape(2, 2, 3), None), rtol=1e-5, atol=1e-6
    )


def test_initializer_sees_the_grouped_shape():
    seen = []

    def initializer(array):
        seen.append(array.shape)
        array[...] = np.arange(array.size).reshape(array.shape)

    layer = L.Maxout(3, 2, 4, initialW=initializer, initial_bias=initializer)
    assert seen == [(2, 4), (2, 4, 3)] or seen == [(2, 4, 3), (2, 4)]
    np.testing.assert_array_equal(layer.linear.W.array, np.arange(24).reshape(8, 3))
    np.testing.assert_array_equal(layer.linear.b.array, np.arange(8))


def test_lazy_input_size():
    layer = L.Maxout(None, 2, 3, initialW=initializers.Constant(0.5))
    assert layer.linear.W.array is None
    assert layer(np.ones((1, 4), np.float32)).shape == (1, 2)
    np.testing.assert_array_equal(layer.linear.W.array, np.full((6, 4), 0.5))
    from_array = L.Maxout(None, 2, 3, initialW=np.ones((2, 3, 5), np.float32))
    assert from_array(np.ones((1, 5), np.float32)).shape == (1, 2)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"Maxout: initialW must have shape \(2, 3, 4\), got \(6, 4\)"):
        L.Maxout(4, 2, 3, initialW=np.ones((6, 4), np.float32))
    with pytest.raises(ValueError, match=r"Maxout: initial_bias must have shape \(2, 3\), got \(6,\)"):
        L.Maxout(4, 2, 3, initial_bias=np.ones(6, np.float32))
    with pytest.raises(ValueError, match="Maxout: pool_size must be a positive int, got 0"):
        L.Maxout(4, 2, 0)
