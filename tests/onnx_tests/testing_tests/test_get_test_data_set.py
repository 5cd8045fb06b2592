import os

import numpy
import pytest

pytest.importorskip("onnx")

import onnx
import onnx.numpy_helper

import chainer
import chainer.functions as F
from onnx_chainer.testing import get_test_data_set
from onnx_chainer.testing import input_generator as gen


def test_gen_test_data_set_writes_under_out_opset_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = gen.increasing(2, 3)
    path = get_test_data_set.gen_test_data_set(chainer.Sequential(F.relu), x, "test_relu", 9)
    assert path == os.path.join(get_test_data_set.TEST_OUT_DIR, "opset9", "test_relu")
    model = onnx.load(os.path.join(path, "model.onnx"))
    assert model.opset_import[0].version == 9
    output = onnx.numpy_helper.to_array(onnx.load_tensor(os.path.join(path, "test_data_set_0", "output_0.pb")))
    numpy.testing.assert_array_equal(output, numpy.maximum(x, 0))
