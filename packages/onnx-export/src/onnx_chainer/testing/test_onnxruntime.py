"""Check an exported test case with onnxruntime: it computes what Chainer computed."""

from __future__ import annotations

import glob
import importlib.util
import os
import re
from collections.abc import Sequence

import numpy
import onnx
import onnx.numpy_helper

__all__ = ["ONNXRUNTIME_AVAILABLE", "check_model_expect", "load_test_data"]

#: Whether onnxruntime is installed.
ONNXRUNTIME_AVAILABLE = importlib.util.find_spec("onnxruntime") is not None


def _numbered(data_dir: str, prefix: str) -> list[str]:
    """``<prefix>_<i>.pb`` files of ``data_dir`` in the order of ``i``."""
    paths = glob.glob(os.path.join(data_dir, f"{prefix}_*.pb"))
    pattern = re.compile(rf"{prefix}_(\d+)\.pb$")
    numbered = [(int(m.group(1)), p) for p in paths if (m := pattern.search(os.path.basename(p)))]
    return [p for _, p in sorted(numbered)]


def _load(path: str) -> tuple[str, numpy.ndarray]:
    tensor = onnx.load_tensor(path)
    return tensor.name, onnx.numpy_helper.to_array(tensor)


def load_test_data(
    data_dir: str, input_names: Sequence[str], output_names: Sequence[str]
) -> tuple[dict[str, numpy.ndarray], list[tuple[str, numpy.ndarray]]]:
    """Read a test data set written by :func:`onnx_chainer.export_testcase`.

    Args:
        data_dir: The ``test_data_set_<n>`` folder.
        input_names: The graph inputs to feed: an input file is matched by the name
            stored in it, or, if no stored name matches, by its position.
        output_names: The graph outputs, in order: output files are matched by
            position (the name stored in them is not used).

    Returns:
        ``(inputs, outputs)``: ``{input name: array}`` and ``[(output name, array)]``.
    """
    loaded = [_load(p) for p in _numbered(data_dir, "input")]
    by_name = dict(loaded)
    inputs = {}
    for i, name in enumerate(input_names):
        if name in by_name:
            inputs[name] = by_name[name]
        elif i < len(loaded):
            inputs[name] = loaded[i][1]
        else:
            raise ValueError(f"onnx_chainer load_test_data: no data for the input {name!r} in {data_dir}")
    expected = [array for _, array in (_load(p) for p in _numbered(data_dir, "output"))]
    if len(expected) != len(output_names):
        raise ValueError(
            f"onnx_chainer load_test_data: {data_dir} has {len(expected)} output file(s) for "
            f"{len(output_names)} output(s)"
        )
    return inputs, list(zip(output_names, expected))


def check_model_expect(
    test_path: str, input_names: Sequence[str] | None = None, rtol: float = 1e-5, atol: float = 1e-5
) -> None:
    """Run ``test_path/model.onnx`` with onnxruntime on ``test_data_set_0`` and compare.

    Args:
        test_path: A folder written by :func:`onnx_chainer.export_testcase`.
        input_names: The graph inputs to feed (default: the graph inputs that are not
            initializers).
        rtol: Relative tolerance of the comparison with the expected outputs.
        atol: Absolute tolerance.

    Raises:
        ImportError: onnxruntime is not installed.
        AssertionError: An output differs (in shape or value) from the expected one.
    """
    if not ONNXRUNTIME_AVAILABLE:
        raise ImportError("onnx_chainer.testing.test_onnxruntime needs onnxruntime: pip install onnxruntime")
    import onnxruntime

    model_path = os.path.join(test_path, "model.onnx")
    onnx_model = onnx.load(model_path)
    if input_names is None:
        initializers = {i.name for i in onnx_model.graph.initializer}
        input_names = [i.name for i in onnx_model.graph.input if i.name not in initializers]
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    output_names = [o.name for o in session.get_outputs()]
    feeds, expected = load_test_data(os.path.join(test_path, "test_data_set_0"), input_names, output_names)
    actual = session.run(output_names, feeds)
    for (name, want), got in zip(expected, actual):
        got = numpy.asarray(got)
        assert got.shape == want.shape, f"output {name!r}: shape {got.shape}, expected {want.shape}"
        numpy.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"output {name!r}")
