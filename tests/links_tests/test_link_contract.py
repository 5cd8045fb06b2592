"""What every layer of chainer.links shares with chainer.Link, checked on each of them:
the NPZ keys and a save/load round trip (also into a layer whose shapes are still unknown),
to_device('@numpy') (and to a GPU and back where there is one), copy() in its three modes,
repeat() and pickling. Every Link class chainer.links exports has a case here, except
TheanoFunction (it raises NotImplementedError); ``test_every_exported_link_has_a_case``
keeps it so.

The layer-specific behaviour (shapes, initialisation, forward against NumPy, gradients)
is in the test file of each layer."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import initializers, serializers


def _x(*shape: int) -> np.ndarray:
    return np.random.uniform(-1, 1, shape).astype(np.float32)


def _ints(*values: int) -> np.ndarray:
    return np.array(values, np.int32)


@dataclasses.dataclass
class Case:
    id: str
    make: Callable[[], chainer.Link]
    # The inputs: arrays only (float or int), so that the GPU test can send each one with
    # cupy.asarray; lists of sequences and states are assembled by ``call``.
    inputs: Callable[[], tuple[Any, ...]]
    # The exact keys of the NPZ file: parameters and persistents, with their paths in chains.
    keys: set[str]
    # Parameters drawn at random by their default initializer (copy('init') redraws them).
    random: set[str]
    # Whether the output has the input's shape, so that repeat() can be run.
    chainable: bool = False
    # Extra arguments of the forward call.
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    # Whether copy('init') draws the parameters again (L.Parameter's array is its own
    # initial value).
    reinit: bool = True
    # How the layer is applied, where it is not ``link(*inputs, **kwargs)`` returning one
    # Variable: ``call(link, *inputs)`` returns the one Variable the tests compare (e.g. all
    # outputs of an RNN joined by _flat, or one layer of a model-zoo network). It must give the
    # same result at every call with the same parameters: stateful layers start from a reset.
    call: Callable[..., Any] | None = None
    # A model-zoo network (tens of millions of parameters): saved without compression (zlib
    # spends 5-20 s on their random floats; compression is covered by the other cases), and
    # its normal draws come from a faster generator (see _draw_normals_from_a_generator).
    zoo: bool = False
    # Whether the case is marked slow (its tests take over ~2 s each).
    slow: bool = False

    def __post_init__(self) -> None:
        # The chained repeat() check calls the layers directly, on one input.
        assert not (self.chainable and self.call is not None), self.id

    def run(self, link: chainer.Link, inputs: tuple[Any, ...]) -> np.ndarray:
        # Test mode: batch statistics and dropping would make outputs differ between calls.
        with chainer.using_config("train", False):
            y = link(*inputs, **self.kwargs) if self.call is None else self.call(link, *inputs)
            return y.array


def _flat(*outputs: Any) -> chainer.Variable:
    """Every output of a layer (Variables, or lists of them such as an RNN's ``ys``), raveled
    and joined into one vector, so that the tests compare all of them."""
    parts = [y for out in outputs for y in (out if isinstance(out, (list, tuple)) else (out,))]
    return F.concat([F.reshape(y, (-1,)) for y in parts], axis=0)


def _steps(link: chainer.Link, *xs: Any) -> chainer.Variable:
    """A stateful layer run over the time steps ``xs`` from a fresh state (so that the steps
    after the first read the state and its recurrent weights are used); all outputs."""
    link.reset_state()
    return _flat(*[link(x) for x in xs])


def _wb(*links: str) -> set[str]:
    return {f"{name}/{p}" for name in links for p in "Wb"}


def _w(*links: str) -> set[str]:
    return {f"{name}/W" for name in links}


def _bn(*links: str) -> set[str]:
    return {f"{name}/{k}" for name in links for k in ("gamma", "beta", "avg_mean", "avg_var", "N")}


def _nstep(cls: type, n_weights: int, n_states: int) -> Case:
    """A two-layer NStep* link over two sequences given in an order it must sort (lengths 2
    and 3), with random initial states; the case compares ``hy`` (``cy``) and ``ys``."""
    directions = 2 if cls.__name__.startswith("NStepBi") else 1
    # Child k = layer * directions + direction holds w0.., b0.. (the weights LeCunNormal,
    # the biases zero).
    keys = {f"{k}/{p}{j}" for k in range(2 * directions) for p in "wb" for j in range(n_weights)}

    def inputs() -> tuple[Any, ...]:
        return (*[_x(2 * directions, 2, 2) for _ in range(n_states)], _x(2, 3), _x(3, 3))

    def call(link: chainer.Link, *args: Any) -> chainer.Variable:
        return _flat(*link(*args[:n_states], list(args[n_states:])))

    # Dropout 0.5 between the layers: the cases run in test mode, where it must be off.
    return Case(cls.__name__, lambda: cls(2, 3, 2, 0.5), inputs, keys, {key for key in keys if "/w" in key}, call=call)


def _resnet_keys(blocks: tuple[int, ...]) -> set[str]:
    keys = {"conv1/W", "conv1/b", "fc6/W", "fc6/b"} | _bn("bn1")
    for stage, n_units in zip(range(2, 6), blocks):
        for i in range(n_units):
            # The first unit of a stage (BottleneckA) has a projection shortcut, conv4/bn4.
            unit = f"res{stage}/a" if i == 0 else f"res{stage}/b{i}"
            convs = range(1, 5 if i == 0 else 4)
            keys |= {f"{unit}/conv{c}/W" for c in convs} | _bn(*(f"{unit}/bn{c}" for c in convs))
    return keys


def _vgg_keys(blocks: tuple[int, ...]) -> set[str]:
    convs = [f"conv{b}_{i}" for b, n in enumerate(blocks, start=1) for i in range(1, n + 1)]
    return _wb(*convs, "fc6", "fc7", "fc8")


_INCEPTION = ("conv1", "proj3", "conv3", "proj5", "conv5", "projp")
_GOOGLENET_LINKS = (
    "conv1",
    "conv2_reduce",
    "conv2",
    *(
        f"{inc}/{c}"
        for inc in ("inc3a", "inc3b", "inc4a", "inc4b", "inc4c", "inc4d", "inc4e", "inc5a", "inc5b")
        for c in _INCEPTION
    ),
    "loss3_fc",
    *(f"loss{i}_{name}" for i in (1, 2) for name in ("conv", "fc1", "fc2")),
)


def _zoo(cls: type, keys: set[str], layer: str, slow: bool = True) -> Case:
    """A model-zoo network with random weights on one 32x32 image, compared at ``layer``.

    The layer is an early one: ``_perturb`` sets every parameter in [0.5, 1.5], so each
    convolution multiplies the activations by about its fan-in, and float32 overflows a few
    stages further (after it the outputs reach about 1e19 at ``pool3`` of VGG16, 1e22 at
    ``pool3`` of VGG19 and ``res2`` of ResNet, 1e16 at ``inception_4a`` of GoogLeNet; VGG19's
    ``pool4`` is already 1e36). The parameters of the later layers are still compared one by
    one by the tests."""
    return Case(
        cls.__name__,
        lambda: cls(pretrained_model=None),
        lambda: (_x(1, 3, 32, 32),),
        keys,
        # Every weight is drawn (HeNormal, Normal(0.01), LeCun*), every bias and BN parameter is constant.
        {key for key in keys if key.endswith("/W")},
        call=lambda link, x: link(x, layers=[layer])[layer],
        zoo=True,
        slow=slow,
    )


# Counts with all their mass on word 2: BlackOut and NegativeSampling then draw word 2 as
# every negative whatever the random stream, so their outputs repeat from call to call and
# agree between a CPU and a GPU (which draw from different generators). The sampling itself
# is tested in loss_tests/test_sampled_losses.py.
_ONE_WORD = (0, 0, 3, 0)
_GRU = ("W_r", "U_r", "W_z", "U_z", "W", "U")
# LSTM-like layers: upward (W_x, b: rows interleaved per unit a, i, f, o) and lateral (W_h, no bias).
_LSTM = {"upward/W", "upward/b", "lateral/W"}
_LSTM_RANDOM = {"upward/W", "lateral/W"}


def _crf(link: chainer.Link, x0: Any, x1: Any, y0: Any, y1: Any) -> chainer.Variable:
    """CRF1d's loss per sequence and its Viterbi scores, on batch-major sequences of lengths
    2 and 3 (which it sorts)."""
    loss = link([x0, x1], [y0, y1], reduce="no", transpose=True)
    score, _ = link.argmax([x0, x1], transpose=True)
    return _flat(loss, score)


_CONV = {"W", "b"}

CASES = [
    Case("Linear", lambda: L.Linear(3, 4), lambda: (_x(2, 3),), _CONV, {"W"}),
    Case("Linear-lazy", lambda: L.Linear(3), lambda: (_x(2, 3),), _CONV, {"W"}, chainable=True),
    Case("Linear-nobias", lambda: L.Linear(3, 3, nobias=True), lambda: (_x(2, 3),), {"W"}, {"W"}, chainable=True),
    Case(
        "Bilinear", lambda: L.Bilinear(2, 3, 2), lambda: (_x(2, 2), _x(2, 3)), {"W", "V1", "V2", "b"}, {"W", "V1", "V2"}
    ),
    Case("Convolution2D", lambda: L.Convolution2D(2, 2, 3, pad=1), lambda: (_x(1, 2, 3, 3),), _CONV, {"W"}, True),
    Case("Convolution2D-lazy", lambda: L.Convolution2D(2, 3, pad=1), lambda: (_x(1, 2, 3, 3),), _CONV, {"W"}, True),
    Case("Convolution1D", lambda: L.Convolution1D(2, 2, 3, pad=1), lambda: (_x(2, 2, 4),), _CONV, {"W"}, True),
    Case("Convolution3D", lambda: L.Convolution3D(1, 1, 2), lambda: (_x(1, 1, 3, 3, 3),), _CONV, {"W"}),
    Case("ConvolutionND", lambda: L.ConvolutionND(1, None, 2, 1), lambda: (_x(2, 2, 3),), _CONV, {"W"}, True),
    Case("Deconvolution2D", lambda: L.Deconvolution2D(2, 2, 3, pad=1), lambda: (_x(1, 2, 3, 3),), _CONV, {"W"}, True),
    Case("Deconvolution1D", lambda: L.Deconvolution1D(None, 2, 2), lambda: (_x(1, 2, 3),), _CONV, {"W"}),
    Case("Deconvolution3D", lambda: L.Deconvolution3D(1, 1, 1), lambda: (_x(1, 1, 2, 2, 2),), _CONV, {"W"}, True),
    Case("DeconvolutionND", lambda: L.DeconvolutionND(2, 1, 2, 2, 2), lambda: (_x(1, 1, 2, 2),), _CONV, {"W"}),
    Case(
        "DilatedConvolution2D",
        lambda: L.DilatedConvolution2D(1, 1, 3, pad=2, dilate=2),
        lambda: (_x(1, 1, 4, 4),),
        _CONV,
        {"W"},
        True,
    ),
    Case(
        "DepthwiseConvolution2D",
        lambda: L.DepthwiseConvolution2D(None, 1, 3, pad=1),
        lambda: (_x(1, 2, 3, 3),),
        _CONV,
        {"W"},
        True,
    ),
    Case("LocalConvolution2D", lambda: L.LocalConvolution2D(None, 2, ksize=2), lambda: (_x(2, 2, 3, 3),), _CONV, {"W"}),
    Case(
        "DeformableConvolution2D",
        lambda: L.DeformableConvolution2D(2, 2, 3, pad=1),
        lambda: (_x(1, 2, 3, 3),),
        {"offset_conv/W", "offset_conv/b", "deform_conv/W", "deform_conv/b"},
        {"offset_conv/W"},  # deform_conv/W starts at zero, as in Chainer 7.8.1
        True,
    ),
    Case(
        "MLPConvolution2D",
        lambda: L.MLPConvolution2D(2, (3, 2), 3, pad=1),
        lambda: (_x(1, 2, 3, 3),),
        {"0/W", "0/b", "1/W", "1/b"},
        {"0/W", "1/W"},
        True,
    ),
    Case("EmbedID", lambda: L.EmbedID(5, 3, ignore_label=-1), lambda: (np.array([0, 4, -1], np.int32),), {"W"}, {"W"}),
    Case(
        "Highway",
        lambda: L.Highway(3),
        lambda: (_x(2, 3),),
        {"plain/W", "plain/b", "transform/W", "transform/b"},
        {"plain/W", "transform/W"},
        True,
    ),
    Case(
        "Inception",
        lambda: L.Inception(2, 1, 1, 1, 1, 1, 1),
        lambda: (_x(1, 2, 3, 3),),
        {f"{c}/{p}" for c in ("conv1", "proj3", "conv3", "proj5", "conv5", "projp") for p in "Wb"},
        {f"{c}/W" for c in ("conv1", "proj3", "conv3", "proj5", "conv5", "projp")},
    ),
    Case(
        "InceptionBN",
        lambda: L.InceptionBN(2, 1, 1, 1, 1, 1, "max", proj_pool=1),
        lambda: (_x(2, 2, 3, 3),),
        {f"{c}/W" for c in ("conv1", "proj3", "conv3", "proj33", "conv33a", "conv33b", "poolp")}
        | {
            f"{bn}/{k}"
            for bn in ("conv1n", "proj3n", "conv3n", "proj33n", "conv33an", "conv33bn", "poolpn")
            for k in ("gamma", "beta", "avg_mean", "avg_var", "N")
        },
        {f"{c}/W" for c in ("conv1", "proj3", "conv3", "proj33", "conv33a", "conv33b", "poolp")},
    ),
    Case(
        "Parameter",
        lambda: L.Parameter(np.arange(6, dtype=np.float32).reshape(2, 3)),
        lambda: (),
        {"W"},
        set(),
        reinit=False,
    ),
    Case("Bias", lambda: L.Bias(shape=(3,)), lambda: (_x(2, 3),), {"b"}, set(), True),
    Case("Scale", lambda: L.Scale(W_shape=(3,), bias_term=True), lambda: (_x(2, 3),), {"W", "bias/b"}, set(), True),
    Case("Maxout", lambda: L.Maxout(3, 3, 2), lambda: (_x(2, 3),), {"linear/W", "linear/b"}, {"linear/W"}, True),
    Case("PReLU", lambda: L.PReLU((3,)), lambda: (_x(2, 3),), {"W"}, set(), True),
    Case("Swish", lambda: L.Swish(None), lambda: (_x(2, 3),), {"beta"}, set(), True),
    Case(
        "SimplifiedDropconnect",
        lambda: L.SimplifiedDropconnect(None, 3),
        lambda: (_x(2, 3),),
        _CONV,
        {"W"},
        True,
        {"train": False},
    ),
    Case(
        "BatchNormalization",
        lambda: L.BatchNormalization(3),
        lambda: (_x(4, 3, 2),),
        {"gamma", "beta", "avg_mean", "avg_var", "N"},
        set(),
        True,
    ),
    Case(
        "BatchNormalization-lazy",
        lambda: L.BatchNormalization(axis=(0, 2)),
        lambda: (_x(4, 3, 2),),
        {"gamma", "beta", "avg_mean", "avg_var", "N"},
        set(),
        True,
    ),
    Case(
        "BatchRenormalization",
        lambda: L.BatchRenormalization(3, rmax=2.0, dmax=1.0),
        lambda: (_x(4, 3),),
        {"gamma", "beta", "avg_mean", "avg_var", "N"},
        set(),
        True,
    ),
    Case(
        "DecorrelatedBatchNormalization",
        lambda: L.DecorrelatedBatchNormalization(4, groups=2),
        lambda: (_x(5, 4),),
        {"avg_mean", "avg_projection", "N"},
        set(),
        True,
    ),
    Case("GroupNormalization", lambda: L.GroupNormalization(2), lambda: (_x(2, 4, 3),), {"gamma", "beta"}, set(), True),
    Case("LayerNormalization", lambda: L.LayerNormalization(), lambda: (_x(2, 3),), {"gamma", "beta"}, set(), True),
    Case(
        "Classifier",
        lambda: L.Classifier(L.Linear(3, 4)),
        lambda: (_x(5, 3), np.array([0, 1, 2, 3, 0], np.int32)),
        {"predictor/W", "predictor/b"},
        {"predictor/W"},
    ),
    # Recurrent layers.
    Case("StatelessGRU", lambda: L.StatelessGRU(3, 2), lambda: (_x(2, 2), _x(2, 3)), _wb(*_GRU), _w(*_GRU)),
    Case("StatefulGRU", lambda: L.StatefulGRU(3, 2), lambda: (_x(2, 3), _x(2, 3)), _wb(*_GRU), _w(*_GRU), call=_steps),
    Case("GRU", lambda: L.GRU(3, 2), lambda: (_x(2, 3), _x(2, 3)), _wb(*_GRU), _w(*_GRU), call=_steps),
    Case(
        "StatelessMGU",
        lambda: L.StatelessMGU(3, 2),
        lambda: (_x(2, 2), _x(2, 3)),
        _wb("W_f", "W_h"),
        _w("W_f", "W_h"),
    ),
    Case(
        "StatefulMGU",
        lambda: L.StatefulMGU(3, 2),
        lambda: (_x(2, 3), _x(2, 3)),
        _wb("W_f", "W_h"),
        _w("W_f", "W_h"),
        call=_steps,
    ),
    Case(
        "StatelessLSTM",
        lambda: L.StatelessLSTM(3, 2),
        lambda: (_x(2, 2), _x(2, 2), _x(2, 3)),
        _LSTM,
        _LSTM_RANDOM,
        call=lambda link, c, h, x: _flat(*link(c, h, x)),
    ),
    Case("LSTM", lambda: L.LSTM(3, 2), lambda: (_x(2, 3), _x(2, 3)), _LSTM, _LSTM_RANDOM, call=_steps),
    Case("LSTM-lazy", lambda: L.LSTM(2), lambda: (_x(2, 3), _x(2, 3)), _LSTM, _LSTM_RANDOM, call=_steps),
    Case(
        "StatefulPeepholeLSTM",
        lambda: L.StatefulPeepholeLSTM(3, 2),
        lambda: (_x(2, 3), _x(2, 3)),
        _LSTM | _w("peep_i", "peep_f", "peep_o"),
        _LSTM_RANDOM | _w("peep_i", "peep_f", "peep_o"),
        call=_steps,
    ),
    Case(
        "StatefulZoneoutLSTM",
        lambda: L.StatefulZoneoutLSTM(3, 2, c_ratio=0.3, h_ratio=0.4),
        lambda: (_x(2, 3), _x(2, 3)),
        _LSTM,
        _LSTM_RANDOM,
        call=_steps,
    ),
    Case(
        "ChildSumTreeLSTM",
        lambda: L.ChildSumTreeLSTM(3, 2),
        lambda: (_x(2, 2), _x(2, 2), _x(2, 2), _x(2, 2), _x(2, 3)),  # c1, c2, h1, h2, x
        _wb("W_x") | _w("W_h_aio", "W_h_f"),
        _w("W_x", "W_h_aio", "W_h_f"),
        call=lambda link, *cshsx: _flat(*link(*cshsx)),
    ),
    Case(
        "NaryTreeLSTM",
        lambda: L.NaryTreeLSTM(3, 2, n_ary=2),
        lambda: (_x(2, 2), _x(2, 2), _x(2, 2), _x(2, 2), _x(2, 3)),
        _wb("W_x") | _w("W_h1", "W_h2"),
        _w("W_x", "W_h1", "W_h2"),
        call=lambda link, *cshsx: _flat(*link(*cshsx)),
    ),
    _nstep(L.NStepRNNTanh, 2, 1),
    _nstep(L.NStepRNNReLU, 2, 1),
    _nstep(L.NStepBiRNNTanh, 2, 1),
    _nstep(L.NStepBiRNNReLU, 2, 1),
    _nstep(L.NStepGRU, 6, 1),
    _nstep(L.NStepBiGRU, 6, 1),
    _nstep(L.NStepLSTM, 8, 2),
    _nstep(L.NStepBiLSTM, 8, 2),
    # Loss layers.
    Case(
        "BinaryHierarchicalSoftmax",
        lambda: L.BinaryHierarchicalSoftmax(3, ((0, 1), (2, 3))),
        lambda: (_x(4, 3), _ints(0, 3, 1, 2)),
        {"W"},  # the tree's tables are attributes, not persistents
        {"W"},
    ),
    Case("BlackOut", lambda: L.BlackOut(3, _ONE_WORD, 2), lambda: (_x(4, 3), _ints(0, 3, 1, 2)), {"W"}, {"W"}),
    Case(
        "NegativeSampling",
        lambda: L.NegativeSampling(3, _ONE_WORD, 2),
        lambda: (_x(4, 3), _ints(0, 3, -1, 2)),
        {"W"},
        set(),  # zeros at first
        kwargs={"reduce": "no"},
    ),
    Case(
        "CRF1d",
        lambda: L.CRF1d(3),
        lambda: (_x(2, 3), _x(3, 3), _ints(0, 2), _ints(1, 0, 2)),
        {"cost"},
        set(),
        call=_crf,
    ),
    # The model zoo.
    _zoo(L.ResNet50Layers, _resnet_keys((3, 4, 6, 3)), "res2"),
    _zoo(L.ResNet101Layers, _resnet_keys((3, 4, 23, 3)), "res2"),
    _zoo(L.ResNet152Layers, _resnet_keys((3, 8, 36, 3)), "res2"),
    _zoo(L.VGG16Layers, _vgg_keys((2, 2, 3, 3, 3)), "pool3"),
    _zoo(L.VGG19Layers, _vgg_keys((2, 2, 4, 4, 4)), "pool3"),
    _zoo(L.GoogLeNet, _wb(*_GOOGLENET_LINKS), "inception_4a", slow=False),
]


def _perturb(link: chainer.Link) -> None:
    """Give every parameter and persistent array values no initializer produces, so that
    a round trip that drops one of them cannot pass."""
    rng = np.random.default_rng(7)
    for _, param in link.namedparams():
        param.array[...] = rng.uniform(0.5, 1.5, param.shape).astype(param.dtype)
    for _, sub in link.namedlinks():
        for name in sub._persistent:
            value = getattr(sub, name)
            if isinstance(value, np.ndarray):
                value[...] = rng.uniform(0.5, 1.5, value.shape).astype(value.dtype)
            elif isinstance(value, int):
                setattr(sub, name, 3)


def _persistents(link: chainer.Link) -> dict[str, Any]:
    return {
        f"{path.rstrip('/')}/{name}": getattr(sub, name) for path, sub in link.namedlinks() for name in sub._persistent
    }


def _params(link: chainer.Link) -> dict[str, Any]:
    return {path.lstrip("/"): param for path, param in link.namedparams()}


@pytest.fixture(params=[pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.slow else []) for c in CASES])
def case(request, monkeypatch):
    if request.param.zoo:
        _draw_normals_from_a_generator(monkeypatch)
    return request.param


def _draw_normals_from_a_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make Normal (and so HeNormal and LeCunNormal) fill float32 NumPy arrays from a Generator.

    A model-zoo network draws 25 to 144 million normal samples per instance, and each test
    makes several (copies, repeat()); NumPy's legacy global stream, Normal's default source,
    draws them in float64 at about 30 ns each, several times slower than a Generator in
    float32. The tests only need fresh draws, which either gives; the initializers themselves
    are tested in the initializers' tests."""
    original = initializers.Normal.__call__
    rng = np.random.default_rng(0)

    def call(self: initializers.Normal, array: Any) -> None:
        if (
            type(array) is not np.ndarray
            or array.dtype != np.float32
            or not array.flags.c_contiguous
            or self.rng is not None
        ):
            return original(self, array)
        rng.standard_normal(out=array, dtype=np.float32)
        array *= np.float32(self.scale)

    monkeypatch.setattr(initializers.Normal, "__call__", call)


def test_every_exported_link_has_a_case():
    exported = {
        name for name in L.__all__ if isinstance(getattr(L, name), type) and issubclass(getattr(L, name), chainer.Link)
    }
    covered = {type(c.make()).__name__ for c in CASES if not c.zoo} | {c.id for c in CASES if c.zoo}
    assert exported - covered == {"TheanoFunction"}


def test_npz_keys_and_round_trip(case, tmp_path):
    inputs = case.inputs()
    src = case.make()
    case.run(src, inputs)  # creates lazily shaped parameters
    _perturb(src)
    expected = case.run(src, inputs)
    # Equal infinities or NaNs would make every comparison below pass.
    assert np.isfinite(expected).all()
    path = tmp_path / "link.npz"
    serializers.save_npz(path, src, compression=not case.zoo)
    with np.load(path) as npz:
        assert set(npz.files) == case.keys

    dst = case.make()  # a fresh layer, lazy ones still without shapes
    serializers.load_npz(path, dst)
    src_params, dst_params = _params(src), _params(dst)
    assert src_params.keys() == dst_params.keys()
    for key, param in src_params.items():
        assert dst_params[key].dtype == param.dtype
        np.testing.assert_array_equal(dst_params[key].array, param.array, err_msg=key)
    for key, value in _persistents(src).items():
        np.testing.assert_array_equal(_persistents(dst)[key], value, err_msg=key)
    np.testing.assert_array_equal(case.run(dst, inputs), expected)


def test_to_device_numpy(case):
    inputs = case.inputs()
    lazy = case.make()
    assert lazy.to_device("@numpy") is lazy
    expected = case.run(lazy, inputs)  # parameters created after the move live there too
    for key, param in _params(lazy).items():
        assert isinstance(param.array, np.ndarray), key
        assert param.device == chainer.get_device("@numpy")
    assert lazy.to_device("@numpy") is lazy
    np.testing.assert_array_equal(case.run(lazy, inputs), expected)


@pytest.mark.gpu
def test_to_gpu_and_back(case):
    cupy = pytest.importorskip("cupy")
    if cupy.cuda.runtime.getDeviceCount() == 0:
        pytest.skip("no CUDA device")
    inputs = case.inputs()
    link = case.make()
    expected = case.run(link, inputs)
    link.to_device("@cupy:0")
    for key, param in _params(link).items():
        assert isinstance(param.array, cupy.ndarray), key
    gpu_inputs = tuple(cupy.asarray(x) for x in inputs)
    np.testing.assert_allclose(cupy.asnumpy(case.run(link, gpu_inputs)), expected, rtol=1e-4, atol=1e-5)
    link.to_device("@numpy")
    for key, param in _params(link).items():
        assert isinstance(param.array, np.ndarray), key
    np.testing.assert_allclose(case.run(link, inputs), expected, rtol=1e-4, atol=1e-5)


def test_copy_share(case):
    inputs = case.inputs()
    link = case.make()
    case.run(link, inputs)
    copy = link.copy("share")
    assert copy is not link and type(copy) is type(link) and copy.name is None
    src, dst = _params(link), _params(copy)
    assert src.keys() == dst.keys()
    for key in src:
        assert dst[key] is not src[key], key
        assert dst[key].array is src[key].array, key
    # Updates through one are seen by the other.
    _perturb(link)
    np.testing.assert_array_equal(case.run(copy, inputs), case.run(link, inputs))


def test_copy_copy(case):
    inputs = case.inputs()
    link = case.make()
    case.run(link, inputs)
    _perturb(link)
    copy = link.copy("copy")
    src, dst = _params(link), _params(copy)
    for key in src:
        np.testing.assert_array_equal(dst[key].array, src[key].array, err_msg=key)
        assert not np.shares_memory(dst[key].array, src[key].array), key
    for key, value in _persistents(link).items():
        np.testing.assert_array_equal(_persistents(copy)[key], value, err_msg=key)
        if isinstance(value, np.ndarray):
            assert not np.shares_memory(_persistents(copy)[key], value), key
    expected = case.run(link, inputs)
    for param in dst.values():
        param.array[...] = 0
    np.testing.assert_array_equal(case.run(link, inputs), expected)


def test_copy_init(case):
    inputs = case.inputs()
    link = case.make()
    case.run(link, inputs)
    fresh = _params(link)
    fresh = {key: param.array.copy() for key, param in fresh.items()}
    _perturb(link)
    copy = link.copy("init")
    for key, param in _params(copy).items():
        assert param.shape == fresh[key].shape and param.dtype == fresh[key].dtype, key
        if not case.reinit:
            np.testing.assert_array_equal(param.array, _params(link)[key].array)
            continue
        # Every parameter was drawn again: constants are back to their initial value and
        # random ones are new draws.
        assert not np.array_equal(param.array, _params(link)[key].array), key
        if key in case.random:
            assert not np.allclose(param.array, fresh[key]), key
        else:
            np.testing.assert_array_equal(param.array, fresh[key], err_msg=key)


def test_repeat(case):
    inputs = case.inputs()
    link = case.make()
    case.run(link, inputs)
    seq = link.repeat(3)
    assert isinstance(seq, chainer.Sequential) and len(seq) == 3
    arrays = [param.array for param in link.params()]
    for layer in seq:
        assert type(layer) is type(link)
        for key, param in _params(layer).items():
            assert all(not np.shares_memory(param.array, a) for a in arrays), key
            if key in case.random:
                assert not np.allclose(param.array, _params(link)[key].array), key
    shared = link.repeat(2, mode="share")
    for layer in shared:
        for key, param in _params(layer).items():
            assert param.array is _params(link)[key].array, key
    if case.chainable and len(inputs) == 1 and not case.kwargs:
        # The Sequential applies the copies one after the other.
        expected = inputs[0]
        for layer in seq:
            expected = case.run(layer, (expected,))
        with chainer.using_config("train", False):
            np.testing.assert_array_equal(seq(inputs[0]).array, expected)
    assert len(link.repeat(0)) == 0


def test_pickle_round_trip(case):
    inputs = case.inputs()
    link = case.make()
    case.run(link, inputs)
    _perturb(link)
    clone = pickle.loads(pickle.dumps(link))
    assert type(clone) is type(link)
    np.testing.assert_array_equal(case.run(clone, inputs), case.run(link, inputs))
    lazy = pickle.loads(pickle.dumps(case.make()))
    assert case.run(lazy, inputs).shape == case.run(link, inputs).shape


def test_lazy_layer_loads_into_uninitialized_parameters(tmp_path):
    src = L.Linear(3)
    src(np.ones((1, 5), np.float32))
    path = tmp_path / "lazy.npz"
    serializers.save_npz(path, src)
    dst = L.Linear(3)
    assert dst.W.array is None
    serializers.load_npz(path, dst)
    assert dst.W.shape == (3, 5) and dst.in_size == 5
    np.testing.assert_array_equal(dst.W.array, src.W.array)


def test_default_dtype_follows_config():
    with chainer.using_config("dtype", np.float16):
        link = L.Linear(3, 2, initialW=initializers.One())
        lazy = L.Convolution2D(2, 1)
        lazy(np.ones((1, 3, 2, 2), np.float16))
    assert link.W.dtype == link.b.dtype == np.float16
    assert lazy.W.dtype == np.float16
