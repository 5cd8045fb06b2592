"""Tests of chainer.link_hooks.SpectralNormalization against NumPy's SVD."""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import link_hooks
from chainer.testing import attr


class Linear(chainer.Link):
    def __init__(self, in_size, out_size, dtype=numpy.float64):
        super().__init__()
        self.out_size = out_size
        with self.init_scope():
            w = None if in_size is None else numpy.random.standard_normal((out_size, in_size)).astype(dtype)
            self.W = chainer.Parameter(w)
            self.b = chainer.Parameter(numpy.random.standard_normal(out_size).astype(dtype))
        self.seen_W = None

    def _initialize_params(self, in_size):
        self.W.array = numpy.random.standard_normal((self.out_size, in_size))

    def forward(self, x):
        self.seen_W = self.W
        return F.linear(x, self.W, self.b)


@pytest.fixture(autouse=True)
def _seed():
    # Fixed draws keep a clear gap between the two largest singular values.
    numpy.random.seed(0)


def _sigma_max(W):
    return numpy.linalg.svd(W.reshape(W.shape[0], -1), compute_uv=False)[0]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_power_iteration_matches_largest_singular_value(dtype):
    link = Linear(6, 4, dtype)
    W = link.W.array.copy()
    # A tiny eps so that the comparison is limited by float precision only.
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=100, eps=1e-20))
    x = numpy.random.standard_normal((3, 6)).astype(dtype)
    y = link(x)
    sigma = _sigma_max(W.astype(numpy.float64))
    expected = x @ (W / sigma).T + link.b.array
    tol = 1e-4 if dtype == numpy.float32 else 1e-8
    numpy.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    # the weight forward saw has spectral norm 1; afterwards W is the parameter again
    assert _sigma_max(link.seen_W.array.astype(numpy.float64)) == pytest.approx(1.0, rel=tol)
    assert isinstance(link.W, chainer.Parameter)
    numpy.testing.assert_array_equal(link.W.array, W)
    assert [name for name, _ in link.namedparams()] == ["/W", "/b"]
    assert "W_u" in link._persistent and link.W_u.shape == (4,) and link.W_u.dtype == dtype


def test_u_converges_over_calls_and_is_frozen_in_test_mode():
    link = Linear(5, 5)
    link.add_hook(link_hooks.SpectralNormalization())
    x = numpy.random.standard_normal((2, 5))
    for _ in range(200):
        link(x)
    left = numpy.linalg.svd(link.W.array)[0][:, 0]
    assert abs(numpy.dot(link.W_u, left)) == pytest.approx(1.0, abs=1e-6)
    u = link.W_u.copy()
    with chainer.using_config("train", False):
        link(x)
    numpy.testing.assert_array_equal(link.W_u, u)


@pytest.mark.parametrize("n_power_iteration", [1, 3])
def test_test_mode_runs_the_power_iteration_without_storing_u(n_power_iteration):
    # Chainer 7.8.1's test-mode output: the power iteration from the stored u, whose
    # result is used for sigma but not stored.
    link = Linear(3, 4)
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=n_power_iteration))
    x = numpy.random.standard_normal((2, 3))
    link(x)
    link.W.array += 0.3 * numpy.random.standard_normal(link.W.shape)  # as an update would
    W, u0 = link.W.array.copy(), link.W_u.copy()
    u = u0
    for _ in range(n_power_iteration):
        v = W.T @ u / (numpy.linalg.norm(W.T @ u) + 1e-6)
        u = W @ v / (numpy.linalg.norm(W @ v) + 1e-6)
    sigma = u @ W @ v
    with chainer.using_config("train", False):
        y = link(x).array
    numpy.testing.assert_allclose(y, x @ (W / sigma).T + link.b.array, rtol=1e-12)
    numpy.testing.assert_array_equal(link.W_u, u0)


def test_gradient_matches_svd_based_reference():
    link = Linear(4, 3)
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=200, eps=1e-20))
    x = numpy.random.standard_normal((2, 4))
    gy = numpy.random.standard_normal((2, 3))
    y = link(x)
    y.grad = gy
    y.backward()

    def loss(W):
        return numpy.sum((x @ (W / _sigma_max(W)).T) * gy)

    W = link.W.array
    numeric = numpy.zeros_like(W)
    eps = 1e-6
    for index in numpy.ndindex(W.shape):
        d = numpy.zeros_like(W)
        d[index] = eps
        numeric[index] = (loss(W + d) - loss(W - d)) / (2 * eps)
    numpy.testing.assert_allclose(link.W.grad, numeric, rtol=1e-5, atol=1e-7)


def test_factor_and_gamma():
    link = Linear(6, 4)
    sigma0 = _sigma_max(link.W.array)
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=100, use_gamma=True))
    assert float(link.gamma.array) == pytest.approx(sigma0)
    assert link.gamma.shape == ()
    assert [name for name, _ in link.namedparams()] == ["/W", "/b", "/gamma"]
    link.gamma.array[...] = 2.5
    link(numpy.zeros((1, 6)))
    assert _sigma_max(link.seen_W.array) == pytest.approx(2.5, rel=1e-5)

    other = Linear(6, 4)
    other.add_hook(link_hooks.SpectralNormalization(n_power_iteration=100, factor=3.0))
    other(numpy.zeros((1, 6)))
    assert _sigma_max(other.seen_W.array) == pytest.approx(3.0, rel=1e-5)


def test_convolution_shaped_weight_is_flattened_per_output_channel():
    class Conv(chainer.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.W = chainer.Parameter(numpy.random.standard_normal((3, 2, 2, 2)))

        def forward(self, x):
            return self.W * 1.0

    link = Conv()
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=100))
    out = link(None)
    expected = link.W.array / _sigma_max(link.W.array)
    numpy.testing.assert_allclose(out.array, expected, rtol=1e-5)  # eps=1e-6 biases sigma


def test_deleted_removes_state():
    link = Linear(3, 2)
    link.add_hook(link_hooks.SpectralNormalization(use_gamma=True))
    link.delete_hook("SpectralNormalization")
    assert not hasattr(link, "W_u") and not hasattr(link, "gamma")
    assert [name for name, _ in link.namedparams()] == ["/W", "/b"]


def test_lazy_weight_is_initialized_from_input():
    link = Linear(None, 3)
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=50))
    y = link(numpy.random.standard_normal((2, 5)))
    assert link.W.shape == (3, 5) and y.shape == (2, 3)
    assert _sigma_max(link.seen_W.array) == pytest.approx(1.0, rel=1e-5)


def test_weight_restored_when_forward_raises():
    class Failing(Linear):
        def forward(self, x):
            raise ValueError("boom")

    link = Failing(3, 2)
    W = link.W
    link.add_hook(link_hooks.SpectralNormalization())
    with pytest.raises(ValueError, match="boom"):
        link(numpy.zeros((1, 3)))
    assert link.W is W


def test_errors():
    with pytest.raises(NotImplementedError, match="link.add_hook"):
        with link_hooks.SpectralNormalization():
            pass
    with pytest.raises(ValueError, match="no parameter named 'V'"):
        Linear(3, 2).add_hook(link_hooks.SpectralNormalization(weight_name="V"))
    with pytest.raises(ValueError, match="n_power_iteration"):
        link_hooks.SpectralNormalization(n_power_iteration=0)
    with pytest.raises(ValueError, match="factor"):
        link_hooks.SpectralNormalization(factor=-1.0)
    lazy = Linear(None, 2)
    lazy._initialize_params = None
    lazy.add_hook(link_hooks.SpectralNormalization())
    with pytest.raises(RuntimeError, match="not initialized"):
        lazy(numpy.zeros((1, 3)))


def test_name_and_custom_weight():
    class TwoWeights(chainer.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.V = chainer.Parameter(numpy.random.standard_normal((2, 3)))

        def forward(self):
            return self.V * 1.0

    link = TwoWeights()
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=100, weight_name="V", name="sn_v"))
    assert "sn_v" in link.local_link_hooks and "V_u" in link._persistent
    out = link()
    assert _sigma_max(out.array) == pytest.approx(1.0, rel=1e-5)


@attr.gpu
def test_on_gpu_matches_svd():
    link = Linear(6, 4)
    W = link.W.array.copy()
    link.add_hook(link_hooks.SpectralNormalization(n_power_iteration=100, eps=1e-20))
    link.to_device("@cupy:0")
    x = numpy.random.standard_normal((3, 6))
    y = link(link.xp.asarray(x))
    expected = x @ (W / _sigma_max(W)).T + chainer.backends.cuda.to_cpu(link.b.array)
    numpy.testing.assert_allclose(chainer.backends.cuda.to_cpu(y.array), expected, rtol=1e-8, atol=1e-8)
    assert isinstance(link.W_u, type(link.W.array))


def test_module_functions_estimate_the_largest_singular_value():
    from chainer.link_hooks import spectral_normalization as sn

    rng = numpy.random.RandomState(0)
    W = rng.standard_normal((4, 6))
    u = sn.l2normalize(numpy, rng.standard_normal(4), 1e-12)
    assert numpy.linalg.norm(u) == pytest.approx(1.0)
    stored = u.copy()
    new_u, v = sn.update_approximate_vectors(W, stored, 200, 1e-12)
    numpy.testing.assert_array_equal(stored, new_u)  # written in place too
    sigma = sn.calculate_max_singular_value(chainer.Variable(W), new_u, v)
    assert sigma.shape == ()
    assert float(sigma.array) == pytest.approx(numpy.linalg.svd(W, compute_uv=False)[0], rel=1e-8)


def test_hook_keeps_v_and_recomputation_reuses_u_and_v():
    link = Linear(5, 3, numpy.float32)
    hook = link_hooks.SpectralNormalization()
    link.add_hook(hook)
    x = numpy.random.standard_normal((2, 5)).astype(numpy.float32)
    y1 = link(x).array
    u1, v1 = link.W_u.copy(), hook.v.copy()
    with chainer.using_config("in_recomputing", True):
        y2 = link(x).array
    numpy.testing.assert_array_equal(link.W_u, u1)
    numpy.testing.assert_array_equal(hook.v, v1)
    numpy.testing.assert_allclose(y1, y2, rtol=1e-6)
    with chainer.using_config("train", False):
        link(x)
    numpy.testing.assert_array_equal(link.W_u, u1)  # u is not updated in test mode
