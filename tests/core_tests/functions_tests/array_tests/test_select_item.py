import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product({"shape": [(4, 3), (1, 5), (3, 1)], "t_dtype": [numpy.int32, numpy.int64], "dtype": DTYPES})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSelectItem(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        t = numpy.random.randint(0, self.shape[1], self.shape[0]).astype(self.t_dtype)
        return x, t

    def forward(self, inputs, device):
        return (F.select_item(*inputs),)

    def forward_expected(self, inputs):
        x, t = inputs
        return (numpy.array([x[i, t[i]] for i in range(len(t))], self.dtype),)


def test_select_item_gradient_goes_to_selected_elements():
    x = chainer.Variable(numpy.zeros((2, 3), "f"))
    y = F.select_item(x, chainer.Variable(numpy.array([2, 0], "i")))
    y.grad = numpy.array([5, 7], "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0, 5], [7, 0, 0]])


def test_select_item_invalid():
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(type_check.InvalidType, match=r"SelectItem \(Forward\)[\s\S]*t.dtype.kind == i"):
        F.select_item(x, numpy.zeros(2, "f"))
    with pytest.raises(type_check.InvalidType, match=r"SelectItem \(Forward\)[\s\S]*x.ndim == 2"):
        F.select_item(numpy.zeros(3, "f"), numpy.zeros(3, "i"))
    with pytest.raises(type_check.InvalidType, match=r"SelectItem \(Forward\)[\s\S]*x.shape\[0\] == t.shape\[0\]"):
        F.select_item(x, numpy.zeros(3, "i"))
    with pytest.raises(IndexError, match="out of bounds"):
        F.select_item(x, numpy.array([0, 3], "i"))


def test_select_item_negative_labels_wrap_except_in_debug_mode():
    # As in Chainer 7: t = -1 selects the last element, but debug mode insists on
    # 0 <= t < x.shape[1].
    x = numpy.array([[0.0, 1.0, 2.0]], "f")
    numpy.testing.assert_array_equal(F.select_item(x, numpy.array([-1], "i")).array, [2.0])
    with chainer.using_config("debug", True):
        for t in (-1, 3):
            with pytest.raises(
                ValueError, match=r"select_item: every t\[i\] must satisfy 0 <= t\[i\] < x.shape\[1\] == 3"
            ):
                F.select_item(x, numpy.array([t], "i"))
        numpy.testing.assert_array_equal(F.select_item(x, numpy.array([1], "i")).array, [1.0])


def test_labels_given_as_a_variable_are_an_input_of_the_graph():
    # As in Chainer 7.8.1 the labels variable feeds the node (exporters see where the
    # labels come from); it receives no gradient.
    x = chainer.Variable(numpy.arange(6, dtype="f").reshape(2, 3))
    t = chainer.Variable(numpy.array([2, 0], numpy.int32))
    y = F.select_item(x, t)
    assert y.creator.inputs[1] is t.node
    numpy.testing.assert_array_equal(y.array, [2, 3])
    y.grad = numpy.ones(2, "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0, 1], [1, 0, 0]])
    assert t.grad is None
