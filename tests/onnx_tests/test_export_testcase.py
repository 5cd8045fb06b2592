import numpy
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import onnx.numpy_helper  # noqa: E402, F811

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402
import onnx_chainer  # noqa: E402
from onnx_chainer.testing import input_generator as gen  # noqa: E402


def _load(path):
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return tensor.name, onnx.numpy_helper.to_array(tensor)


def test_files_round_trip(tmp_path, run_onnx):
    model = chainer.Sequential(L.Linear(4, 3), F.relu)
    x = gen.increasing(2, 4)
    onnx_chainer.export_testcase(model, x, tmp_path / "case")
    case = tmp_path / "case"
    onnx_model = onnx.load(str(case / "model.onnx"))
    assert sorted(p.name for p in (case / "test_data_set_0").iterdir()) == ["input_0.pb", "output_0.pb"]
    name, x_loaded = _load(case / "test_data_set_0" / "input_0.pb")
    assert name == "Input_0"
    numpy.testing.assert_array_equal(x_loaded, x)
    name, y_loaded = _load(case / "test_data_set_0" / "output_0.pb")
    assert name == "ReLU_0"
    expected = numpy.maximum(x @ model[0].W.array.T + model[0].b.array, 0)
    numpy.testing.assert_allclose(y_loaded, expected, rtol=1e-6)
    numpy.testing.assert_allclose(run_onnx(onnx_model, {"Input_0": x_loaded})["ReLU_0"], y_loaded, rtol=1e-6)


def test_export_params_false_writes_parameters_as_inputs(tmp_path):
    model = chainer.Sequential(L.Linear(4, 3))
    onnx_chainer.export_testcase(model, gen.increasing(2, 4), tmp_path, export_params=False)
    names = [_load(tmp_path / "test_data_set_0" / f"input_{i}.pb")[0] for i in range(3)]
    assert names == ["Input_0", "param_0_W", "param_0_b"]
    numpy.testing.assert_array_equal(_load(tmp_path / "test_data_set_0" / "input_1.pb")[1], model[0].W.array)


def test_output_grad_writes_parameter_gradients(tmp_path):
    model = chainer.Sequential(L.Linear(4, 3))
    x = gen.increasing(2, 4)
    onnx_chainer.export_testcase(model, x, tmp_path, output_grad=True, train=True)
    # d sum(x W^T + b) / dW = column sums of x for every output unit; / db = batch size.
    names = sorted(p.name for p in (tmp_path / "test_data_set_0").iterdir())
    assert names == ["gradient_0.pb", "gradient_1.pb", "input_0.pb", "output_0.pb"]
    grads = dict(_load(tmp_path / "test_data_set_0" / n) for n in ("gradient_0.pb", "gradient_1.pb"))
    numpy.testing.assert_allclose(grads["param_0_W"], numpy.tile(x.sum(axis=0), (3, 1)), rtol=1e-6)
    numpy.testing.assert_allclose(grads["param_0_b"], numpy.full(3, 2.0), rtol=1e-6)


def test_write_tensor_pb(tmp_path):
    path = tmp_path / "t.pb"
    onnx_chainer.onnx_helper.write_tensor_pb(str(path), "t", numpy.arange(6, dtype=numpy.int64).reshape(2, 3))
    name, value = _load(path)
    assert name == "t"
    numpy.testing.assert_array_equal(value, numpy.arange(6).reshape(2, 3))


def test_output_grad_fails_through_a_wrapped_function_returning_arrays(tmp_path):
    from onnx_chainer.replace_func import fake_as_funcnode

    half = fake_as_funcnode(lambda h, value=0.5: h.array * value, "MulConstant", experimental_warning=False)
    model = chainer.Sequential(L.Linear(4, 2), half)
    with pytest.raises(ValueError, match="returned arrays, not variables"):
        onnx_chainer.export_testcase(model, gen.increasing(2, 4), tmp_path, output_grad=True)


def test_arguments_set_by_export_testcase_are_refused(tmp_path):
    with pytest.raises(TypeError, match="return_named_inout is set by export_testcase"):
        onnx_chainer.export_testcase(chainer.Sequential(F.relu), gen.increasing(2), tmp_path, return_named_inout=True)
