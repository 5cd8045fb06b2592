import os

import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer
import chainer.functions as F
import onnx_chainer
from onnx_chainer import onnx_helper
from onnx_chainer.testing import input_generator as gen
from onnx_chainer.testing import test_onnxruntime


def _case(tmp_path):
    class Two(chainer.Chain):
        def forward(self, a, b):
            return F.tanh(a) * b, a - b

    a, b = gen.increasing(2, 3), gen.positive_increasing(2, 3)
    onnx_chainer.export_testcase(Two(), (a, b), tmp_path)
    return a, b


def test_check_model_expect_passes_on_what_chainer_computed(tmp_path):
    _case(tmp_path)
    assert test_onnxruntime.ONNXRUNTIME_AVAILABLE
    test_onnxruntime.check_model_expect(str(tmp_path))
    # Inputs are found by their names, in any order.
    test_onnxruntime.check_model_expect(str(tmp_path), input_names=["Input_1", "Input_0"])


def test_check_model_expect_fails_on_other_values(tmp_path):
    a, b = _case(tmp_path)
    # Outputs are compared by position; the name stored in the file does not matter.
    onnx_helper.write_tensor_pb(os.path.join(tmp_path, "test_data_set_0", "output_1.pb"), "", a - b + 1e-3)
    with pytest.raises(AssertionError, match="output 'Sub_0'"):
        test_onnxruntime.check_model_expect(str(tmp_path))
    test_onnxruntime.check_model_expect(str(tmp_path), atol=2e-3)


def test_load_test_data(tmp_path):
    a, b = _case(tmp_path)
    inputs, outputs = test_onnxruntime.load_test_data(
        os.path.join(tmp_path, "test_data_set_0"), ["Input_0", "Input_1"], ["y0", "y1"]
    )
    numpy.testing.assert_array_equal(inputs["Input_1"], b)
    assert [name for name, _ in outputs] == ["y0", "y1"]
    numpy.testing.assert_allclose(outputs[1][1], a - b)
    with pytest.raises(ValueError, match="2 output file"):
        test_onnxruntime.load_test_data(os.path.join(tmp_path, "test_data_set_0"), ["Input_0"], ["y0"])
