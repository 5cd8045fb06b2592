import numpy

import chainer.functions as F
from chainer import testing

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tolerance(dtype):
    return {"atol": 1e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}


@testing.parameterize(*testing.product({"shape": [(2, 3, 2), (3,), ()], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestFlatten(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.flatten(inputs[0]),)

    def forward_expected(self, inputs):
        x = inputs[0]
        # C order: the last index varies fastest.
        return (numpy.array([x[index] for index in numpy.ndindex(*x.shape)], self.dtype).reshape(-1),)
