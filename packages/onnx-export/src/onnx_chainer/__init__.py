"""onnx_chainer: export Chainer models to ONNX.

    >>> import onnx_chainer
    >>> model = chainer.Sequential(L.Linear(3, 2), F.relu)
    >>> x = np.zeros((1, 3), np.float32)
    >>> onnx_model = onnx_chainer.export(model, x, filename='model.onnx')
    >>> [node.op_type for node in onnx_model.graph.node]
    ['Gemm', 'Relu']

``onnx_chainer.export`` and ``onnx_chainer.export_testcase`` are the functions (their
modules stay importable under the same names). Converters for function nodes are
registered through the ``chainer_register_onnx_converters`` plugin hook (see
:mod:`onnx_chainer.mapping`).
"""

from onnx_chainer import context, functions, graph, mapping, onnx_helper, replace_func, testing
from onnx_chainer._version import __version__
from onnx_chainer.export import MAXIMUM_OPSET_VERSION, MINIMUM_OPSET_VERSION, convert_parameter, export
from onnx_chainer.export_testcase import export_testcase

__all__ = [
    "MAXIMUM_OPSET_VERSION",
    "MINIMUM_OPSET_VERSION",
    "__version__",
    "context",
    "convert_parameter",
    "export",
    "export_testcase",
    "functions",
    "graph",
    "mapping",
    "onnx_helper",
    "replace_func",
    "testing",
]
