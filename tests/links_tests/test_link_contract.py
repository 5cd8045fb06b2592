"""What every layer of chainer.links shares with chainer.Link, checked on each of them:
the NPZ keys and a save/load round trip (also into a layer whose shapes are still unknown),
to_device('@numpy') (and to a GPU and back where there is one), copy() in its three modes
and repeat().

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
import chainer.links as L
from chainer import initializers, serializers


def _x(*shape: int) -> np.ndarray:
    return np.random.uniform(-1, 1, shape).astype(np.float32)


@dataclasses.dataclass
class Case:
    id: str
    make: Callable[[], chainer.Link]
    inputs: Callable[[], tuple[Any, ...]]
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

    def run(self, link: chainer.Link, inputs: tuple[Any, ...]) -> np.ndarray:
        # Test mode: batch statistics and dropping would make outputs differ between calls.
        with chainer.using_config("train", False):
            return link(*inputs, **self.kwargs).array


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
        {"offset_conv/W", "deform_conv/W"},
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


@pytest.fixture(params=CASES, ids=[c.id for c in CASES])
def case(request):
    return request.param


def test_npz_keys_and_round_trip(case, tmp_path):
    inputs = case.inputs()
    src = case.make()
    case.run(src, inputs)  # creates lazily shaped parameters
    _perturb(src)
    expected = case.run(src, inputs)
    path = tmp_path / "link.npz"
    serializers.save_npz(path, src)
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
