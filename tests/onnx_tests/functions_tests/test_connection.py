import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
import chainer.links as L
from onnx_chainer.testing import input_generator as gen

IMG = gen.increasing(2, 4, 7, 6)

CASES = {
    "linear": (lambda m, x: m.l(x), gen.increasing(3, 5), {"l": lambda: L.Linear(5, 4)}, "Gemm"),
    "linear_nobias": (lambda m, x: m.l(x), gen.increasing(3, 5), {"l": lambda: L.Linear(5, 4, nobias=True)}, None),
    "linear_3d_input": (lambda m, x: m.l(x), gen.increasing(2, 3, 5), {"l": lambda: L.Linear(15, 4)}, "Gemm"),
    "conv": (lambda m, x: m.c(x), IMG, {"c": lambda: L.Convolution2D(4, 3, 3)}, "Conv"),
    "conv_stride_pad": (
        lambda m, x: m.c(x),
        IMG,
        {"c": lambda: L.Convolution2D(4, 3, (3, 2), stride=(2, 1), pad=(1, 2))},
        "Conv",
    ),
    "conv_dilate_groups": (
        lambda m, x: m.c(x),
        IMG,
        {"c": lambda: L.Convolution2D(4, 6, 3, pad=2, dilate=2, groups=2, nobias=True)},
        "Conv",
    ),
    "conv_cover_all": (
        lambda m, x: F.convolution_2d(x, m.c.W, m.c.b, stride=3, cover_all=True),
        IMG,
        {"c": lambda: L.Convolution2D(4, 3, 2)},
        "Conv",
    ),
    "conv_nd_1d": (
        lambda m, x: m.c(x),
        gen.increasing(2, 3, 9),
        {"c": lambda: L.ConvolutionND(1, 3, 2, 3, stride=2, pad=1)},
        "Conv",
    ),
    "conv_nd_3d": (
        lambda m, x: m.c(x),
        gen.increasing(1, 2, 4, 5, 3),
        {"c": lambda: L.ConvolutionND(3, 2, 3, 2, pad=1)},
        "Conv",
    ),
    "deconv": (lambda m, x: m.d(x), IMG, {"d": lambda: L.Deconvolution2D(4, 3, 3, stride=2, pad=1)}, "ConvTranspose"),
    "deconv_outsize": (
        lambda m, x: m.d(x),
        IMG,
        {"d": lambda: L.Deconvolution2D(4, 3, 3, stride=2, pad=1, outsize=(14, 12))},
        "ConvTranspose",
    ),
    "deconv_groups_dilate": (
        lambda m, x: m.d(x),
        IMG,
        {"d": lambda: L.Deconvolution2D(4, 6, 2, stride=1, dilate=2, groups=2)},
        "ConvTranspose",
    ),
    "deconv_nd_1d": (
        lambda m, x: m.d(x),
        gen.increasing(2, 3, 5),
        {"d": lambda: L.DeconvolutionND(1, 3, 2, 3, stride=2)},
        "ConvTranspose",
    ),
    "embed_id": (
        lambda m, x: m.e(x),
        numpy.array([[0, 3, 1], [2, 2, 4]], numpy.int32),
        {"e": lambda: L.EmbedID(5, 3)},
        "Gather",
    ),
}


@pytest.mark.parametrize("opset", [9, 26])
@pytest.mark.parametrize("case", sorted(CASES))
def test_connection(case, opset, check_export, wrap):
    fn, x, links, op = CASES[case]
    model = wrap(fn, **{k: v() for k, v in links.items()})
    onnx_model = check_export(model, x, opset_version=opset, rtol=1e-5, atol=1e-5)
    if op is not None:
        assert op in [n.op_type for n in onnx_model.graph.node]


def test_linear_parameters_are_initializers_named_by_path(check_export, wrap):
    model = wrap(lambda m, x: m.l2(F.relu(m.l1(x))), l1=L.Linear(5, 4), l2=L.Linear(4, 2))
    onnx_model = check_export(model, gen.increasing(3, 5))
    names = sorted(i.name for i in onnx_model.graph.initializer)
    assert names == ["param_l1_W", "param_l1_b", "param_l2_W", "param_l2_b"]
    assert [i.name for i in onnx_model.graph.input] == ["Input_0"]
    assert [o.name for o in onnx_model.graph.output] == ["LinearFunction_1"]


def test_embed_id_ignore_label_is_not_implemented(wrap):
    import onnx_chainer

    model = wrap(lambda m, x: m.e(x), e=L.EmbedID(5, 3, ignore_label=-1))
    # Unsupported options raise an error that is a ValueError (as in Chainer 7.8.1) and a
    # NotImplementedError.
    with pytest.raises(NotImplementedError, match="EmbedIDFunction.*ignore_label") as info:
        onnx_chainer.export(model, numpy.array([0, -1], numpy.int32))
    assert isinstance(info.value, ValueError)
