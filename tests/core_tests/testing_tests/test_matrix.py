"""generate_matrix: random matrices with the singular values asked for."""

import numpy as np
import pytest

from chainer import testing


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("shape, s_shape", [((3, 3), (3,)), ((2, 3, 4), (2, 3)), ((4, 2), ()), ((0, 2, 2), (0, 2))])
def test_singular_values_are_the_given_ones(dtype, shape, s_shape):
    s = np.random.uniform(0.5, 2.0, s_shape)
    x = testing.generate_matrix(shape, dtype=dtype, singular_values=s)
    assert x.shape == shape and x.dtype == dtype
    if 0 in shape:
        return
    got = np.linalg.svd(x.astype(np.complex128), compute_uv=False)
    want = np.sort(np.broadcast_to(s, got.shape), axis=-1)[..., ::-1]
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-10)


def test_invalid_arguments():
    with pytest.raises(TypeError, match="singular_values is required"):
        testing.generate_matrix((2, 2))
    with pytest.raises(ValueError, match="at least two axes"):
        testing.generate_matrix((2,), singular_values=1)
    with pytest.raises(TypeError, match="floating-point or complex"):
        testing.generate_matrix((2, 2), dtype=np.int32, singular_values=1)
    with pytest.raises(ValueError, match="non-negative"):
        testing.generate_matrix((2, 2), singular_values=[1, -1])
    with pytest.raises(ValueError, match="do not broadcast"):
        testing.generate_matrix((2, 2), singular_values=np.ones(3))
