import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _log_softmax(x):
    # Straight from the definition: log(exp(x_c) / sum_k exp(x_k)), inputs are small.
    e = numpy.exp(x.astype(numpy.float64))
    return numpy.log(e / e.sum(axis=1, keepdims=True))


def _reference(x, t, normalize, class_weight, ignore_label, reduce):
    log_y = _log_softmax(x)
    loss = numpy.zeros(t.shape)
    count = 0
    for index in numpy.ndindex(*t.shape):
        label = t[index]
        if label == ignore_label:
            continue
        count += 1
        w = 1.0 if class_weight is None else float(class_weight[label])
        loss[index] = -w * log_y[(index[0], label) + index[1:]]
    if reduce == "no":
        return loss
    denominator = max(count, 1) if normalize else x.shape[0]
    return numpy.asarray(loss.sum() / denominator)


def _tolerances(dtype):
    if dtype == numpy.float16:
        return {"atol": 5e-3, "rtol": 5e-2}, {"atol": 5e-2, "rtol": 5e-2}
    return {"atol": 1e-5, "rtol": 1e-4}, {"atol": 1e-3, "rtol": 1e-3}


class _SoftmaxCrossEntropyChecks(testing.FunctionTestCase):
    __test__ = False  # the parameterized subclasses below are the tests

    def setUp(self):
        self.check_forward_options, self.check_backward_options = _tolerances(self.dtype)
        self.check_double_backward_options = self.check_backward_options
        n_class = self.shape[1]
        self.class_weight = numpy.random.uniform(0.5, 2, n_class).astype(self.dtype) if self.weighted else None
        t_shape = self.shape[:1] + self.shape[2:]
        t = numpy.random.randint(0, n_class, t_shape)
        flat = t.reshape(-1)
        if self.with_ignored:
            # Make sure both ignored and kept positions occur.
            flat[0] = self.ignore_label
            flat[-1] = 0 if self.ignore_label != 0 else 1
        self.t = t.astype(numpy.int32)

    def generate_inputs(self):
        return numpy.random.uniform(-2, 2, self.shape).astype(self.dtype), self.t

    def forward(self, inputs, device):
        x, t = inputs
        class_weight = None if self.class_weight is None else device.send(self.class_weight)
        return (
            F.softmax_cross_entropy(
                x,
                t,
                normalize=self.normalize,
                cache_score=self.cache_score,
                class_weight=class_weight,
                ignore_label=self.ignore_label,
                reduce=self.reduce,
            ),
        )

    def forward_expected(self, inputs):
        x, t = inputs
        expected = _reference(x, t, self.normalize, self.class_weight, self.ignore_label, self.reduce)
        return (expected.astype(self.dtype),)


@testing.parameterize(
    *testing.product_dict(
        [
            {"shape": (4, 3), "reduce": "mean", "normalize": True, "weighted": False, "cache_score": True},
            {"shape": (4, 3), "reduce": "mean", "normalize": False, "weighted": True, "cache_score": True},
            {"shape": (4, 3), "reduce": "no", "normalize": True, "weighted": True, "cache_score": False},
            {"shape": (2, 3, 2, 2), "reduce": "mean", "normalize": True, "weighted": True, "cache_score": False},
            {"shape": (2, 3, 2), "reduce": "no", "normalize": False, "weighted": False, "cache_score": True},
        ],
        [
            {"ignore_label": -1, "with_ignored": True},
            {"ignore_label": 2, "with_ignored": True},
            {"ignore_label": -1, "with_ignored": False},
        ],
        [{"dtype": d} for d in DTYPES],
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSoftmaxCrossEntropy(_SoftmaxCrossEntropyChecks):
    __test__ = True  # (inherited False would hide the class from pytest)


@testing.parameterize(
    *testing.product_dict(
        [
            {"shape": (4, 3), "reduce": "mean", "normalize": True, "weighted": False, "cache_score": True},
            {"shape": (5, 7), "reduce": "mean", "normalize": False, "weighted": True, "cache_score": True},
            {"shape": (4, 3), "reduce": "no", "normalize": True, "weighted": True, "cache_score": True},
            {"shape": (3, 20), "reduce": "no", "normalize": True, "weighted": False, "cache_score": False},
        ],
        [
            {"ignore_label": -1, "with_ignored": True},
            {"ignore_label": 2, "with_ignored": True},
            {"ignore_label": -1, "with_ignored": False},
        ],
        [{"dtype": numpy.float32}],
    )
)
@testing.inject_backend_tests(None, [{}])
class TestSoftmaxCrossEntropyCompiled(_SoftmaxCrossEntropyChecks):
    """The same checks with the compiled kernels of chainer-cpu-kernels (float32 rows,
    C-contiguous: the kernels decline the rest); the backward kernel needs the cached
    softmax, and the second order goes through SoftmaxCrossEntropyGrad's differentiable ops."""

    __test__ = True
    contiguous = "C"

    @pytest.fixture(autouse=True)
    def _compiled(self, request, compiled_cpu_kernels):
        yield
        assert compiled_cpu_kernels["softmax_cross_entropy_forward"] > 0
        if self.cache_score and not request.node.name.startswith("test_forward"):
            assert compiled_cpu_kernels["softmax_cross_entropy_backward"] > 0


@testing.parameterize(
    *testing.product(
        {
            "shape": [(3, 4), (2, 3, 2)],
            "soft_target_loss": ["cross-entropy", "kl-divergence"],
            "reduce": ["mean", "no"],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSoftmaxCrossEntropySoftTarget(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options, self.check_backward_options = _tolerances(self.dtype)
        self.check_double_backward_options = self.check_backward_options

    # The targets are constants of the loss (no gradient reaches them, as in Chainer
    # 7.8.1; see test_soft_targets_receive_no_gradient), so only x is an input here.
    def generate_inputs(self):
        x = numpy.random.uniform(-2, 2, self.shape).astype(self.dtype)
        t = numpy.random.uniform(0.1, 1, self.shape)
        t /= t.sum(axis=1, keepdims=True)
        self.t = t.astype(self.dtype)
        return (x,)

    def forward(self, inputs, device):
        (x,) = inputs
        t = device.send(self.t)
        return (F.softmax_cross_entropy(x, t, reduce=self.reduce, soft_target_loss=self.soft_target_loss),)

    def forward_expected(self, inputs):
        (x,) = inputs
        t64 = self.t.astype(numpy.float64)
        log_y = _log_softmax(x)
        if self.soft_target_loss == "cross-entropy":
            loss = -(t64 * log_y).sum(axis=1)
        else:
            loss = (t64 * (numpy.log(t64) - log_y)).sum(axis=1)
        if self.reduce == "mean":
            loss = numpy.asarray(loss.mean())
        return (loss.astype(self.dtype),)


@pytest.mark.parametrize("soft_target_loss", ["cross-entropy", "kl-divergence"])
def test_soft_targets_receive_no_gradient(soft_target_loss):
    # Soft targets are constants, like integer labels: a target given as a Variable that
    # requires a gradient gets none, and x's gradient is (softmax(x) - t) / N for 'mean'.
    x = chainer.Variable(numpy.random.uniform(-1, 1, (4, 3)))
    raw = numpy.random.uniform(0.1, 1, (4, 3))
    t = chainer.Variable(raw / raw.sum(axis=1, keepdims=True))
    F.softmax_cross_entropy(x, t, soft_target_loss=soft_target_loss).backward()
    assert t.grad is None
    softmax = numpy.exp(_log_softmax(x.array))
    numpy.testing.assert_allclose(x.grad, (softmax - t.array) / 4, rtol=1e-10)


def test_soft_target_kl_divergence_treats_zero_probabilities_as_zero():
    x = numpy.array([[1.0, 2.0, 3.0]], numpy.float64)
    t = numpy.array([[0.0, 1.0, 0.0]], numpy.float64)
    kl = F.softmax_cross_entropy(x, t, soft_target_loss="kl-divergence").array
    ce = F.softmax_cross_entropy(x, numpy.array([1], numpy.int32)).array
    # With a one-hot target the KL divergence equals the cross entropy (entropy of t is 0).
    numpy.testing.assert_allclose(kl, ce, rtol=1e-12)


def test_soft_target_with_class_weight_weights_each_class_term():
    x = numpy.random.uniform(-1, 1, (3, 4))
    t = numpy.random.uniform(0.1, 1, (3, 4))
    w = numpy.array([1.0, 2.0, 0.5, 3.0])
    loss = F.softmax_cross_entropy(x, t, class_weight=w, reduce="no").array
    numpy.testing.assert_allclose(loss, -(w * t * _log_softmax(x)).sum(axis=1), rtol=1e-12)


def test_ignored_positions_get_zero_gradient_and_are_not_counted():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (3, 4)))
    t = numpy.array([1, -1, 3], numpy.int32)
    loss = F.softmax_cross_entropy(x, t)
    loss.backward()
    numpy.testing.assert_array_equal(x.grad[1], numpy.zeros(4))
    log_y = _log_softmax(x.array)
    numpy.testing.assert_allclose(loss.array, -(log_y[0, 1] + log_y[2, 3]) / 2, rtol=1e-12)
    # The gradient of a kept row is (softmax - onehot) / count.
    expected = numpy.exp(log_y[0]) - numpy.eye(4)[1]
    numpy.testing.assert_allclose(x.grad[0], expected / 2, rtol=1e-12)


def test_all_ignored_gives_zero_loss_and_gradient(cpu_code):
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    loss = F.softmax_cross_entropy(x, numpy.array([-1, -1], numpy.int32))
    loss.backward()
    assert float(loss.array) == 0.0
    numpy.testing.assert_array_equal(x.grad, numpy.zeros((2, 3), numpy.float32))


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_logits_do_not_overflow(dtype, cpu_code):
    big = 60000 if dtype == numpy.float16 else 1e30
    x = chainer.Variable(numpy.array([[big, 0.0], [0.0, big]], dtype))
    loss = F.softmax_cross_entropy(x, numpy.array([0, 0], numpy.int32), reduce="no")
    loss.grad = numpy.ones(2, dtype)
    loss.backward()
    numpy.testing.assert_allclose(loss.array.astype(numpy.float64), [0.0, big], rtol=1e-3)
    assert numpy.isfinite(x.grad).all()


def test_double_backprop_flag_is_accepted_and_gives_the_same_loss():
    x = numpy.random.uniform(-1, 1, (3, 4)).astype(numpy.float32)
    t = numpy.array([0, 1, 2], numpy.int32)
    a = F.softmax_cross_entropy(x, t, enable_double_backprop=True).array
    numpy.testing.assert_allclose(a, _reference(x, t, True, None, -1, "mean"), rtol=1e-5)


def test_rejects_label_shape_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"SoftmaxCrossEntropy[\s\S]*x.shape\[0\] == t.shape\[0\]"):
        F.softmax_cross_entropy(numpy.zeros((2, 3), numpy.float32), numpy.zeros(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"SoftmaxCrossEntropy[\s\S]*t.ndim == x.ndim - 1"):
        F.softmax_cross_entropy(numpy.zeros((2, 3), numpy.float32), numpy.zeros((2, 3), numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[2:\] == t.shape\[1:\]"):
        F.softmax_cross_entropy(numpy.zeros((2, 3, 4), numpy.float32), numpy.zeros((2, 5), numpy.int32))


def test_rejects_wrong_dtypes():
    with pytest.raises(type_check.InvalidType, match=r"SoftmaxCrossEntropy[\s\S]*x.dtype.kind == f"):
        F.softmax_cross_entropy(numpy.zeros((2, 3), numpy.int32), numpy.zeros(2, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"t.dtype.kind == i"):
        F.softmax_cross_entropy(numpy.zeros((2, 3), numpy.float32), numpy.zeros(2, numpy.uint8))
    with pytest.raises(type_check.InvalidType, match=r"soft target[\s\S]*t.shape == x.shape"):
        F.softmax_cross_entropy(numpy.zeros((2, 3), numpy.float32), numpy.zeros((2, 4), numpy.float64))


@pytest.mark.parametrize("label", [3, -2, 100])
def test_rejects_out_of_range_labels(label, cpu_code):
    with pytest.raises(
        ValueError, match=rf"softmax_cross_entropy: every label of t must be in \[0, 3\).*found {label}"
    ):
        F.softmax_cross_entropy(numpy.zeros((2, 3), numpy.float32), numpy.array([0, label], numpy.int32))


def test_rejects_bad_options():
    x = numpy.zeros((2, 3), numpy.float32)
    t = numpy.zeros(2, numpy.int32)
    with pytest.raises(ValueError, match=r"softmax_cross_entropy: only 'mean' and 'no' are valid for reduce"):
        F.softmax_cross_entropy(x, t, reduce="sum")
    with pytest.raises(ValueError, match=r"softmax_cross_entropy: soft_target_loss must be"):
        F.softmax_cross_entropy(x, t, soft_target_loss="l2")
    with pytest.raises(ValueError, match=r"softmax_cross_entropy: class_weight must be an array"):
        F.softmax_cross_entropy(x, t, class_weight=chainer.Variable(numpy.ones(3, numpy.float32)))
    with pytest.raises(ValueError, match=r"softmax_cross_entropy: class_weight must be a 1-dimensional"):
        F.softmax_cross_entropy(x, t, class_weight=numpy.ones((1, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"class_weight.shape\[0\] == x.shape\[1\]"):
        F.softmax_cross_entropy(x, t, class_weight=numpy.ones(4, numpy.float32))


@pytest.mark.parametrize("t_dtype", [numpy.float16, numpy.float32])
@pytest.mark.parametrize("soft_target_loss", ["cross-entropy", "kl-divergence"])
def test_soft_target_of_another_float_dtype(t_dtype, soft_target_loss):
    # Soft targets of any float dtype are accepted; the loss is in x's dtype and equals the
    # loss with the targets cast to it.
    x = numpy.random.uniform(-1, 1, (4, 3))
    t = numpy.random.dirichlet(numpy.ones(3), size=4).astype(t_dtype)
    loss = F.softmax_cross_entropy(x, t, soft_target_loss=soft_target_loss)
    assert loss.dtype == numpy.float64
    t64 = t.astype(numpy.float64)
    log_y = _log_softmax(x)
    if soft_target_loss == "cross-entropy":
        expected = -(t64 * log_y).sum(axis=1).mean()
    else:
        expected = (t64 * (numpy.log(t64) - log_y)).sum(axis=1).mean()
    numpy.testing.assert_allclose(loss.array, expected, rtol=1e-12)


@pytest.mark.parametrize("cache_score", [True, False])
def test_cached_softmax_is_exposed_as_y(cache_score, cpu_code):
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    t = numpy.array([0, 1, 2, 1], numpy.int32)
    loss = F.softmax_cross_entropy(chainer.Variable(x), t, cache_score=cache_score)
    y = loss.creator.y
    if cache_score:
        e = numpy.exp(x - x.max(axis=1, keepdims=True))
        numpy.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    else:
        assert y is None


@pytest.mark.parametrize("ignore_label", [-1, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_compiled_loss_agrees_with_numpy_code(ignore_label, weighted, compiled_cpu_kernels):
    # The loss of benchmarks/lstm.py's step (20 rows, 1000 classes), both codes on the same
    # inputs, with the lazily derived labels of the kernel path feeding double backprop.
    rng = numpy.random.default_rng(7)
    x = (rng.standard_normal((20, 1000)) * 3).astype(numpy.float32)
    t = rng.integers(0, 1000, 20).astype(numpy.int32)
    t[::4] = ignore_label
    class_weight = rng.uniform(0.5, 2, 1000).astype(numpy.float32) if weighted else None
    ggx = rng.standard_normal(x.shape).astype(numpy.float32)

    def run():
        xv = chainer.Variable(x.copy())
        loss = F.softmax_cross_entropy(xv, t, class_weight=class_weight, ignore_label=ignore_label)
        (gx,) = chainer.grad([loss], [xv], enable_double_backprop=True)
        F.sum(gx * ggx).backward()
        return loss.array, gx.array, xv.grad

    compiled = run()
    plugin = chainer.plugins.unregister(name="tests.compiled_cpu_kernels")
    try:
        numpy_code = run()
    finally:
        chainer.plugins.register(plugin, name="tests.compiled_cpu_kernels")
    assert compiled_cpu_kernels["softmax_cross_entropy_forward"] == 1
    assert compiled_cpu_kernels["softmax_cross_entropy_backward"] == 1
    for got, want in zip(compiled, numpy_code, strict=True):
        numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * numpy.abs(want).max())
