"""The layers of chainer.links listed by the Chainer 7.8.1 API reference resolve, are
links, and take the documented arguments with the documented defaults (the contract
that lets existing model code run unchanged)."""

import inspect

import numpy as np
import pytest

import chainer
import chainer.links as L

# name -> signature as the 7.8.1 reference lists it (defaults that are functions or
# classes written by their name).
SIGNATURES = {
    "BatchNormalization": "size=None, decay=0.9, eps=2e-05, dtype=None, use_gamma=True, use_beta=True, "
    "initial_gamma=None, initial_beta=None, axis=None, initial_avg_mean=None, initial_avg_var=None",
    "BatchRenormalization": "size, rmax=1, dmax=0, decay=0.9, eps=2e-05, dtype=None, use_gamma=True, use_beta=True, "
    "initial_gamma=None, initial_beta=None, initial_avg_mean=None, initial_avg_var=None",
    "Bias": "axis=1, shape=None",
    "Bilinear": "left_size, right_size, out_size, nobias=False, initialW=None, initial_bias=None",
    "Classifier": "predictor, lossfun=softmax_cross_entropy, accfun=accuracy, label_key=-1",
    "Convolution1D": "in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, initialW=None, "
    "initial_bias=None, cover_all=False, dilate=1, groups=1",
    "Convolution2D": "in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, initialW=None, "
    "initial_bias=None, **kwargs",
    "Convolution3D": "in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, initialW=None, "
    "initial_bias=None, cover_all=False, dilate=1, groups=1",
    "ConvolutionND": "ndim, in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, initialW=None, "
    "initial_bias=None, cover_all=False, dilate=1, groups=1",
    "Deconvolution1D": "in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, outsize=None, "
    "initialW=None, initial_bias=None, dilate=1, groups=1",
    "Deconvolution2D": "in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, outsize=None, "
    "initialW=None, initial_bias=None, **kwargs",
    "Deconvolution3D": "in_channels, out_channels, ksize, stride=1, pad=0, nobias=False, outsize=None, "
    "initialW=None, initial_bias=None, dilate=1, groups=1",
    "DeconvolutionND": "ndim, in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False, outsize=None, "
    "initialW=None, initial_bias=None, dilate=1, groups=1",
    "DecorrelatedBatchNormalization": "size, groups=16, decay=0.9, eps=2e-05, dtype=float32",
    "DeformableConvolution2D": "in_channels, out_channels, ksize, stride=1, pad=0, offset_nobias=False, "
    "offset_initialW=None, offset_initial_bias=None, deform_nobias=False, deform_initialW=None, "
    "deform_initial_bias=None",
    "DepthwiseConvolution2D": "in_channels, channel_multiplier, ksize, stride=1, pad=0, nobias=False, "
    "initialW=None, initial_bias=None",
    "DilatedConvolution2D": "in_channels, out_channels, ksize=None, stride=1, pad=0, dilate=1, nobias=False, "
    "initialW=None, initial_bias=None",
    "EmbedID": "in_size, out_size, initialW=None, ignore_label=None",
    "GroupNormalization": "groups, size=None, eps=1e-05, initial_gamma=None, initial_beta=None",
    "Highway": "in_out_size, nobias=False, activate=relu, init_Wh=None, init_Wt=None, init_bh=None, init_bt=-1",
    "Inception": "in_channels, out1, proj3, out3, proj5, out5, proj_pool, conv_init=None, bias_init=None",
    "InceptionBN": "in_channels, out1, proj3, out3, proj33, out33, pooltype, proj_pool=None, stride=1, "
    "conv_init=None, dtype=None",
    "LayerNormalization": "size=None, eps=1e-06, initial_gamma=None, initial_beta=None",
    "Linear": "in_size, out_size=None, nobias=False, initialW=None, initial_bias=None",
    "LocalConvolution2D": "in_channels, out_channels, in_size=None, ksize=None, stride=1, nobias=False, "
    "initialW=None, initial_bias=None, **kwargs",
    "MLPConvolution2D": "in_channels, out_channels, ksize=None, stride=1, pad=0, activation=relu, *args, **kwargs",
    "Maxout": "in_size, out_size, pool_size, initialW=None, initial_bias=0",
    "PReLU": "shape=(), init=0.25",
    "Parameter": "array",
    "Scale": "axis=1, W_shape=None, bias_term=False, bias_shape=None",
    "SimplifiedDropconnect": "in_size, out_size, ratio=0.5, nobias=False, initialW=None, initial_bias=None",
    "Swish": "beta_shape, beta_init=1.0",
}

# Methods the reference lists for these classes (beyond those of chainer.Link).
MEMBERS = {
    "BatchNormalization": ("forward", "printable_specs", "start_finetuning"),
    "Bilinear": ("forward", "zero_grads"),
    "Convolution2D": ("forward", "printable_specs"),
    "DecorrelatedBatchNormalization": ("forward", "serialize", "start_finetuning"),
    "Linear": ("forward", "printable_specs"),
}


def _render(signature: inspect.Signature) -> str:
    parts = []
    for param in signature.parameters.values():
        if param.kind is param.VAR_POSITIONAL:
            parts.append(f"*{param.name}")
        elif param.kind is param.VAR_KEYWORD:
            parts.append(f"**{param.name}")
        elif param.default is param.empty:
            parts.append(param.name)
        else:
            default = param.default
            text = getattr(default, "__name__", None) if callable(default) else None
            parts.append(f"{param.name}={text if text is not None else repr(default)}")
    return ", ".join(parts)


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_layer_resolves_with_the_documented_signature(name):
    cls = getattr(L, name)
    assert name in L.__all__
    assert isinstance(cls, type) and issubclass(cls, chainer.Link)
    assert _render(inspect.signature(cls)) == SIGNATURES[name]
    for member in MEMBERS.get(name, ("forward",)):
        assert hasattr(cls, member), member


def test_function_defaults_are_the_chainer_functions():
    params = inspect.signature(L.Highway).parameters
    assert params["activate"].default is chainer.functions.relu
    assert inspect.signature(L.MLPConvolution2D).parameters["activation"].default is chainer.functions.relu
    assert inspect.signature(L.DecorrelatedBatchNormalization).parameters["dtype"].default is np.float32
    params = inspect.signature(L.Classifier).parameters
    assert params["lossfun"].default is chainer.functions.softmax_cross_entropy
    assert params["accfun"].default is chainer.functions.accuracy
