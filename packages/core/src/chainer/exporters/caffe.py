"""Export a Chainer model to Caffe: ``chainer_model.prototxt`` and ``chainer_model.caffemodel``.

The model is run once on the given arguments (in test mode); every function it applies
becomes a Caffe layer, and the arrays the functions use besides the data (weights,
biases, statistics) become the layers' blobs. The messages are those of
:mod:`chainer.links.caffe.protobuf3.caffe_pb2` (the distribution chainer-links with its
``caffe`` extra), so :class:`chainer.links.caffe.CaffeFunction` reads the result back.

Supported functions: ``LinearFunction`` (InnerProduct), ``Reshape``,
``Convolution2DFunction`` (Convolution), ``Deconvolution2DFunction`` (Deconvolution),
``AveragePooling2D`` and ``MaxPooling2D`` (Pooling), ``BatchNormalization`` and
``FixedBatchNormalization`` (BatchNorm followed by Scale), ``ReLU``, ``LeakyReLU``,
``Softmax``, ``Sigmoid`` and ``Add`` (Eltwise sum).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend, configuration, function_hook, variable

_PROTOTXT = "chainer_model.prototxt"
_CAFFEMODEL = "chainer_model.caffemodel"


def _caffe_pb() -> Any:
    try:
        return importlib.import_module("chainer.links.caffe.protobuf3.caffe_pb2")
    except ImportError as exc:
        raise ImportError(
            "chainer.exporters.caffe needs Caffe's protocol-buffer messages, from the distribution chainer-links "
            f"with its caffe extra: pip install 'chainer-links[caffe]' ({exc})"
        ) from exc


def _add_blob(layer: Any, shape: tuple[int, ...], data: Any) -> None:
    """Append a blob of ``shape`` holding ``data`` (any array, stored as float32) to ``layer``."""
    blob = layer.blobs.add()
    blob.shape.dim.extend(int(d) for d in shape)
    blob.data.extend(numpy.asarray(backend.cpu().send(data), dtype=numpy.float32).ravel().tolist())


class _RetrieveAsCaffeModel(function_hook.FunctionHook):
    """Records each function applied, in order, with its input arrays."""

    name = "_RetrieveAsCaffeModel"

    def __init__(self) -> None:
        self.calls: list[tuple[Any, tuple[Any, ...]]] = []

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.calls.append((function, tuple(in_data)))


def _pair(values: tuple[int, ...], where: str) -> tuple[int, int]:
    if len(values) != 2:
        raise NotImplementedError(f"chainer.exporters.caffe: {where} must be 2-dimensional, got {values}")
    return int(values[0]), int(values[1])


def _set_conv(param: Any, func: Any, n_out: int, ksize: tuple[int, int], bias_term: bool) -> None:
    param.num_output = n_out
    param.bias_term = bias_term
    param.kernel_h, param.kernel_w = ksize
    param.stride_h, param.stride_w = _pair(func.stride, "the stride")
    param.pad_h, param.pad_w = _pair(func.pad, "the padding")
    dilate = _pair(func.dilate, "the dilation")
    if dilate != (1, 1):
        param.dilation.extend(dilate)
    if getattr(func, "groups", 1) != 1:
        param.group = int(func.groups)


def _weights(layer: Any, ins: tuple[Any, ...], params: bool) -> bool:
    """Store the weight (input 1) and the bias (input 2, if given) as blobs; return
    whether there is a bias."""
    bias = len(ins) > 2 and ins[2] is not None
    if params:
        for array in ins[1:3] if bias else ins[1:2]:
            _add_blob(layer, array.shape, array)
    return bias


def _linear(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "InnerProduct"
    layer.inner_product_param.num_output = int(ins[1].shape[0])
    layer.inner_product_param.bias_term = _weights(layer, ins, params)
    return 1, None


def _convolution(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "Convolution"
    W = ins[1]
    bias = _weights(layer, ins, params)
    _set_conv(layer.convolution_param, func, int(W.shape[0]), _pair(W.shape[2:], "the kernel"), bias)
    return 1, None


def _deconvolution(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "Deconvolution"
    W = ins[1]
    bias = _weights(layer, ins, params)
    n_out = int(W.shape[1]) * int(getattr(func, "groups", 1))
    _set_conv(layer.convolution_param, func, n_out, _pair(W.shape[2:], "the kernel"), bias)
    return 1, None


def _pooling(method: str) -> Callable[..., tuple[int, Any]]:
    def convert(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
        layer.type = "Pooling"
        param = layer.pooling_param
        param.pool = getattr(pb.PoolingParameter, method)
        param.kernel_h, param.kernel_w = _pair(func.ksize, "the pooling window")
        param.stride_h, param.stride_w = _pair(func.stride, "the pooling stride")
        param.pad_h, param.pad_w = _pair(func.pad, "the pooling padding")
        return 1, None

    return convert


def _reshape(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "Reshape"
    # The requested shape (with its -1), so the network takes other batch sizes too.
    layer.reshape_param.shape.dim.extend(int(d) for d in func.shape)
    return 1, None


def _batch_normalization(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    # Caffe splits it: BatchNorm normalizes with the statistics, Scale applies gamma and beta.
    x, gamma, beta = ins[0], ins[1], ins[2]
    if len(ins) >= 5:
        mean, var = ins[3], ins[4]
    else:  # training mode normalizes with the batch statistics
        axes = tuple(i for i in range(x.ndim) if i != 1)
        xp = backend.get_array_module(x)
        mean, var = xp.mean(x, axis=axes), xp.var(x, axis=axes)
    layer.type = "BatchNorm"
    layer.batch_norm_param.use_global_stats = True
    layer.batch_norm_param.eps = float(func.eps)
    if params:
        _add_blob(layer, mean.shape, mean)
        _add_blob(layer, var.shape, var)
        _add_blob(layer, (1,), numpy.ones(1, numpy.float32))
    scale = pb.LayerParameter(type="Scale")
    scale.scale_param.axis = 1
    scale.scale_param.bias_term = True
    if params:
        _add_blob(scale, gamma.shape, gamma)
        _add_blob(scale, beta.shape, beta)
    return 1, scale


def _relu(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "ReLU"
    return 1, None


def _leaky_relu(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "ReLU"
    layer.relu_param.negative_slope = float(func.slope)
    return 1, None


def _softmax(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "Softmax"
    layer.softmax_param.axis = int(func.axis)
    return 1, None


def _sigmoid(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "Sigmoid"
    return 1, None


def _add(pb: Any, layer: Any, func: Any, ins: tuple[Any, ...], params: bool) -> tuple[int, Any]:
    layer.type = "Eltwise"
    layer.eltwise_param.operation = pb.EltwiseParameter.SUM
    return len(ins), None


# Function class name -> converter filling the layer; it returns how many leading inputs
# are data (bottoms; the others are parameters, stored as blobs) and a second layer to
# append, if the function needs two (BatchNorm + Scale).
_CONVERTERS: dict[str, Callable[..., tuple[int, Any]]] = {
    "LinearFunction": _linear,
    "Reshape": _reshape,
    "Convolution2DFunction": _convolution,
    "Deconvolution2DFunction": _deconvolution,
    "AveragePooling2D": _pooling("AVE"),
    "MaxPooling2D": _pooling("MAX"),
    "BatchNormalization": _batch_normalization,
    "FixedBatchNormalization": _batch_normalization,
    "ReLU": _relu,
    "LeakyReLU": _leaky_relu,
    "Softmax": _softmax,
    "Sigmoid": _sigmoid,
    "Add": _add,
}


def _dump_graph(outputs: Any) -> list[Any]:
    """The function nodes behind ``outputs``, in the order they were applied (the graph is
    walked backwards from the outputs; ranks give the order)."""
    found: dict[int, Any] = {}
    stack = [y.creator_node for y in outputs if isinstance(y, variable.Variable)]
    while stack:
        func = stack.pop()
        if func is None or id(func) in found:
            continue
        found[id(func)] = func
        stack.extend(node.creator_node for node in func.inputs or ())
    return sorted(found.values(), key=lambda f: f.rank)


def export(
    model: Any, args: Any, directory: str | None = None, export_params: bool = True, graph_name: str = "Graph"
) -> None:
    """Export ``model`` applied to ``args`` as a Caffe network.

    Writes ``chainer_model.prototxt`` (the network) and, with ``export_params``,
    ``chainer_model.caffemodel`` (the network with its weights) into ``directory`` (the
    current directory if ``None``). The first argument is the input blob ``data`` (then
    ``data1``, ``data2``...); each layer's output blob has the layer's name.

    Args:
        model: A callable (usually a :class:`~chainer.Chain`) applied to ``args``.
        args: The model's arguments: a variable or array, or a tuple/list of them.
        directory: Where to write the files.
        export_params: Also write the weights (``.caffemodel``).
        graph_name: The network's name.

    Raises:
        NotImplementedError: The model applies a function that has no Caffe layer here.
    """
    pb = _caffe_pb()
    directory = os.getcwd() if directory is None else directory
    if not isinstance(args, (tuple, list)):
        args = (args,)
    inputs = [a if isinstance(a, variable.Variable) else variable.Variable(a) for a in args]
    hook = _RetrieveAsCaffeModel()
    with configuration.using_config("train", False), configuration.using_config("enable_backprop", True), hook:
        outputs = model(*inputs)
    outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    in_data = {id(f): ins for f, ins in hook.calls}
    # In the order they were applied (ranks tie among independent branches).
    in_graph = {id(f) for f in _dump_graph(outputs)}
    functions = [f for f, _ in hook.calls if id(f) in in_graph]
    unsupported = sorted({type(f).__name__ for f in functions} - set(_CONVERTERS))
    if unsupported:
        raise NotImplementedError(
            f"chainer.exporters.caffe.export: no Caffe layer for the function(s) {', '.join(unsupported)}; "
            f"supported: {', '.join(sorted(_CONVERTERS))}"
        )

    blob_of: dict[int, str] = {}
    net = pb.NetParameter(name=graph_name)
    for i, x in enumerate(inputs):
        name = "data" if i == 0 else f"data{i}"
        blob_of[id(x.node)] = name
        net.input.append(name)
        net.input_shape.add().dim.extend(int(d) for d in x.shape)
    counts: dict[str, int] = {}
    for func in functions:
        kind = type(func).__name__
        counts[kind] = counts.get(kind, 0) + 1
        layer = net.layer.add(name=f"{kind}{counts[kind]}")
        n_data, scale = _CONVERTERS[kind](pb, layer, func, in_data[id(func)], export_params)
        for node in func.inputs[:n_data]:
            name = blob_of.get(id(node))
            if name is None:
                raise NotImplementedError(
                    f"chainer.exporters.caffe.export: an input of {kind} is neither the model's input nor "
                    "computed by a function applied to it"
                )
            layer.bottom.append(name)
        top = layer.name
        if scale is not None:
            # The pair: BatchNorm '<name>_bn' then Scale '<name>', whose output is the function's.
            layer.name = top + "_bn"
            layer.top.append(layer.name)
            scale.name = top
            scale.bottom.append(layer.name)
            scale.top.append(top)
            net.layer.append(scale)
        else:
            layer.top.append(top)
        for k, ref in enumerate(func.outputs or ()):
            out = ref()
            if out is not None:
                blob_of[id(out)] = top if k == 0 else f"{top}_{k}"

    os.makedirs(directory, exist_ok=True)
    if export_params:
        with open(os.path.join(directory, _CAFFEMODEL), "wb") as f:
            f.write(net.SerializeToString())
    for layer in net.layer:
        del layer.blobs[:]
    text_format = importlib.import_module("google.protobuf.text_format")
    with open(os.path.join(directory, _PROTOTXT), "w") as f:
        f.write(text_format.MessageToString(net))
