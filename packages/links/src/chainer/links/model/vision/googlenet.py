"""GoogLeNet (Szegedy et al., *Going Deeper with Convolutions*, 2015) with Chainer's layer names."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy

import chainer.functions as F
from chainer import initializers
from chainer.links.connection import convolution_2d, inception, linear
from chainer.links.model.vision import _common

_MEAN_BGR = (104.0, 117.0, 123.0)

# Whether Pillow (needed by prepare() and the image inputs) is installed, as in Chainer 7.
available = _common.pillow_available


def _max_pooling_2d(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=3, stride=2)


def _local_response_normalization(x: Any) -> Any:
    return F.local_response_normalization(x, n=5, k=1, alpha=1e-4 / 5)


def _average_pooling_2d_k5(x: Any) -> Any:
    return F.average_pooling_2d(x, ksize=5, stride=3)


def _average_pooling_2d_k7(x: Any) -> Any:
    return F.average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x: Any) -> Any:
    return F.dropout(x, ratio=0.4)


class GoogLeNet(_common.PretrainedImageModel):
    """A pre-trained GoogLeNet model provided by BVLC.

    ``GoogLeNet(pretrained_model='auto')``

    Layers (see :attr:`available_layers`): ``conv1, pool1, conv2_reduce, conv2, pool2,
    inception_3a, inception_3b, pool3, inception_4a .. inception_4e, pool4, inception_5a,
    inception_5b, pool5, loss3_fc, prob`` and the auxiliary classifiers ``loss1_fc2``
    (branching off ``inception_4a``) and ``loss2_fc2`` (off ``inception_4d``), computed
    only when asked for. Inputs are BGR images minus the mean ``(104, 117, 123)``
    (:func:`prepare`), 224x224 for the layers from ``pool5`` on.

    Args:
        pretrained_model: ``'auto'`` loads ``bvlc_googlenet.npz`` from
            ``<dataset root>/pfnet/chainer/models`` (the file Chainer 7 converted from the
            BVLC Caffe model; converting Caffe models is not provided here), a path loads
            that npz file, ``None`` initialises randomly (weights from
            :class:`~chainer.initializers.LeCunUniform`).
    """

    _default_extract_layers = ("pool5",)
    _mean_bgr = _MEAN_BGR
    _branches = {"loss1_fc2": "inception_4a", "loss2_fc2": "inception_4d"}

    def __init__(self, pretrained_model: Any = "auto") -> None:
        path = _common.pretrained_npz(
            "GoogLeNet", pretrained_model, "bvlc_googlenet.npz", "bvlc_googlenet.caffemodel from BVLC's model zoo"
        )
        if path is not None:
            kwargs: dict[str, Any] = {"initialW": initializers.Zero(), "initial_bias": initializers.Zero()}
        else:
            kwargs = {"initialW": initializers.LeCunUniform(scale=1.0)}
        super().__init__()
        conv = convolution_2d.Convolution2D
        Inception = inception.Inception
        with self.init_scope():
            self.conv1 = conv(3, 64, 7, stride=2, pad=3, **kwargs)
            self.conv2_reduce = conv(64, 64, 1, **kwargs)
            self.conv2 = conv(64, 192, 3, stride=1, pad=1, **kwargs)
            self.inc3a = Inception(192, 64, 96, 128, 16, 32, 32)
            self.inc3b = Inception(256, 128, 128, 192, 32, 96, 64)
            self.inc4a = Inception(480, 192, 96, 208, 16, 48, 64)
            self.inc4b = Inception(512, 160, 112, 224, 24, 64, 64)
            self.inc4c = Inception(512, 128, 128, 256, 24, 64, 64)
            self.inc4d = Inception(512, 112, 144, 288, 32, 64, 64)
            self.inc4e = Inception(528, 256, 160, 320, 32, 128, 128)
            self.inc5a = Inception(832, 256, 160, 320, 32, 128, 128)
            self.inc5b = Inception(832, 384, 192, 384, 48, 128, 128)
            self.loss3_fc = linear.Linear(1024, 1000, **kwargs)
            self.loss1_conv = conv(512, 128, 1, **kwargs)
            self.loss1_fc1 = linear.Linear(2048, 1024, **kwargs)
            self.loss1_fc2 = linear.Linear(1024, 1000, **kwargs)
            self.loss2_conv = conv(528, 128, 1, **kwargs)
            self.loss2_fc1 = linear.Linear(2048, 1024, **kwargs)
            self.loss2_fc2 = linear.Linear(1024, 1000, **kwargs)
        _common.load_pretrained(self, path)

    @property
    def functions(self) -> collections.OrderedDict[str, list[Callable[[Any], Any]]]:
        """Layer name -> the callables producing it (the auxiliary classifiers come last)."""
        return collections.OrderedDict(
            [
                ("conv1", [self.conv1, F.relu]),
                ("pool1", [_max_pooling_2d, _local_response_normalization]),
                ("conv2_reduce", [self.conv2_reduce, F.relu]),
                ("conv2", [self.conv2, F.relu, _local_response_normalization]),
                ("pool2", [_max_pooling_2d]),
                ("inception_3a", [self.inc3a]),
                ("inception_3b", [self.inc3b]),
                ("pool3", [_max_pooling_2d]),
                ("inception_4a", [self.inc4a]),
                ("inception_4b", [self.inc4b]),
                ("inception_4c", [self.inc4c]),
                ("inception_4d", [self.inc4d]),
                ("inception_4e", [self.inc4e]),
                ("pool4", [_max_pooling_2d]),
                ("inception_5a", [self.inc5a]),
                ("inception_5b", [self.inc5b]),
                ("pool5", [_average_pooling_2d_k7]),
                ("loss3_fc", [_dropout, self.loss3_fc]),
                ("prob", [F.softmax]),
                # Rarely wanted, so they come after 'prob' and are skipped unless asked for.
                (
                    "loss1_fc2",
                    [_average_pooling_2d_k5, self.loss1_conv, F.relu, self.loss1_fc1, F.relu, self.loss1_fc2],
                ),
                (
                    "loss2_fc2",
                    [_average_pooling_2d_k5, self.loss2_conv, F.relu, self.loss2_fc1, F.relu, self.loss2_fc2],
                ),
            ]
        )


def prepare(image: Any, size: Any = (224, 224)) -> numpy.ndarray:
    """Converts the given image to the numpy array for GoogLeNet.

    The image is converted to RGB, resized to ``size`` (``(width, height)``; ``None`` keeps
    it), its channels reordered to BGR and the mean ``(104, 117, 123)`` (BGR) subtracted.

    Args:
        image: A PIL image or an array of shape ``(H, W)``, ``(H, W, C)`` or ``(C, H, W)``
            holding RGB values in ``[0, 255]``.
        size: Size of the converted image, or ``None``.

    Returns:
        An array of shape ``(3, H, W)`` and dtype ``chainer.config.dtype``.
    """
    return _common.prepare_image("googlenet.prepare", image, size, _MEAN_BGR)


__all__ = ["GoogLeNet"]
