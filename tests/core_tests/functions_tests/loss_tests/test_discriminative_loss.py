import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
DELTA_V = 0.3
DELTA_D = 0.8
WEIGHTS = (1.5, 0.7, 0.01)


def _norm(v, p):
    return numpy.abs(v).sum() if p == 1 else numpy.sqrt((v * v).sum())


def _reference(embeddings, labels, n_instance, p):
    e = embeddings.astype(numpy.float64)
    n_batch, n_dim = e.shape[:2]
    means = numpy.zeros((n_instance, n_batch, n_dim))
    for c in range(n_instance):
        for n in range(n_batch):
            pixels = numpy.argwhere(labels[n] == c + 1)
            if len(pixels):
                means[c, n] = numpy.mean([e[n, :, i, j] for i, j in pixels], axis=0)
    l_var = 0.0
    for c in range(n_instance):
        total = 0.0
        count = 0
        for n in range(n_batch):
            for i, j in numpy.argwhere(labels[n] == c + 1):
                total += max(0.0, _norm(means[c, n] - e[n, :, i, j], p) - DELTA_V) ** 2
                count += 1
        l_var += total / max(count, 1)
    l_var /= n_instance
    l_dist = 0.0
    pairs = 0
    for a in range(n_instance):
        for b in range(a + 1, n_instance):
            pairs += 1
            for n in range(n_batch):
                l_dist += max(0.0, 2 * DELTA_D - _norm(means[a, n] - means[b, n], p)) ** 2
    l_dist /= max(pairs * n_batch, 1)
    l_reg = sum(_norm(means[c], p) for c in range(n_instance)) / (n_instance * n_batch)
    return l_var * WEIGHTS[0], l_dist * WEIGHTS[1], l_reg * WEIGHTS[2]


@testing.parameterize(*testing.product({"norm": [1, 2], "n_instance": [1, 3], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestDiscriminativeMarginBasedClusteringLoss(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        # Labels 0..n_instance+1: background, every instance, and one label past the last.
        labels = numpy.random.randint(0, self.n_instance + 2, (2, 3, 3))
        labels[0, 0, :2] = [1, 1]
        self.labels = labels.astype(numpy.int32)

    def generate_inputs(self):
        embeddings = numpy.random.uniform(-1, 1, (2, self.n_instance, 3, 3)).astype(self.dtype)
        return embeddings, self.labels

    def forward(self, inputs, device):
        return F.discriminative_margin_based_clustering_loss(
            *inputs, DELTA_V, DELTA_D, self.n_instance, self.norm, *WEIGHTS
        )

    def forward_expected(self, inputs):
        values = _reference(*inputs, self.n_instance, self.norm)
        return tuple(numpy.asarray(v, self.dtype) for v in values)


def test_rejects_bad_inputs():
    emb = numpy.zeros((2, 3, 4, 4), numpy.float32)
    labels = numpy.zeros((2, 4, 4), numpy.int32)
    loss = F.discriminative_margin_based_clustering_loss
    with pytest.raises(
        type_check.InvalidType, match=r"DiscriminativeMarginBasedClusteringLoss[\s\S]*max_embedding_dim"
    ):
        loss(emb, labels, 0.5, 1.5, 4)
    with pytest.raises(type_check.InvalidType, match=r"embeddings.shape\[2:\] == labels.shape\[1:\]"):
        loss(emb, numpy.zeros((2, 4, 5), numpy.int32), 0.5, 1.5, 3)
    with pytest.raises(type_check.InvalidType, match=r"labels.dtype.kind == i"):
        loss(emb, labels.astype(numpy.float32), 0.5, 1.5, 3)
    with pytest.raises(type_check.InvalidType, match=r"embeddings.ndim == 4"):
        loss(emb[0], labels, 0.5, 1.5, 3)
    with pytest.raises(ValueError, match=r"discriminative_margin_based_clustering_loss: norm must be 1 or 2"):
        loss(emb, labels, 0.5, 1.5, 3, norm=3)
    with pytest.raises(ValueError, match=r"delta_v must be a non-negative number"):
        loss(emb, labels, -0.5, 1.5, 3)
    with pytest.raises(TypeError, match=r"max_embedding_dim must be an int"):
        loss(emb, labels, 0.5, 1.5, 3.0)


def test_l2_norm_double_backprop_in_float16_stays_finite_for_small_norms():
    """The Hessian-vector product of ||x|| is (I / |x| - x x^T / |x|^3) v, finite for a norm
    of 4e-4 in float16; the square root's second derivative alone overflows there (the GPU
    gradient checks of the loss found NaN), so the norm is taken in float32."""
    from chainer.functions.loss import _common

    x_value = numpy.array([[3e-4, 2e-4], [0.5, -0.25]], numpy.float16)
    x = chainer.Variable(x_value)
    y = _common.norm(x, axis=1, p=2)
    assert y.dtype == numpy.float16
    (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
    v = numpy.ones_like(x_value)
    (hv,) = chainer.grad([gx], [x], grad_outputs=[chainer.Variable(v)])
    for row, got in zip(x_value.astype(numpy.float64), hv.array):
        n = numpy.linalg.norm(row)
        expected = (numpy.eye(2) / n - numpy.outer(row, row) / n**3) @ numpy.ones(2)
        numpy.testing.assert_allclose(got, expected, rtol=2e-2)
