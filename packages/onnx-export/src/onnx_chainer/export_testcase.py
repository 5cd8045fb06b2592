"""``onnx_chainer.export_testcase``: a model with its inputs and outputs, as ONNX test data."""

from __future__ import annotations

import os
from typing import Any

import chainer
from chainer.backends import cuda
from onnx_chainer import onnx_helper

# From the module: in the package, onnx_chainer.export is the function.
from onnx_chainer.export import export as _export

__all__ = ["export_testcase"]


def export_testcase(model: Any, args: Any, out_dir: Any, output_grad: bool = False, **kwargs: Any) -> Any:
    """Export model and I/O tensors of the model in protobuf format.

    Writes the layout of the ONNX backend test data::

        out_dir/model.onnx
        out_dir/test_data_set_0/input_0.pb ...   one per graph input
        out_dir/test_data_set_0/output_0.pb ...  one per graph output

    With ``output_grad=True`` the model's first output is summed and back-propagated,
    and the gradient of every parameter is written as ``gradient_<i>.pb`` (named like
    the parameter), in the order of ``model.namedparams()``.

    Args:
        model: The model (see :func:`onnx_chainer.export`).
        args: Its inputs.
        out_dir: Directory to write to (created if missing).
        output_grad: Also write the parameter gradients.
        **kwargs: Other arguments of :func:`onnx_chainer.export`
            (``return_named_inout`` is set by this function).

    Returns:
        The :class:`onnx.ModelProto`.
    """
    for key in ("return_named_inout", "no_testcase", "filename"):
        if key in kwargs:
            raise TypeError(f"onnx_chainer.export_testcase: {key} is set by export_testcase itself")
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    if output_grad:
        # The gradients are of the forward pass export() runs: reset them first.
        if isinstance(model, chainer.Link):
            model.cleargrads()
    onnx_model, inputs, outputs = _export(
        model, args, filename=os.path.join(out_dir, "model.onnx"), return_named_inout=True, no_testcase=True, **kwargs
    )
    data_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    graph_inputs = [i.name for i in onnx_model.graph.input]
    for i, (name, var) in enumerate(inputs.items()):
        onnx_helper.write_tensor_pb(os.path.join(data_dir, f"input_{i}.pb"), name, var.array)
    # With export_params=False the parameters are graph inputs too, after the model's.
    params = {}
    if isinstance(model, chainer.Link):
        params = {onnx_helper.cleanse_param_name(path): p.array for path, p in model.namedparams()}
    extra = [n for n in graph_inputs if n not in inputs and n in params]
    for j, name in enumerate(extra):
        onnx_helper.write_tensor_pb(os.path.join(data_dir, f"input_{len(inputs) + j}.pb"), name, params[name])
    for i, (name, var) in enumerate(outputs.items()):
        onnx_helper.write_tensor_pb(os.path.join(data_dir, f"output_{i}.pb"), name, var.array)
    if output_grad:
        if not isinstance(model, chainer.Link):
            raise TypeError("onnx_chainer.export_testcase: output_grad=True needs a chainer.Link model")
        first = next(iter(outputs.values()))
        loss = chainer.functions.sum(first)
        loss.backward()
        for i, (path, param) in enumerate(model.namedparams()):
            if param.grad is None:
                continue
            onnx_helper.write_tensor_pb(
                os.path.join(data_dir, f"gradient_{i}.pb"),
                onnx_helper.cleanse_param_name(path),
                cuda.to_cpu(param.grad),
            )
    return onnx_model
