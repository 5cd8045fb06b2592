"""VGG 16- and 19-layer networks (Simonyan & Zisserman, 2014) with Chainer's layer names."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy

import chainer.functions as F
from chainer import initializers
from chainer.links.connection import convolution_2d, linear
from chainer.links.model.vision import _common

_MEAN_BGR = (103.939, 116.779, 123.68)
_BLOCKS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_CHANNELS = (64, 128, 256, 512, 512)

# Whether Pillow (needed by prepare() and the image inputs) is installed, as in Chainer 7.
available = _common.pillow_available


def _max_pooling_2d(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=2)


class VGGLayers(_common.PretrainedImageModel):
    """Base of :class:`~chainer.links.VGG16Layers` and :class:`~chainer.links.VGG19Layers`.

    Args:
        pretrained_model: ``'auto'`` loads the converted weights Chainer keeps under the
            dataset root (``pfnet/chainer/models/VGG_ILSVRC_{16,19}_layers.npz``), a path
            loads that npz file, ``None`` initialises randomly (weights from
            :class:`~chainer.initializers.Normal` ``(0.01)``, biases zero, as in the paper).
        n_layers: 16 or 19.
    """

    _default_extract_layers = ("fc7",)
    _mean_bgr = _MEAN_BGR

    def __init__(self, pretrained_model: Any = "auto", n_layers: int = 16) -> None:
        where = type(self).__name__
        if n_layers not in _BLOCKS:
            raise ValueError(f"{where}: n_layers must be 16 or 19, got {n_layers!r}")
        path = _common.pretrained_npz(
            where,
            pretrained_model,
            f"VGG_ILSVRC_{n_layers}_layers.npz",
            f"VGG_ILSVRC_{n_layers}_layers.caffemodel from the VGG team's page",
        )
        if path is not None:
            # Every value is about to be overwritten: zeros are much faster to make than samples.
            kwargs: dict[str, Any] = {"initialW": initializers.Zero(), "initial_bias": initializers.Zero()}
        else:
            kwargs = {"initialW": initializers.Normal(0.01), "initial_bias": initializers.Zero()}
        super().__init__()
        self.n_layers = n_layers
        self._conv_names: list[list[str]] = []
        with self.init_scope():
            in_channels = 3
            for block, (n_convs, channels) in enumerate(zip(_BLOCKS[n_layers], _CHANNELS), start=1):
                names = []
                for i in range(1, n_convs + 1):
                    name = f"conv{block}_{i}"
                    setattr(self, name, convolution_2d.Convolution2D(in_channels, channels, 3, 1, 1, **kwargs))
                    names.append(name)
                    in_channels = channels
                self._conv_names.append(names)
            self.fc6 = linear.Linear(512 * 7 * 7, 4096, **kwargs)
            self.fc7 = linear.Linear(4096, 4096, **kwargs)
            self.fc8 = linear.Linear(4096, 1000, **kwargs)
        _common.load_pretrained(self, path)

    @property
    def functions(self) -> collections.OrderedDict[str, list[Callable[[Any], Any]]]:
        """Layer name -> the callables producing it: ``conv1_1`` ... ``pool5``, ``fc6``, ``fc7``, ``fc8``, ``prob``."""
        layers: collections.OrderedDict[str, list[Callable[[Any], Any]]] = collections.OrderedDict()
        for block, names in enumerate(self._conv_names, start=1):
            for name in names:
                layers[name] = [getattr(self, name), F.relu]
            layers[f"pool{block}"] = [_max_pooling_2d]
        layers["fc6"] = [self.fc6, F.relu, F.dropout]
        layers["fc7"] = [self.fc7, F.relu, F.dropout]
        layers["fc8"] = [self.fc8]
        layers["prob"] = [F.softmax]
        return layers


class VGG16Layers(VGGLayers):
    """A pre-trained CNN model with 16 layers provided by the VGG team (Simonyan & Zisserman, 2014).

    ``VGG16Layers(pretrained_model='auto')``

    Layers (see :attr:`available_layers`): ``conv1_1, conv1_2, pool1, conv2_1, conv2_2,
    pool2, conv3_1..conv3_3, pool3, conv4_1..conv4_3, pool4, conv5_1..conv5_3, pool5, fc6,
    fc7, fc8, prob``. Inputs are BGR images minus the ImageNet mean (:func:`prepare`),
    224x224 for the fully-connected layers.

    Args:
        pretrained_model: ``'auto'`` loads ``VGG_ILSVRC_16_layers.npz`` from
            ``<dataset root>/pfnet/chainer/models`` (the file Chainer 7 converted from the
            Caffe model; converting Caffe models is not provided here), a path loads that
            npz file, ``None`` initialises randomly.

    Example:
        The doc tests skip this example: the model has 138 million parameters (over
        500 MB in float32).

        >>> model = L.VGG16Layers(pretrained_model=None)                     # doctest: +SKIP
        >>> image = np.zeros((3, 224, 224), np.float32)                      # doctest: +SKIP
        >>> feature = model.extract([image], layers=['fc7'])['fc7']          # doctest: +SKIP
        >>> feature.shape                                                    # doctest: +SKIP
        (1, 4096)
    """

    def __init__(self, pretrained_model: Any = "auto") -> None:
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """A pre-trained CNN model with 19 layers provided by the VGG team (Simonyan & Zisserman, 2014).

    ``VGG19Layers(pretrained_model='auto')``

    As :class:`VGG16Layers` with four convolutions in blocks 3-5 (``conv3_4``, ``conv4_4``,
    ``conv5_4``); ``'auto'`` loads ``VGG_ILSVRC_19_layers.npz``.
    """

    def __init__(self, pretrained_model: Any = "auto") -> None:
        super().__init__(pretrained_model, 19)


def prepare(image: Any, size: Any = (224, 224)) -> numpy.ndarray:
    """Converts the given image to the numpy array for VGG models.

    The image is converted to RGB, resized to ``size`` (``(width, height)``; ``None`` keeps
    it), its channels reordered to BGR and the ImageNet mean ``(103.939, 116.779, 123.68)``
    (BGR) subtracted.

    Args:
        image: A PIL image or an array of shape ``(H, W)``, ``(H, W, C)`` or ``(C, H, W)``
            holding RGB values in ``[0, 255]``.
        size: Size of the converted image, or ``None``.

    Returns:
        An array of shape ``(3, H, W)`` and dtype ``chainer.config.dtype``.
    """
    return _common.prepare_image("vgg.prepare", image, size, _MEAN_BGR)


__all__ = ["VGG16Layers", "VGG19Layers"]
