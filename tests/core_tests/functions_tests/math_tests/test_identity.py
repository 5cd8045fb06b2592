import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing


@testing.fix_random()
@testing.parameterize(*testing.product({"n_inputs": [1, 3], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestIdentity(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}
        self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = {"atol": 1e-3, "rtol": 1e-3}

    def generate_inputs(self):
        shapes = [(3, 2), (), (4,)][: self.n_inputs]
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in shapes)

    def forward(self, inputs, device):
        outputs = F.identity(*inputs)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def forward_expected(self, inputs):
        return tuple(x.copy() for x in inputs)


def test_identity_returns_new_variables_joined_to_the_graph():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    y = F.identity(x)
    assert isinstance(y, chainer.Variable) and y is not x
    assert y.creator is not None and y.creator.inputs[0] is x.node
    (gx,) = chainer.grad([y], [x], grad_outputs=[numpy.array([3.0, 4.0], numpy.float32)])
    assert numpy.array_equal(gx.array, [3.0, 4.0])


def test_identity_of_several_inputs_is_a_tuple_and_unused_outputs_give_no_gradient():
    a = chainer.Variable(numpy.ones(2))
    b = chainer.Variable(numpy.zeros(3, numpy.float32))
    ya, yb = F.identity(a, b)
    assert ya.dtype == numpy.float64 and yb.dtype == numpy.float32
    ga, gb = chainer.grad([ya], [a, b], grad_outputs=[numpy.ones(2)])
    assert numpy.array_equal(ga.array, [1.0, 1.0]) and gb is None


def test_identity_accepts_integer_arrays():
    y = F.identity(numpy.arange(3))
    assert y.dtype == numpy.arange(3).dtype and numpy.array_equal(y.array, [0, 1, 2])


def test_identity_rejects_non_arrays():
    with pytest.raises(TypeError, match=r"expected an array"):
        F.identity([1.0, 2.0])
