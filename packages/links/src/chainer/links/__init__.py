"""Links: parameterised layers and the model zoo (``import chainer.links as L``).

Each link lives in a module under a category package (``connection``, ``activation``,
``normalization``, ``rnn``, ``loss``, ``model``, ``theano``), its home as in Chainer 7;
this package re-exports them by name (a new link adds its import here). Links registered
by plugins through the ``chainer_register_links`` hook are reachable here too.
:mod:`chainer.links.caffe` (which needs protobuf) is imported on demand.
"""

from __future__ import annotations

from typing import Any

import chainer
from chainer import plugins
from chainer.links._version import __version__
from chainer.links.activation.maxout import Maxout
from chainer.links.activation.prelu import PReLU
from chainer.links.activation.simplified_dropconnect import SimplifiedDropconnect
from chainer.links.activation.swish import Swish
from chainer.links.connection.bias import Bias
from chainer.links.connection.bilinear import Bilinear
from chainer.links.connection.convolution_2d import Convolution2D
from chainer.links.connection.convolution_nd import Convolution1D, Convolution3D, ConvolutionND
from chainer.links.connection.deconvolution_2d import Deconvolution2D
from chainer.links.connection.deconvolution_nd import Deconvolution1D, Deconvolution3D, DeconvolutionND
from chainer.links.connection.deformable_convolution_2d import DeformableConvolution2D
from chainer.links.connection.depthwise_convolution_2d import DepthwiseConvolution2D
from chainer.links.connection.dilated_convolution_2d import DilatedConvolution2D
from chainer.links.connection.embed_id import EmbedID
from chainer.links.connection.highway import Highway
from chainer.links.connection.inception import Inception
from chainer.links.connection.inceptionbn import InceptionBN
from chainer.links.connection.linear import Linear
from chainer.links.connection.local_convolution_2d import LocalConvolution2D
from chainer.links.connection.mlp_convolution_2d import MLPConvolution2D
from chainer.links.connection.parameter import Parameter
from chainer.links.connection.scale import Scale
from chainer.links.loss.black_out import BlackOut
from chainer.links.loss.crf1d import CRF1d
from chainer.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmax
from chainer.links.loss.negative_sampling import NegativeSampling
from chainer.links.model.classifier import Classifier
from chainer.links.model.vision.googlenet import GoogLeNet
from chainer.links.model.vision.resnet import ResNet50Layers, ResNet101Layers, ResNet152Layers
from chainer.links.model.vision.vgg import VGG16Layers, VGG19Layers
from chainer.links.normalization.batch_normalization import BatchNormalization
from chainer.links.normalization.batch_renormalization import BatchRenormalization
from chainer.links.normalization.decorrelated_batch_normalization import DecorrelatedBatchNormalization
from chainer.links.normalization.group_normalization import GroupNormalization
from chainer.links.normalization.layer_normalization import LayerNormalization
from chainer.links.rnn.gru import GRU, StatefulGRU, StatelessGRU
from chainer.links.rnn.lstm import LSTM, StatelessLSTM
from chainer.links.rnn.mgu import StatefulMGU, StatelessMGU
from chainer.links.rnn.n_step_gru import NStepBiGRU, NStepGRU
from chainer.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM
from chainer.links.rnn.n_step_rnn import NStepBiRNNReLU, NStepBiRNNTanh, NStepRNNReLU, NStepRNNTanh
from chainer.links.rnn.peephole import StatefulPeepholeLSTM
from chainer.links.rnn.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM
from chainer.links.rnn.zoneoutlstm import StatefulZoneoutLSTM
from chainer.links.theano.theano_function import TheanoFunction

__all__ = [
    "BatchNormalization",
    "BatchRenormalization",
    "Bias",
    "Bilinear",
    "BinaryHierarchicalSoftmax",
    "BlackOut",
    "CRF1d",
    "ChildSumTreeLSTM",
    "Classifier",
    "Convolution1D",
    "Convolution2D",
    "Convolution3D",
    "ConvolutionND",
    "Deconvolution1D",
    "Deconvolution2D",
    "Deconvolution3D",
    "DeconvolutionND",
    "DecorrelatedBatchNormalization",
    "DeformableConvolution2D",
    "DepthwiseConvolution2D",
    "DilatedConvolution2D",
    "EmbedID",
    "GRU",
    "GoogLeNet",
    "GroupNormalization",
    "Highway",
    "Inception",
    "InceptionBN",
    "LSTM",
    "LayerNormalization",
    "Linear",
    "LocalConvolution2D",
    "MLPConvolution2D",
    "Maxout",
    "NStepBiGRU",
    "NStepBiLSTM",
    "NStepBiRNNReLU",
    "NStepBiRNNTanh",
    "NStepGRU",
    "NStepLSTM",
    "NStepRNNReLU",
    "NStepRNNTanh",
    "NaryTreeLSTM",
    "NegativeSampling",
    "PReLU",
    "Parameter",
    "ResNet101Layers",
    "ResNet152Layers",
    "ResNet50Layers",
    "Scale",
    "SimplifiedDropconnect",
    "StatefulGRU",
    "StatefulMGU",
    "StatefulPeepholeLSTM",
    "StatefulZoneoutLSTM",
    "StatelessGRU",
    "StatelessLSTM",
    "StatelessMGU",
    "Swish",
    "TheanoFunction",
    "VGG16Layers",
    "VGG19Layers",
]
_BUILTIN = frozenset(__all__)


def _make_link_entry(link_class: Any, name: str | None = None) -> tuple[str, Any]:
    if not (isinstance(link_class, type) and issubclass(link_class, chainer.Link)):
        raise TypeError(f"link_class must be a subclass of chainer.Link, got {link_class!r}")
    name = link_class.__name__ if name is None else name
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"link name must be an identifier, got {name!r}")
    if name in _BUILTIN:
        raise ValueError(f"{name!r} is a built-in link of chainer.links and cannot be replaced")
    return name, link_class


registered_links: plugins.Registry[Any] = plugins.Registry("chainer_register_links", _make_link_entry)


def __getattr__(name: str) -> Any:
    link_class = registered_links.get(name)
    if link_class is not None:
        return link_class
    raise AttributeError(f"module 'chainer.links' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(registered_links))
