import _math_testlib as testlib
import numpy

import chainer.functions as F
from chainer import testing


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {"shapes": [((), ()), ((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2))], "dtype": testlib.DTYPES}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestMaximum(testlib.BinaryMixin, testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def forward(self, inputs, device):
        return (F.maximum(*inputs),)

    def forward_expected(self, inputs):
        x1, x2 = inputs
        return (numpy.asarray(numpy.where(x1 >= x2, x1, x2), self.dtype),)


def test_maximum_gradient_goes_to_the_larger_input_and_to_x1_on_ties():
    # x1 = [1, 2, 3] against the rows [2, 2, 3] and [0, 4, 5].
    testlib.assert_gradient_follows_selection(F.maximum, [[0, 1, 1], [1, 0, 0]])


def test_maximum_rejects_mixed_dtypes():
    testlib.assert_rejects_mixed_dtypes(F.maximum, "Maximum", ("x1", "x2"))


def test_maximum_rejects_integer_inputs():
    testlib.assert_rejects_integer_inputs(F.maximum, "Maximum", ("x1", "x2"))


def test_maximum_rejects_shapes_that_do_not_broadcast():
    testlib.assert_rejects_shapes_that_do_not_broadcast(F.maximum, "Maximum", ("x1", "x2"))


def test_gradient_is_a_maximum_grad_node():
    # Chainer 7's MaximumGrad; the first operand wins ties.
    from chainer.functions.math import maximum as module

    testlib.assert_gradient_is_a_masked_node(F.maximum, module.MaximumGrad, numpy.greater_equal)
