import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.testing import attr

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(3, 2), ()], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestCopySameDevice(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.copy(inputs[0], device),)

    def forward_expected(self, inputs):
        return (numpy.array(inputs[0].tolist(), self.dtype),)


@pytest.mark.parametrize("dst", ["@numpy", -1, numpy])
def test_copy_to_cpu_makes_a_new_array(dst):
    x = numpy.arange(3, dtype="f")
    y = F.copy(x, dst)
    assert isinstance(y.array, numpy.ndarray)
    assert not numpy.shares_memory(y.array, x)
    y.array[0] = 100
    assert x[0] == 0


def test_copy_invalid_device():
    # As in Chainer 7.8.1 built without ChainerX: a specifier without '@' names a ChainerX device.
    with pytest.raises(RuntimeError, match="without the '@' prefix names a ChainerX device"):
        F.copy(numpy.zeros(2, "f"), "somewhere")


@attr.gpu
def test_copy_between_cpu_and_gpu_carries_gradients_back():
    import cupy

    x = chainer.Variable(numpy.arange(3, dtype="f"))
    y = F.copy(x, 0)
    assert isinstance(y.array, cupy.ndarray)
    z = F.copy(y * 2, "@numpy")
    assert isinstance(z.array, numpy.ndarray)
    z.grad = numpy.ones(3, "f")
    z.backward()
    assert isinstance(x.grad, numpy.ndarray)
    numpy.testing.assert_array_equal(x.grad, [2, 2, 2])


def test_copy_to_the_dummy_device_is_a_copy_to_the_cpu():
    # cuda.DummyDevice is what Chainer code passes where CUDA is absent.
    from chainer.backends import cuda

    x = chainer.Variable(numpy.arange(3, dtype="f"))
    y = F.copy(x, cuda.DummyDevice)
    assert isinstance(y.device, chainer.backend.CpuDevice)
    numpy.testing.assert_array_equal(y.array, x.array)
    assert y.array is not x.array
