"""Residual networks with 50, 101 and 152 layers (He et al., 2016) with Chainer's layer names."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy

import chainer.functions as F
from chainer import initializers, link
from chainer.links.connection import convolution_2d, linear
from chainer.links.model.vision import _common
from chainer.links.normalization import batch_normalization

_MEAN_BGR = (103.063, 115.903, 123.152)
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}

# Whether Pillow (needed by prepare() and the image inputs) is installed, as in Chainer 7.
available = _common.pillow_available


def _global_average_pooling_2d(x: Any) -> Any:
    n, channels, rows, cols = x.shape
    return F.reshape(F.average_pooling_2d(x, (rows, cols), stride=1), (n, channels))


def _max_pooling_2d(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=3, stride=2)


class BottleneckA(link.Chain):
    """The first bottleneck of a stage: 1x1, 3x3 and 1x1 convolutions with a projection shortcut.

    Args:
        in_channels: Input channels.
        mid_channels: Channels of the 3x3 convolution.
        out_channels: Output channels.
        stride: Stride of the stage (on the first 1x1 convolution as in MSRA's ResNet, on
            the 3x3 one with ``downsample_fb``, as in Facebook's).
        initialW: Initializer of the convolutions.
        downsample_fb: Put the stride on the 3x3 convolution.
    """

    def __init__(
        self,
        in_channels: int,
        mid_channels: int,
        out_channels: int,
        stride: int = 2,
        initialW: Any = None,
        downsample_fb: bool = False,
    ) -> None:
        super().__init__()
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        conv = convolution_2d.Convolution2D
        with self.init_scope():
            self.conv1 = conv(in_channels, mid_channels, 1, stride_1x1, 0, initialW=initialW, nobias=True)
            self.bn1 = batch_normalization.BatchNormalization(mid_channels)
            self.conv2 = conv(mid_channels, mid_channels, 3, stride_3x3, 1, initialW=initialW, nobias=True)
            self.bn2 = batch_normalization.BatchNormalization(mid_channels)
            self.conv3 = conv(mid_channels, out_channels, 1, 1, 0, initialW=initialW, nobias=True)
            self.bn3 = batch_normalization.BatchNormalization(out_channels)
            self.conv4 = conv(in_channels, out_channels, 1, stride, 0, initialW=initialW, nobias=True)
            self.bn4 = batch_normalization.BatchNormalization(out_channels)

    def forward(self, x: Any) -> Any:
        h1 = F.relu(self.bn1(self.conv1(x)))
        h1 = F.relu(self.bn2(self.conv2(h1)))
        h1 = self.bn3(self.conv3(h1))
        h2 = self.bn4(self.conv4(x))
        return F.relu(h1 + h2)


class BottleneckB(link.Chain):
    """A bottleneck with an identity shortcut: 1x1, 3x3 and 1x1 convolutions.

    Args:
        in_channels: Input (and output) channels.
        mid_channels: Channels of the 3x3 convolution.
        initialW: Initializer of the convolutions.
    """

    def __init__(self, in_channels: int, mid_channels: int, initialW: Any = None) -> None:
        super().__init__()
        conv = convolution_2d.Convolution2D
        with self.init_scope():
            self.conv1 = conv(in_channels, mid_channels, 1, 1, 0, initialW=initialW, nobias=True)
            self.bn1 = batch_normalization.BatchNormalization(mid_channels)
            self.conv2 = conv(mid_channels, mid_channels, 3, 1, 1, initialW=initialW, nobias=True)
            self.bn2 = batch_normalization.BatchNormalization(mid_channels)
            self.conv3 = conv(mid_channels, in_channels, 1, 1, 0, initialW=initialW, nobias=True)
            self.bn3 = batch_normalization.BatchNormalization(in_channels)

    def forward(self, x: Any) -> Any:
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return F.relu(h + x)


class BuildingBlock(link.Chain):
    """A stage of a ResNet: one :class:`BottleneckA` (``a``) and ``n_layer - 1``
    :class:`BottleneckB` (``b1``, ``b2``, ...).

    Args:
        n_layer: Number of bottlenecks.
        in_channels: Input channels.
        mid_channels: Channels inside the bottlenecks.
        out_channels: Output channels.
        stride: Stride of the first bottleneck.
        initialW: Initializer of the convolutions.
        downsample_fb: See :class:`BottleneckA`.
    """

    def __init__(
        self,
        n_layer: int,
        in_channels: int,
        mid_channels: int,
        out_channels: int,
        stride: int,
        initialW: Any = None,
        downsample_fb: bool = False,
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.a = BottleneckA(in_channels, mid_channels, out_channels, stride, initialW, downsample_fb)
            self._forward = ["a"]
            for i in range(1, n_layer):
                name = f"b{i}"
                setattr(self, name, BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(name)

    def forward(self, x: Any) -> Any:
        for name in self._forward:
            x = getattr(self, name)(x)
        return x


class ResNetLayers(_common.PretrainedImageModel):
    """A pre-trained CNN model provided by MSRA (He et al., *Deep Residual Learning for Image Recognition*, 2016).

    ``ResNetLayers(pretrained_model, n_layers, downsample_fb=False)``

    Layers (see :attr:`available_layers`): ``conv1, pool1, res2, res3, res4, res5, pool5,
    fc6, prob``. ``pool5`` is a global average pooling, so any input of at least 32x32
    pixels reaches ``prob``. Inputs are BGR images minus the ImageNet mean (:func:`prepare`).

    Args:
        pretrained_model: ``'auto'`` loads ``ResNet-{n_layers}-model.npz`` from
            ``<dataset root>/pfnet/chainer/models`` (the file Chainer 7 converted from
            MSRA's Caffe model; converting Caffe models is not provided here), a path
            ending in ``.caffemodel`` means that same converted file, any other path loads
            that npz file, ``None`` initialises randomly (convolutions from
            :class:`~chainer.initializers.HeNormal`).
        n_layers: 50, 101 or 152.
        downsample_fb: Downsample on the 3x3 convolutions (Facebook's ResNet) instead of
            the first 1x1 ones (MSRA's).
    """

    _default_extract_layers = ("pool5",)
    _mean_bgr = _MEAN_BGR

    def __init__(self, pretrained_model: Any, n_layers: int, downsample_fb: bool = False) -> None:
        where = type(self).__name__
        if n_layers not in _BLOCKS:
            raise ValueError(f"{where}: n_layers must be 50, 101 or 152, got {n_layers!r}")
        path = _common.pretrained_npz(
            where,
            pretrained_model,
            f"ResNet-{n_layers}-model.npz",
            f"ResNet-{n_layers}-model.caffemodel from https://github.com/KaimingHe/deep-residual-networks",
        )
        if path is not None:
            conv_kwargs: dict[str, Any] = {"initialW": initializers.Zero()}
        else:
            conv_kwargs = {"initialW": initializers.HeNormal(scale=1.0)}
        kwargs = dict(conv_kwargs, downsample_fb=downsample_fb)
        blocks = _BLOCKS[n_layers]
        super().__init__()
        self.n_layers = n_layers
        with self.init_scope():
            self.conv1 = convolution_2d.Convolution2D(3, 64, 7, 2, 3, **conv_kwargs)
            self.bn1 = batch_normalization.BatchNormalization(64)
            self.res2 = BuildingBlock(blocks[0], 64, 64, 256, 1, **kwargs)
            self.res3 = BuildingBlock(blocks[1], 256, 128, 512, 2, **kwargs)
            self.res4 = BuildingBlock(blocks[2], 512, 256, 1024, 2, **kwargs)
            self.res5 = BuildingBlock(blocks[3], 1024, 512, 2048, 2, **kwargs)
            self.fc6 = linear.Linear(2048, 1000)
        _common.load_pretrained(self, path)

    @property
    def functions(self) -> collections.OrderedDict[str, list[Callable[[Any], Any]]]:
        """Layer name -> the callables producing it."""
        return collections.OrderedDict(
            [
                ("conv1", [self.conv1, self.bn1, F.relu]),
                ("pool1", [_max_pooling_2d]),
                ("res2", [self.res2]),
                ("res3", [self.res3]),
                ("res4", [self.res4]),
                ("res5", [self.res5]),
                ("pool5", [_global_average_pooling_2d]),
                ("fc6", [self.fc6]),
                ("prob", [F.softmax]),
            ]
        )


class ResNet50Layers(ResNetLayers):
    """A pre-trained CNN model with 50 layers provided by MSRA.

    ``ResNet50Layers(pretrained_model='auto', downsample_fb=False)``

    See :class:`~chainer.links.model.vision.resnet.ResNetLayers`; ``'auto'`` loads
    ``ResNet-50-model.npz``.

    Example:
        >>> model = L.ResNet50Layers(pretrained_model=None)
        >>> with chainer.using_config('train', False):
        ...     y = model(np.zeros((1, 3, 64, 64), 'f'), layers=['pool5', 'prob'])
        >>> y['pool5'].shape, y['prob'].shape
        ((1, 2048), (1, 1000))
    """

    def __init__(self, pretrained_model: Any = "auto", downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """A pre-trained CNN model with 101 layers provided by MSRA.

    ``ResNet101Layers(pretrained_model='auto', downsample_fb=False)``

    See :class:`~chainer.links.model.vision.resnet.ResNetLayers`; ``'auto'`` loads
    ``ResNet-101-model.npz``.
    """

    def __init__(self, pretrained_model: Any = "auto", downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """A pre-trained CNN model with 152 layers provided by MSRA.

    ``ResNet152Layers(pretrained_model='auto', downsample_fb=False)``

    See :class:`~chainer.links.model.vision.resnet.ResNetLayers`; ``'auto'`` loads
    ``ResNet-152-model.npz``.
    """

    def __init__(self, pretrained_model: Any = "auto", downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 152, downsample_fb)


def prepare(image: Any, size: Any = (224, 224)) -> numpy.ndarray:
    """Converts the given image to a numpy array for ResNet.

    The image is converted to RGB, resized to ``size`` (``(width, height)``; ``None`` keeps
    it), its channels reordered to BGR and the mean ``(103.063, 115.903, 123.152)`` (BGR)
    subtracted.

    Args:
        image: A PIL image or an array of shape ``(H, W)``, ``(H, W, C)`` or ``(C, H, W)``
            holding RGB values in ``[0, 255]``.
        size: Size of the converted image, or ``None``.

    Returns:
        An array of shape ``(3, H, W)`` and dtype ``chainer.config.dtype``.
    """
    return _common.prepare_image("resnet.prepare", image, size, _MEAN_BGR)


__all__ = ["ResNet101Layers", "ResNet152Layers", "ResNet50Layers"]
