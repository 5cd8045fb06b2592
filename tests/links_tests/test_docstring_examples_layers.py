"""The examples in the docstrings of the layers run and print what they show."""

import doctest
import importlib

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L

MODULES = [
    "activation.maxout",
    "activation.prelu",
    "activation.simplified_dropconnect",
    "activation.swish",
    "connection.bias",
    "connection.bilinear",
    "connection.convolution_2d",
    "connection.convolution_nd",
    "connection.deconvolution_2d",
    "connection.deconvolution_nd",
    "connection.deformable_convolution_2d",
    "connection.depthwise_convolution_2d",
    "connection.dilated_convolution_2d",
    "connection.embed_id",
    "connection.highway",
    "connection.inception",
    "connection.inceptionbn",
    "connection.linear",
    "connection.local_convolution_2d",
    "connection.mlp_convolution_2d",
    "connection.parameter",
    "connection.scale",
    "model.classifier",
    "normalization.batch_normalization",
    "normalization.batch_renormalization",
    "normalization.decorrelated_batch_normalization",
    "normalization.group_normalization",
    "normalization.layer_normalization",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"chainer.links.{name}")
    result = doctest.testmod(
        module,
        extraglobs={"np": numpy, "F": F, "L": L, "chainer": chainer},
        optionflags=doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0, f"{module.__name__} has no docstring example"
    assert result.failed == 0
