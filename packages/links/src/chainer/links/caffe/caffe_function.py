"""Running Caffe models: :class:`CaffeFunction` reads a ``.caffemodel`` file and emulates
its network with Chainer links and functions."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy

import chainer
from chainer import functions, link, variable
from chainer.links.caffe.protobuf3 import caffe_pb2 as caffe_pb
from chainer.links.connection import convolution_2d, deconvolution_2d, linear
from chainer.links.connection import scale as scale_module
from chainer.links.normalization import batch_normalization
from chainer.utils import argument

_WHERE = "CaffeFunction"

# The layer types of the old format (NetParameter.layers) under their current names.
_V1_TYPES = {
    caffe_pb.V1LayerParameter.CONCAT: "Concat",
    caffe_pb.V1LayerParameter.CONVOLUTION: "Convolution",
    caffe_pb.V1LayerParameter.DATA: "Data",
    caffe_pb.V1LayerParameter.DECONVOLUTION: "Deconvolution",
    caffe_pb.V1LayerParameter.DROPOUT: "Dropout",
    caffe_pb.V1LayerParameter.ELTWISE: "Eltwise",
    caffe_pb.V1LayerParameter.IMAGE_DATA: "ImageData",
    caffe_pb.V1LayerParameter.INNER_PRODUCT: "InnerProduct",
    caffe_pb.V1LayerParameter.LRN: "LRN",
    caffe_pb.V1LayerParameter.POOLING: "Pooling",
    caffe_pb.V1LayerParameter.RELU: "ReLU",
    caffe_pb.V1LayerParameter.SIGMOID: "Sigmoid",
    caffe_pb.V1LayerParameter.SLICE: "Slice",
    caffe_pb.V1LayerParameter.SOFTMAX: "Softmax",
    caffe_pb.V1LayerParameter.SOFTMAX_LOSS: "SoftmaxWithLoss",
    caffe_pb.V1LayerParameter.SPLIT: "Split",
    caffe_pb.V1LayerParameter.TANH: "TanH",
}

# Layers that only feed data into a Caffe net: inputs come from forward()'s arguments here.
_DATA_LAYERS = frozenset({"Data", "DummyData", "HDF5Data", "ImageData", "Input", "MemoryData", "WindowData"})

_ENGINE_CUDNN = {
    caffe_pb.SoftmaxParameter.CAFFE: "never",
    caffe_pb.SoftmaxParameter.CUDNN: "always",
}


# -- what a layer computes ----------------------------------------------------------------


class _FunctionCall:
    """Calls ``chainer.functions.<name>(x, *args, **kwargs)``; the function is looked up
    at each call, so it can be replaced (as a direct call in user code would see it)."""

    def __init__(self, name: str, *args: Any, use_cudnn: str | None = None, **kwargs: Any) -> None:
        self.name = name
        self.args = args
        self.kwargs = kwargs
        self.use_cudnn = use_cudnn

    def __call__(self, x: Any) -> Any:
        function = getattr(functions, self.name)
        if self.use_cudnn is None:
            return function(x, *self.args, **self.kwargs)
        with chainer.using_config("use_cudnn", self.use_cudnn):
            return function(x, *self.args, **self.kwargs)


class _ListCall(_FunctionCall):
    """Calls ``chainer.functions.<name>(inputs, **kwargs)`` with all the inputs as one tuple."""

    def __call__(self, *xs: Any) -> Any:  # type: ignore[override]
        return getattr(functions, self.name)(xs, *self.args, **self.kwargs)


class _UnpackedCall(_FunctionCall):
    """Calls ``chainer.functions.<name>(*inputs)`` (e.g. a loss of a score and a label)."""

    def __call__(self, *xs: Any) -> Any:  # type: ignore[override]
        return getattr(functions, self.name)(*xs, *self.args, **self.kwargs)


class _GlobalPooling:
    """A pooling over the whole spatial extent of its input."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, x: Any) -> Any:
        return getattr(functions, self.name)(x, tuple(x.shape[2:]), stride=1, pad=0)


class _Reshape:
    """Caffe's reshape: ``0`` keeps the input's dimension, ``-1`` is inferred, and
    ``axis``/``num_axes`` select the part of the input shape that is replaced."""

    def __init__(self, dims: Sequence[int], axis: int, num_axes: int) -> None:
        self.dims = [int(d) for d in dims]
        self.axis = axis
        self.num_axes = num_axes

    def __call__(self, x: Any) -> Any:
        shape = self.dims
        if 0 in shape or self.axis != 0 or self.num_axes != -1:
            in_shape = list(x.shape)
            start = self.axis if self.axis >= 0 else len(in_shape) + 1 + self.axis
            end = len(in_shape) if self.num_axes == -1 else start + self.num_axes
            replaced = [in_shape[start + i] if d == 0 else d for i, d in enumerate(shape)]
            shape = in_shape[:start] + replaced + in_shape[end:]
        return functions.reshape(x, shape=shape)


class _Eltwise:
    """Caffe's element-wise layer: a product, a (weighted) sum or a maximum of its inputs."""

    def __init__(self, operation: int, coeffs: Sequence[float]) -> None:
        self.operation = operation
        self.coeffs = list(coeffs)

    def __call__(self, *xs: Any) -> Any:
        if self.operation == caffe_pb.EltwiseParameter.PROD:
            y = xs[0]
            for x in xs[1:]:
                y = y * x
            return y
        if self.operation == caffe_pb.EltwiseParameter.SUM:
            if not self.coeffs:
                y = xs[0]
                for x in xs[1:]:
                    y = y + x
                return y
            if len(self.coeffs) != len(xs):
                raise _CoefficientCountError(
                    f"{_WHERE}: an Eltwise SUM layer has {len(self.coeffs)} coefficients for {len(xs)} inputs"
                )
            y = xs[0] * self.coeffs[0]
            for x, coeff in zip(xs[1:], self.coeffs[1:]):
                y = y + x * coeff
            return y
        if self.operation == caffe_pb.EltwiseParameter.MAX:
            y = xs[0]
            for x in xs[1:]:
                y = functions.maximum(y, x)
            return y
        raise RuntimeError(f"{_WHERE}: unknown Eltwise operation {self.operation}")


class _CoefficientCountError(ValueError, AssertionError):
    """Eltwise coefficients that do not match the inputs (Chainer 7 asserted the count)."""


class _ChildLinkCall:
    """Calls the child link ``name`` of the CaffeFunction (looked up at each call, so a
    copied function calls its own links)."""

    def __init__(self, owner: link.Chain, name: str, train: bool | None = None, **kwargs: Any) -> None:
        self.owner = owner
        self.name = name
        self.train = train
        self.kwargs = kwargs

    def __call__(self, *xs: Any) -> Any:
        child = getattr(self.owner, self.name)
        if self.train is None:
            return child(*xs, **self.kwargs)
        with chainer.using_config("train", self.train):
            return child(*xs, **self.kwargs)


# -- reading blobs -----------------------------------------------------------------------------


def _blob_shape(blob: Any) -> tuple[int, ...]:
    """The shape of a blob: ``shape.dim``, or the old ``(num, channels, height, width)``."""
    if blob.HasField("shape"):
        return tuple(int(d) for d in blob.shape.dim)
    return (blob.num, blob.channels, blob.height, blob.width)


def _blob_data(blob: Any) -> numpy.ndarray:
    """The values of a blob as a flat float32 array."""
    if len(blob.data):
        return numpy.asarray(blob.data, dtype=numpy.float32)
    return numpy.asarray(blob.double_data, dtype=numpy.float32)


def _fill(param: Any, blob: Any, layer_name: str) -> None:
    data = _blob_data(blob)
    if data.size != param.size:
        raise ValueError(
            f"{_WHERE}: layer {layer_name!r}: a blob has {data.size} values but the parameter {param.name!r} "
            f"has shape {param.shape}"
        )
    param.array[...] = data.reshape(param.shape)


def _pair(values: Sequence[int], default: int) -> int | tuple[int, int]:
    # A repeated size field: one value for both axes, two for (height, width).
    if len(values) == 0:
        return default
    if len(values) == 1:
        return int(values[0])
    return int(values[0]), int(values[1])


def _conv_sizes(param: Any) -> tuple[Any, Any, Any, Any]:
    """``(ksize, stride, pad, dilate)`` of a convolution parameter."""
    if param.HasField("kernel_h") or param.HasField("kernel_w"):
        ksize: Any = (param.kernel_h, param.kernel_w)
    else:
        ksize = _pair(param.kernel_size, 0)
    if param.HasField("stride_h") or param.HasField("stride_w"):
        stride: Any = (param.stride_h, param.stride_w)
    else:
        stride = _pair(param.stride, 1)
    if param.HasField("pad_h") or param.HasField("pad_w"):
        pad: Any = (param.pad_h, param.pad_w)
    else:
        pad = _pair(param.pad, 0)
    dilate = _pair(param.dilation, 1)
    return ksize, stride, pad, dilate


def _pooling_size(param: Any, name: str, single: str, default: int | None) -> Any:
    """A size of a pooling parameter: ``(name_h, name_w)`` if given, else ``name``."""
    if param.HasField(f"{name}_h") or param.HasField(f"{name}_w"):
        return getattr(param, f"{name}_h"), getattr(param, f"{name}_w")
    value = getattr(param, single)
    return default if value is None else value


class CaffeFunction(link.Chain):
    """A Caffe network (a ``.caffemodel`` file) as a Chainer link.

    ``CaffeFunction(model_path)``

    The layers of the network become child links (named after the layers, holding the
    trained parameters) or function calls; calling the object runs the network from
    given input blobs to requested output blobs::

        >>> func = CaffeFunction('bvlc_googlenet.caffemodel')  # doctest: +SKIP
        >>> y, = func(inputs={'data': x}, outputs=['loss3/classifier'])  # doctest: +SKIP

    Supported layer types (the others are skipped with a warning): BatchNorm, Concat,
    Convolution, Deconvolution, Dropout, Eltwise, InnerProduct, LRN (across channels),
    Pooling (max and average), ReLU, Reshape, Scale, Sigmoid, Slice, Softmax,
    SoftmaxWithLoss, Split and TanH; data layers (Data, Input, ...) are ignored, as the
    inputs are given to :meth:`forward`. Both Caffe's current layer format and the older
    one (``layers``) are read. Grouped convolutions become convolutions over all the
    channels with a block-diagonal kernel, as in Chainer 7.

    The file is parsed with protobuf (``pip install 'chainer-links[caffe]'``); nothing in
    it is unpickled or executed.

    Args:
        model_path: Path of the binary ``.caffemodel`` file.

    Attributes:
        forwards (dict): The callable of each layer, by layer name.
        split_map (dict): The blobs of Split layers: each output blob name maps to the
            blob it copies.
        layers (list): ``(layer name, bottom blob names, top blob names)`` of each
            emulated layer, in the order of the network.
    """

    def __init__(self, model_path: Any) -> None:
        super().__init__()
        if not isinstance(model_path, (str, bytes, os.PathLike)):
            raise TypeError(f"{_WHERE}: model_path must be a path, got {type(model_path).__name__}")
        net = caffe_pb.NetParameter()
        with open(model_path, "rb") as f:
            content = f.read()
        try:
            net.MergeFromString(content)
        except Exception as error:  # protobuf's DecodeError and friends
            raise ValueError(
                f"{_WHERE}: {os.fspath(model_path)!r} is not a binary Caffe model (a NetParameter message): {error}"
            ) from error
        self.forwards: dict[str, Callable[..., Any]] = {}
        self.split_map: dict[str, str] = {}
        self.layers: list[tuple[str, list[str], list[str]]] = []
        if len(net.layer):
            for layer in net.layer:
                self._add_layer(layer, layer.type)
        else:
            for layer in net.layers:
                self._add_layer(layer, _V1_TYPES.get(layer.type, caffe_pb.V1LayerParameter.LayerType.Name(layer.type)))

    # -- building ----------------------------------------------------------------------------

    def _add_layer(self, layer: Any, type_name: str) -> None:
        if type_name in _DATA_LAYERS:
            return
        setup = _SETUPS.get(type_name)
        if setup is None:
            warnings.warn(
                f"{_WHERE}: skipping layer {layer.name!r}: the {type_name} layer type is not supported",
                UserWarning,
                stacklevel=3,
            )
            return
        setup(self, layer)

    def _register(self, layer: Any, call: Callable[..., Any]) -> None:
        self.forwards[layer.name] = call
        self.layers.append((layer.name, list(layer.bottom), list(layer.top)))

    def _register_link(self, layer: Any, child: link.Link, **call_options: Any) -> None:
        self.add_link(layer.name, child)
        self._register(layer, _ChildLinkCall(self, layer.name, **call_options))

    def _setup_concat(self, layer: Any) -> None:
        param = layer.concat_param
        if param.HasField("axis"):
            axis = param.axis
        elif param.HasField("concat_dim"):
            axis = param.concat_dim
        else:
            axis = 1
        self._register(layer, _ListCall("concat", axis=axis))

    def _setup_convolution(self, layer: Any) -> None:
        self._setup_kernel_layer(layer, convolution_2d.Convolution2D, transposed=False)

    def _setup_deconvolution(self, layer: Any) -> None:
        self._setup_kernel_layer(layer, deconvolution_2d.Deconvolution2D, transposed=True)

    def _setup_kernel_layer(self, layer: Any, link_class: Any, transposed: bool) -> None:
        """A (de)convolution. Caffe's kernel blob is ``(out, in / group, kh, kw)`` for a
        convolution and ``(in, out / group, kh, kw)`` for a deconvolution, the layouts of
        Chainer's W; a grouped layer becomes one over all the channels with a
        block-diagonal kernel, as in Chainer 7."""
        param = layer.convolution_param
        if param.axis != 1:
            raise RuntimeError(f"{_WHERE}: layer {layer.name!r}: only axis=1 (de)convolutions are supported")
        ksize, stride, pad, dilate = _conv_sizes(param)
        groups = max(int(param.group), 1)
        blob = layer.blobs[0]
        rows, group_cols = _blob_shape(blob)[:2]
        n_in, n_out = (rows, group_cols * groups) if transposed else (group_cols * groups, rows)
        child = link_class(n_in, n_out, ksize, stride, pad, nobias=not param.bias_term, dilate=dilate)
        weight = _blob_data(blob).reshape((rows, group_cols) + child.W.shape[2:])
        child.W.array[...] = 0
        group_rows = rows // groups
        for g in range(groups):
            block = slice(g * group_rows, (g + 1) * group_rows)
            child.W.array[block, g * group_cols : (g + 1) * group_cols] = weight[block]
        if param.bias_term:
            _fill(child.b, layer.blobs[1], layer.name)
        self._register_link(layer, child)

    def _setup_dropout(self, layer: Any) -> None:
        self._register(layer, _FunctionCall("dropout", ratio=layer.dropout_param.dropout_ratio))

    def _setup_inner_product(self, layer: Any) -> None:
        param = layer.inner_product_param
        if param.axis != 1:
            raise RuntimeError(f"{_WHERE}: layer {layer.name!r}: only axis=1 inner products are supported")
        blob = layer.blobs[0]
        shape = _blob_shape(blob)
        if len(shape) == 2:
            n_out, n_in = shape
        elif len(shape) == 4:
            # The old 4-D blobs keep the matrix in (height, width).
            n_out, n_in = shape[2], shape[3]
        else:
            raise RuntimeError(
                f"{_WHERE}: layer {layer.name!r}: an InnerProduct weight blob must have 2 or 4 axes, got shape {shape}"
            )
        fc = linear.Linear(n_in, n_out, nobias=not param.bias_term)
        _fill(fc.W, blob, layer.name)
        if param.bias_term:
            _fill(fc.b, layer.blobs[1], layer.name)
        self._register_link(layer, fc)

    def _setup_lrn(self, layer: Any) -> None:
        param = layer.lrn_param
        if param.norm_region != caffe_pb.LRNParameter.ACROSS_CHANNELS:
            raise RuntimeError(f"{_WHERE}: layer {layer.name!r}: only LRN across channels is supported")
        n = param.local_size
        self._register(
            layer,
            _FunctionCall("local_response_normalization", n=n, k=param.k, alpha=param.alpha / n, beta=param.beta),
        )

    def _setup_pooling(self, layer: Any) -> None:
        param = layer.pooling_param
        names = {caffe_pb.PoolingParameter.MAX: "max_pooling_2d", caffe_pb.PoolingParameter.AVE: "average_pooling_2d"}
        name = names.get(param.pool)
        if name is None:
            raise RuntimeError(
                f"{_WHERE}: layer {layer.name!r}: {caffe_pb.PoolingParameter.PoolMethod.Name(param.pool)} "
                "pooling is not supported (only MAX and AVE)"
            )
        if param.global_pooling:
            self._register(layer, _GlobalPooling(name))
            return
        ksize = _pooling_size(param, "kernel", "kernel_size", None)
        stride = _pooling_size(param, "stride", "stride", 1)
        pad = _pooling_size(param, "pad", "pad", 0)
        self._register(layer, _FunctionCall(name, ksize, stride=stride, pad=pad))

    def _setup_relu(self, layer: Any) -> None:
        slope = layer.relu_param.negative_slope
        if slope != 0:
            self._register(layer, _FunctionCall("leaky_relu", slope=slope))
        else:
            self._register(layer, _FunctionCall("relu"))

    def _setup_reshape(self, layer: Any) -> None:
        param = layer.reshape_param
        self._register(layer, _Reshape(param.shape.dim, param.axis, param.num_axes))

    def _setup_batch_norm(self, layer: Any) -> None:
        param = layer.batch_norm_param
        mean, var = (_blob_data(blob) for blob in layer.blobs[:2])
        # Caffe stores the running sums and, in a third blob, the factor that scales them.
        factor = float(_blob_data(layer.blobs[2])[0]) if len(layer.blobs) > 2 else 1.0
        scale = 0.0 if factor == 0 else 1.0 / factor
        bn = batch_normalization.BatchNormalization(
            mean.size, decay=param.moving_average_fraction, eps=param.eps, use_gamma=False, use_beta=False
        )
        bn.avg_mean[...] = mean * scale
        bn.avg_var[...] = var * scale
        # use_global_stats: the stored statistics also while training.
        train = False if param.HasField("use_global_stats") and param.use_global_stats else None
        self._register_link(layer, bn, train=train, finetune=False)

    def _setup_eltwise(self, layer: Any) -> None:
        param = layer.eltwise_param
        self._register(layer, _Eltwise(param.operation, param.coeff))

    def _setup_scale(self, layer: Any) -> None:
        param = layer.scale_param
        blobs = list(layer.blobs)
        if len(layer.bottom) == 1:
            # The scale is a parameter (the first blob), followed by the bias, if any.
            w_blob = blobs.pop(0)
            scale = scale_module.Scale(param.axis, _blob_shape(w_blob), param.bias_term)
            _fill(scale.W, w_blob, layer.name)
        else:
            # The scale is the second input; the only blob is the bias.
            bias_shape = _blob_shape(blobs[0]) if param.bias_term else None
            scale = scale_module.Scale(param.axis, None, param.bias_term, bias_shape)
        if param.bias_term:
            _fill(scale.bias.b, blobs[0], layer.name)
        self._register_link(layer, scale)

    def _setup_sigmoid(self, layer: Any) -> None:
        self._register(layer, _FunctionCall("sigmoid"))

    def _setup_tanh(self, layer: Any) -> None:
        self._register(layer, _FunctionCall("tanh"))

    def _setup_slice(self, layer: Any) -> None:
        param = layer.slice_param
        if param.HasField("axis"):
            axis = param.axis
        elif param.HasField("slice_dim"):
            axis = param.slice_dim
        else:
            axis = 1
        sections: Any = list(param.slice_point) if len(param.slice_point) else len(layer.top)
        self._register(layer, _FunctionCall("split_axis", indices_or_sections=sections, axis=axis))

    def _setup_softmax(self, layer: Any) -> None:
        param = layer.softmax_param
        if param.axis != 1:
            raise RuntimeError(f"{_WHERE}: layer {layer.name!r}: only a softmax over axis 1 is supported")
        self._register(layer, _FunctionCall("softmax", use_cudnn=_ENGINE_CUDNN.get(param.engine)))

    def _setup_softmax_with_loss(self, layer: Any) -> None:
        if layer.softmax_param.axis != 1:
            raise RuntimeError(f"{_WHERE}: layer {layer.name!r}: only a softmax over axis 1 is supported")
        self._register(layer, _UnpackedCall("softmax_cross_entropy"))

    def _setup_split(self, layer: Any) -> None:
        for top in layer.top:
            self.split_map[top] = layer.bottom[0]

    # -- running -------------------------------------------------------------------------------

    def _blob_name(self, name: str) -> str:
        while name in self.split_map:
            name = self.split_map[name]
        return name

    def forward(
        self, inputs: Mapping[str, Any], outputs: Iterable[str], disable: Iterable[str] = (), **kwargs: Any
    ) -> tuple[variable.Variable, ...]:
        """Run the network.

        Args:
            inputs: The input blobs: ``{blob name: variable or array}``.
            outputs: Names of the blobs to return.
            disable: Names of layers to skip (e.g. a loss layer whose label is not given).

        Returns:
            The output blobs, in the order of ``outputs``. Layers whose inputs are not
            available (neither given nor computed) are skipped.
        """
        argument.check_unexpected_kwargs(
            kwargs, train="train argument is not supported anymore. Use chainer.using_config"
        )
        argument.assert_kwargs_empty(kwargs)
        blobs = {self._blob_name(name): value for name, value in dict(inputs).items()}
        skipped = set(disable)
        for name, bottoms, tops in self.layers:
            if name in skipped:
                continue
            sources = [self._blob_name(bottom) for bottom in bottoms]
            if any(source not in blobs for source in sources):
                continue
            ys = self.forwards[name](*(blobs[source] for source in sources))
            if not isinstance(ys, (tuple, list)):
                ys = (ys,)
            for top, y in zip(tops, ys):
                blobs[top] = y
        results = []
        for name in outputs:
            source = self._blob_name(name)
            if source not in blobs:
                raise KeyError(
                    f"{_WHERE}: the blob {name!r} was not computed: no layer produces it from the given inputs "
                    f"{sorted(inputs)}"
                )
            results.append(blobs[source])
        return tuple(results)


_SETUPS: dict[str, Callable[[CaffeFunction, Any], None]] = {
    "BatchNorm": CaffeFunction._setup_batch_norm,
    "Concat": CaffeFunction._setup_concat,
    "Convolution": CaffeFunction._setup_convolution,
    "Deconvolution": CaffeFunction._setup_deconvolution,
    "Dropout": CaffeFunction._setup_dropout,
    "Eltwise": CaffeFunction._setup_eltwise,
    "InnerProduct": CaffeFunction._setup_inner_product,
    "LRN": CaffeFunction._setup_lrn,
    "Pooling": CaffeFunction._setup_pooling,
    "ReLU": CaffeFunction._setup_relu,
    "Reshape": CaffeFunction._setup_reshape,
    "Scale": CaffeFunction._setup_scale,
    "Sigmoid": CaffeFunction._setup_sigmoid,
    "Slice": CaffeFunction._setup_slice,
    "Softmax": CaffeFunction._setup_softmax,
    "SoftmaxWithLoss": CaffeFunction._setup_softmax_with_loss,
    "Split": CaffeFunction._setup_split,
    "TanH": CaffeFunction._setup_tanh,
}

__all__ = ["CaffeFunction"]
