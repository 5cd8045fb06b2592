"""Every chainer.links name of the RNN, loss, model-zoo and Theano links resolves with
Chainer 7.8.1's signature and members (copied from the 7.8.1 API listing)."""

import importlib
import inspect

import pytest

REFERENCE = [
    (
        "chainer.links.BinaryHierarchicalSoftmax",
        "(in_size, tree, dtype=None)",
        ["create_huffman_tree", "device_resident_accept", "forward"],
    ),
    ("chainer.links.BlackOut", "(in_size, counts, sample_size)", ["device_resident_accept", "forward"]),
    ("chainer.links.CRF1d", "(n_label, initial_cost=None)", ["argmax", "forward"]),
    ("chainer.links.ChildSumTreeLSTM", "(in_size, out_size)", ["forward"]),
    ("chainer.links.GRU", "(in_size, out_size, init=None, inner_init=None, bias_init=0)", ["forward"]),
    (
        "chainer.links.GoogLeNet",
        "(pretrained_model='auto')",
        ["available_layers", "extract", "forward", "functions", "predict"],
    ),
    (
        "chainer.links.LSTM",
        "(in_size, out_size=None, lateral_init=None, upward_init=None, bias_init=None, forget_bias_init=None)",
        ["device_resident_accept", "forward", "reset_state", "set_state"],
    ),
    (
        "chainer.links.NStepBiGRU",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    (
        "chainer.links.NStepBiLSTM",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    (
        "chainer.links.NStepBiRNNReLU",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    (
        "chainer.links.NStepBiRNNTanh",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    (
        "chainer.links.NStepGRU",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    (
        "chainer.links.NStepLSTM",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    (
        "chainer.links.NStepRNNReLU",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    (
        "chainer.links.NStepRNNTanh",
        "(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None, **kwargs)",
        ["n_cells", "rnn"],
    ),
    ("chainer.links.NaryTreeLSTM", "(in_size, out_size, n_ary=2)", ["forward"]),
    (
        "chainer.links.NegativeSampling",
        "(in_size, counts, sample_size, power=0.75, dtype=None)",
        ["device_resident_accept", "forward"],
    ),
    ("chainer.links.ResNet101Layers", "(pretrained_model='auto', downsample_fb=False)", []),
    ("chainer.links.ResNet152Layers", "(pretrained_model='auto', downsample_fb=False)", []),
    ("chainer.links.ResNet50Layers", "(pretrained_model='auto', downsample_fb=False)", []),
    (
        "chainer.links.StatefulGRU",
        "(in_size, out_size, init=None, inner_init=None, bias_init=0)",
        ["device_resident_accept", "forward", "reset_state", "set_state"],
    ),
    (
        "chainer.links.StatefulMGU",
        "(in_size, out_size)",
        ["device_resident_accept", "forward", "reset_state", "set_state"],
    ),
    ("chainer.links.StatefulPeepholeLSTM", "(in_size, out_size)", ["device_resident_accept", "forward", "reset_state"]),
    (
        "chainer.links.StatefulZoneoutLSTM",
        "(in_size, out_size, c_ratio=0.5, h_ratio=0.5, **kwargs)",
        ["device_resident_accept", "forward", "reset_state", "set_state"],
    ),
    ("chainer.links.StatelessGRU", "(in_size, out_size, init=None, inner_init=None, bias_init=None)", ["forward"]),
    (
        "chainer.links.StatelessLSTM",
        "(in_size, out_size=None, lateral_init=None, upward_init=None, bias_init=None, forget_bias_init=None)",
        ["forward"],
    ),
    ("chainer.links.StatelessMGU", "(n_inputs, n_units)", ["forward"]),
    ("chainer.links.TheanoFunction", "(inputs, outputs)", ["forward"]),
    ("chainer.links.VGG16Layers", "(pretrained_model='auto')", ["functions"]),
    ("chainer.links.VGG19Layers", "(pretrained_model='auto')", ["functions"]),
    ("chainer.links.model.vision.googlenet.prepare", "(image, size=(224, 224))", []),
    (
        "chainer.links.model.vision.resnet.ResNetLayers",
        "(pretrained_model, n_layers, downsample_fb=False)",
        ["available_layers", "extract", "forward", "functions", "predict"],
    ),
    ("chainer.links.model.vision.resnet.prepare", "(image, size=(224, 224))", []),
    ("chainer.links.model.vision.vgg.prepare", "(image, size=(224, 224))", []),
]


def _resolve(dotted):
    module_name, _, attr = dotted.rpartition(".")
    while True:
        try:
            module = importlib.import_module(module_name)
            break
        except ImportError:
            module_name, _, parent = module_name.rpartition(".")
            attr = f"{parent}.{attr}"
    obj = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _plain_signature(obj):
    """The signature without annotations, formatted like the 7.8.1 listing."""
    sig = inspect.signature(obj)
    parts = []
    star_done = False
    for p in sig.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        if p.kind is p.VAR_POSITIONAL:
            star_done = True
            parts.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={p.default!r}")
    return "(" + ", ".join(parts) + ")"


@pytest.mark.parametrize(("name", "signature", "members"), REFERENCE, ids=[e[0] for e in REFERENCE])
def test_name_resolves_with_the_reference_signature_and_members(name, signature, members):
    obj = _resolve(name)
    assert _plain_signature(obj) == signature
    for member in members:
        assert hasattr(obj, member), f"{name} has no member {member}"


def test_top_level_names_are_exported():
    import chainer.links as L

    for name, _, _ in REFERENCE:
        if name.count(".") == 2:
            assert name.rsplit(".", 1)[1] in L.__all__
