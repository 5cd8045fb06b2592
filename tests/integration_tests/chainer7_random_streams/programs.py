"""Small programs that draw from NumPy's global generator, run after ``numpy.random.seed(0)``.

A researcher who reruns a Chainer 7.8.1 program seeded with ``numpy.random.seed`` expects
the same initial weights, dropout masks, samples and shuffles. The same text runs under
Chainer 7.8.1 on NumPy 1.26 (``make_fixtures.py`` saves what each case returns) and under
ours on NumPy 2 (``tests/integration_tests/test_chainer7_random_streams.py`` compares). Both
use NumPy's legacy ``RandomState`` stream, which NumPy keeps identical across versions.

:func:`run` seeds the global generator with 0, runs a case and adds ``after``: the next
``numpy.random.rand(4)``, so a case that draws the right values but a different count of
numbers also shows. Arrays of more than ``_DIGEST_OVER`` elements are kept as a digest of
their bytes (the model zoo), the others as they are.
"""

from __future__ import annotations

import hashlib
import time
import warnings

import numpy as np

import chainer
import chainer.distributions as D
import chainer.functions as F
import chainer.link_hooks
import chainer.links as L
import chainer.optimizer_hooks
import chainer.optimizers
from chainer import datasets, initializers, iterators, utils

_DIGEST_OVER = 4096

CASES: dict = {}


def case(name):
    def register(f):
        CASES[name] = f
        return f

    return register


def _o(*shape):
    return np.ones(shape, np.float32)


def _z(*shape):
    return np.zeros(shape, np.float32)


def _params(link) -> dict:
    return {"param" + name: p.array for name, p in sorted(link.namedparams()) if p.array is not None}


# -- links whose construction draws (lazy ones after their first call) -------------------

_X4 = np.ones((1, 3, 8, 8), np.float32)
LINKS = {
    "Linear": lambda: L.Linear(3, 4),
    "Linear_nobias": lambda: L.Linear(3, 4, nobias=True),
    "Linear_lazy": (lambda: L.Linear(None, 4), np.ones((2, 3), np.float32)),
    "Convolution2D": lambda: L.Convolution2D(3, 4, 3),
    "Convolution2D_lazy": (lambda: L.Convolution2D(None, 4, 3), _X4),
    "Convolution2D_groups": lambda: L.Convolution2D(4, 4, 3, groups=2),
    "Deconvolution2D": lambda: L.Deconvolution2D(3, 4, 3),
    "Deconvolution2D_lazy": (lambda: L.Deconvolution2D(None, 4, 3), _X4),
    "DilatedConvolution2D": lambda: L.DilatedConvolution2D(3, 4, 3, dilate=2),
    "ConvolutionND": lambda: L.ConvolutionND(3, 2, 3, 2),
    "DeconvolutionND": lambda: L.DeconvolutionND(3, 2, 3, 2),
    "Convolution1D": lambda: L.Convolution1D(2, 3, 2),
    "DepthwiseConvolution2D": lambda: L.DepthwiseConvolution2D(3, 2, 3),
    "Bilinear": lambda: L.Bilinear(2, 3, 4),
    "EmbedID": lambda: L.EmbedID(5, 3),
    "Highway": lambda: L.Highway(4),
    "Maxout": lambda: L.Maxout(3, 4, 2),
    "LSTM": lambda: L.LSTM(3, 4),
    "LSTM_lazy": (lambda: L.LSTM(None, 4), np.ones((2, 3), np.float32)),
    "StatelessLSTM": lambda: L.StatelessLSTM(3, 4),
    "GRU": lambda: L.GRU(3, 4),
    "StatefulGRU": lambda: L.StatefulGRU(3, 4),
    "StatelessGRU": lambda: L.StatelessGRU(3, 4),
    "StatefulMGU": lambda: L.StatefulMGU(3, 4),
    "StatelessMGU": lambda: L.StatelessMGU(3, 4),
    "StatefulPeepholeLSTM": lambda: L.StatefulPeepholeLSTM(3, 4),
    "StatefulZoneoutLSTM": lambda: L.StatefulZoneoutLSTM(3, 4),
    "NStepLSTM": lambda: L.NStepLSTM(2, 3, 4, 0.0),
    "NStepBiLSTM": lambda: L.NStepBiLSTM(1, 3, 4, 0.0),
    "NStepGRU": lambda: L.NStepGRU(1, 3, 4, 0.0),
    "NStepBiGRU": lambda: L.NStepBiGRU(1, 3, 4, 0.0),
    "NStepRNNTanh": lambda: L.NStepRNNTanh(1, 3, 4, 0.0),
    "NStepBiRNNReLU": lambda: L.NStepBiRNNReLU(1, 3, 4, 0.0),
    "ChildSumTreeLSTM": lambda: L.ChildSumTreeLSTM(3, 4),
    "NaryTreeLSTM": lambda: L.NaryTreeLSTM(3, 4, 2),
    "BatchNormalization": lambda: L.BatchNormalization(4),
    "BatchRenormalization": lambda: L.BatchRenormalization(4),
    "LayerNormalization": lambda: L.LayerNormalization(4),
    "GroupNormalization": lambda: L.GroupNormalization(2, 4),
    "Scale": lambda: L.Scale(W_shape=(3,)),
    "Bias": lambda: L.Bias(shape=(3,)),
    "SimplifiedDropconnect": lambda: L.SimplifiedDropconnect(3, 4),
    "LocalConvolution2D": lambda: L.LocalConvolution2D(3, 2, in_size=5, ksize=3),
    "DeformableConvolution2D": lambda: L.DeformableConvolution2D(3, 2, 3),
    "Inception": lambda: L.Inception(3, 2, 2, 2, 2, 2, 2),
    "InceptionBN": lambda: L.InceptionBN(3, 2, 2, 2, 2, 2, "avg", 2),
    "PReLU": lambda: L.PReLU(),
    "CRF1d": lambda: L.CRF1d(3),
    "Swish": lambda: L.Swish((3,)),
    "BlackOut": lambda: L.BlackOut(3, [1, 2, 3], 2),
    "NegativeSampling": lambda: L.NegativeSampling(3, [1, 2, 3], 2),
    "BinaryHierarchicalSoftmax": lambda: L.BinaryHierarchicalSoftmax(
        3, L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 3, 1: 2, 2: 1})
    ),
    "MLPConvolution2D": lambda: L.MLPConvolution2D(3, (4, 5), 3),
    "Linear_repeat_init": lambda: L.Linear(3, 4).repeat(2, mode="init"),
    "Sequential_repeat_init": lambda: chainer.Sequential(L.Linear(3, 4), F.relu).repeat(2, mode="init"),
    "Linear_copy_init": lambda: L.Linear(3, 4).copy(mode="init"),
    "GoogLeNet": lambda: L.GoogLeNet(pretrained_model=None),
}


def _link_case(make):
    def f():
        if isinstance(make, tuple):
            link = make[0]()
            with chainer.using_config("train", False):
                link(make[1])
        else:
            link = make()
        return _params(link)

    return f


for _name, _make in LINKS.items():
    CASES["link." + _name] = _link_case(_make)


# -- initializers: 2-D tall and wide, N-D -------------------------------------------------

INITIALIZERS = {
    "Normal": initializers.Normal,
    "Uniform": initializers.Uniform,
    "LeCunNormal": initializers.LeCunNormal,
    "LeCunUniform": initializers.LeCunUniform,
    "GlorotNormal": initializers.GlorotNormal,
    "GlorotUniform": initializers.GlorotUniform,
    "HeNormal": initializers.HeNormal,
    "HeUniform": initializers.HeUniform,
    "Orthogonal": initializers.Orthogonal,
}
SHAPES = {"tall": (5, 3), "wide": (3, 5), "nd": (4, 3, 2), "conv": (2, 3, 3, 3)}


def _initializer_case(cls, shape, dtype=np.float32):
    def f():
        a = np.empty(shape, dtype)
        cls()(a)
        return {"array": a}

    return f


for _name, _cls in INITIALIZERS.items():
    for _kind, _shape in SHAPES.items():
        CASES[f"init.{_name}.{_kind}"] = _initializer_case(_cls, _shape)
    CASES[f"init.{_name}.float64"] = _initializer_case(_cls, (5, 3), np.float64)


@case("init.Normal.rng")
def _init_rng():
    # An initializer with its own generator leaves the global one alone.
    a = np.empty((3, 4), np.float32)
    initializers.Normal(rng=np.random.RandomState(7))(a)
    return {"array": a}


@case("init.generate_array")
def _generate_array():
    return {"array": initializers.generate_array(initializers.HeNormal(), (4, 3), np)}


# -- functions that draw ------------------------------------------------------------------


def _train(f):
    def g():
        with chainer.using_config("train", True):
            return f()

    return g


CASES["F.dropout"] = _train(
    lambda: dict(
        zip(
            ("y", "mask"),
            (v if isinstance(v, np.ndarray) else v.array for v in F.dropout(_o(4, 5), 0.3, return_mask=True)),
        )
    )
)
CASES["F.gaussian"] = _train(lambda: {"y": F.gaussian(_z(5), _z(5)).array})
CASES["F.gaussian_noise"] = _train(
    lambda: {"y": F.gaussian(np.arange(6, dtype=np.float32), np.full(6, -1.0, np.float32)).array}
)
CASES["F.simplified_dropconnect"] = _train(
    lambda: {"y": F.simplified_dropconnect(_o(2, 3), np.arange(12, dtype=np.float32).reshape(4, 3), ratio=0.5).array}
)
CASES["F.zoneout"] = _train(lambda: {"y": F.zoneout(_z(3, 4), _o(3, 4), 0.5).array})
CASES["F.rrelu"] = _train(lambda: {"y": F.rrelu(-_o(3, 4)).array})
CASES["F.gumbel_softmax"] = lambda: {"y": F.gumbel_softmax(np.log(np.full((3, 4), 0.25, np.float32)), 0.5).array}


@case("F.negative_sampling")
def _negative_sampling():
    sampler = utils.WalkerAlias([1, 2, 3]).sample
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    W = np.arange(9, dtype=np.float32).reshape(3, 3) / 9
    y = F.negative_sampling(x, np.array([0, 1], np.int32), W, sampler, 2, reduce="no")
    return {"y": y.array}


@case("L.NegativeSampling.call")
def _negative_sampling_link():
    link = L.NegativeSampling(3, [1, 2, 3], 2)
    return {"y": link(_o(2, 3), np.array([0, 1], np.int32), reduce="no").array, **_params(link)}


# -- distributions ------------------------------------------------------------------------

_P = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], np.float32)
DISTRIBUTIONS = {
    "Normal": lambda: D.Normal(_z(3), _o(3)),
    "Bernoulli": lambda: D.Bernoulli(np.array([0.1, 0.3, 0.5, 0.7, 0.9], np.float32)),
    "Bernoulli_logit": lambda: D.Bernoulli(logit=np.array([-1.0, 0.0, 2.0], np.float32)),
    "Beta": lambda: D.Beta(_o(3), _o(3) * 2),
    "Categorical": lambda: D.Categorical(_P),
    "Categorical_1d": lambda: D.Categorical(_P[0]),
    "Categorical_zero_class": lambda: D.Categorical(np.array([0.5, 0.0, 0.5], np.float32)),
    "Cauchy": lambda: D.Cauchy(_z(3), _o(3)),
    "Chisquare": lambda: D.Chisquare(_o(3) * 2),
    "Dirichlet": lambda: D.Dirichlet(np.array([[1.0, 2.0, 0.5], [0.05, 0.05, 3.0]], np.float32)),
    "Dirichlet_1d": lambda: D.Dirichlet(np.array([1.0, 2.0, 0.5, 4.0], np.float32)),
    "Exponential": lambda: D.Exponential(_o(3)),
    "Gamma": lambda: D.Gamma(_o(3) * 2, _o(3)),
    "Geometric": lambda: D.Geometric(np.array([0.1, 0.3, 0.9], np.float32)),
    "Gumbel": lambda: D.Gumbel(_z(3), _o(3)),
    "Laplace": lambda: D.Laplace(_z(3), _o(3)),
    "LogNormal": lambda: D.LogNormal(_z(3), _o(3)),
    "MultivariateNormal": lambda: D.MultivariateNormal(_z(3), scale_tril=np.eye(3, dtype=np.float32)),
    "OneHotCategorical": lambda: D.OneHotCategorical(_P),
    "Pareto": lambda: D.Pareto(np.array([1.0, 2.0, 0.5], np.float32), np.array([3.0, 0.5, 1.5], np.float32)),
    "Poisson": lambda: D.Poisson(np.array([0.5, 2.0, 30.0], np.float32)),
    "Uniform": lambda: D.Uniform(low=_z(3), high=_o(3)),
}


def _sample_case(make, n):
    def f():
        d = make()
        x = d.sample(n) if n is not None else d.sample()
        # Integer-valued samples are compared as values: their dtype differs on purpose
        # (Chainer 7.8.1 gives int64 or float32 depending on the distribution, ours int32).
        return {"sample": np.asarray(x.array, np.float64)}

    return f


for _name, _make in DISTRIBUTIONS.items():
    CASES[f"dist.{_name}.sample4"] = _sample_case(_make, 4)
    CASES[f"dist.{_name}.sample"] = _sample_case(_make, None)
CASES["dist.Categorical.sample500"] = _sample_case(
    lambda: D.Categorical(np.random.RandomState(1).dirichlet(np.ones(7), 3).astype(np.float32)), 500
)
CASES["dist.Pareto.sample500"] = _sample_case(
    lambda: D.Pareto(np.array([1.0, 2.0], np.float32), np.array([0.7, 4.0], np.float32)), 500
)


# -- Walker's alias method ----------------------------------------------------------------

WALKER = {
    "three": [0.1, 0.5, 0.4],
    "zero": [0.0, 3.0, 1.0, 0.5],
    "uniform": [1.0] * 6,
    "random": list(np.random.RandomState(3).rand(20) ** 3),
}
for _name, _probs in WALKER.items():
    CASES[f"WalkerAlias.{_name}"] = (lambda probs: lambda: {"sample": utils.WalkerAlias(probs).sample((5, 200))})(
        _probs
    )


# -- n-step RNNs' dropout masks -----------------------------------------------------------

NSTEP = {
    "NStepLSTM": (L.NStepLSTM, True),
    "NStepBiLSTM": (L.NStepBiLSTM, True),
    "NStepGRU": (L.NStepGRU, False),
    "NStepBiGRU": (L.NStepBiGRU, False),
    "NStepRNNTanh": (L.NStepRNNTanh, False),
    "NStepBiRNNReLU": (L.NStepBiRNNReLU, False),
}


def _nstep_case(cls, has_cell, n_layers):
    def f():
        link = cls(n_layers, 3, 4, 0.5)
        rs = np.random.RandomState(1)
        xs = [rs.uniform(-1, 1, (n, 3)).astype(np.float32) for n in (3, 2, 2)]
        with chainer.using_config("train", True):
            out = link(None, None, xs) if has_cell else link(None, xs)
        ys = out[-1]
        result = {"hy": out[0].array, **{f"ys{i}": y.array for i, y in enumerate(ys)}}
        return result

    return f


for _name, (_cls, _cell) in NSTEP.items():
    CASES[f"nstep.{_name}.3layers"] = _nstep_case(_cls, _cell, 3)
CASES["nstep.NStepLSTM.1layer"] = _nstep_case(L.NStepLSTM, True, 1)


# -- iterators and random splits ----------------------------------------------------------


def _iterator_case(cls, settle=False, **kwargs):
    def f():
        it = cls(list(range(10)), 3, shuffle=True, **kwargs)
        batches = [it.next() for _ in range(7)]
        if settle and chainer.__version__ == "7.8.1":
            # Chainer 7.8.1 draws the orders of the batches it prefetches in a thread:
            # given a moment (as any step of a training loop gives it), that thread has
            # drawn up to the batch n_prefetch + 1 ahead. Ours draws them at once.
            time.sleep(0.3)
        if hasattr(it, "finalize"):
            it.finalize()
        return {"batches": np.array(batches)}

    return f


CASES["iter.SerialIterator"] = _iterator_case(iterators.SerialIterator)
CASES["iter.MultithreadIterator"] = _iterator_case(iterators.MultithreadIterator, n_threads=2)
CASES["iter.MultiprocessIterator"] = _iterator_case(iterators.MultiprocessIterator, settle=True, n_processes=1)
CASES["iter.MultiprocessIterator.prefetch3"] = _iterator_case(
    iterators.MultiprocessIterator, settle=True, n_processes=1, n_prefetch=3
)


@case("datasets.split_dataset_random")
def _split():
    a, b = datasets.split_dataset_random(list(range(10)), 4, seed=3)
    return {"first": np.array(list(a)), "second": np.array(list(b))}


@case("datasets.get_cross_validation_datasets_random")
def _cross_validation():
    splits = datasets.get_cross_validation_datasets_random(list(range(10)), 3, seed=3)
    return {f"{k}{i}": np.array(list(s[j])) for i, s in enumerate(splits) for j, k in enumerate(("train", "test"))}


@case("datasets.split_dataset_n_random")
def _split_n():
    return {
        f"part{i}": np.array(list(s)) for i, s in enumerate(datasets.split_dataset_n_random(list(range(10)), 3, seed=3))
    }


# -- hooks that draw ----------------------------------------------------------------------


@case("hook.SpectralNormalization")
def _spectral_normalization():
    link = L.Linear(3, 4)
    link.add_hook(chainer.link_hooks.SpectralNormalization())
    with chainer.using_config("train", True):
        link(_o(2, 3))
    return {"u": link.W_u, **_params(link)}


@case("hook.GradientNoise")
def _gradient_noise():
    link = L.Linear(3, 2)
    for _, p in link.namedparams():
        p.array[...] = 0.5
    opt = chainer.optimizers.SGD(lr=1.0)
    opt.setup(link)
    opt.add_hook(chainer.optimizer_hooks.GradientNoise(0.3))
    link.cleargrads()
    F.sum(link(_o(2, 3))).backward()
    opt.update()
    return _params(link)


# -- the runner ---------------------------------------------------------------------------


def _digest(a: np.ndarray) -> np.ndarray:
    return np.array(f"{a.dtype.str}{a.shape}:" + hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())


def run(name: str) -> dict[str, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.random.seed(0)
        arrays = CASES[name]()
        out = {}
        for key, value in arrays.items():
            value = np.array(value, copy=True)
            out[key] = _digest(value) if value.size > _DIGEST_OVER else value
        out["after"] = np.random.rand(4)
    return out
