"""The small utility modules of chainer.utils: cache, precision, imgproc, meta,
nondeterministic, tempdir and collections_abc."""

import collections.abc
import os
import warnings

import numpy as np
import pytest

import chainer
from chainer.utils import cache, imgproc, meta, precision


class _Doubler:
    def __init__(self, x):
        self.x = x
        self.calls = 0

    @cache.cached_property
    def double(self):
        self.calls += 1
        return self.x * 2


def test_cached_property_computes_once_per_backprop_mode():
    d = _Doubler(chainer.Variable(np.array([1.0])))
    with_graph = d.double
    assert d.double is with_graph and d.calls == 1
    with chainer.no_backprop_mode():
        without_graph = d.double
        assert d.double is without_graph
    assert without_graph is not with_graph and without_graph.creator is None
    assert d.double is with_graph and d.calls == 2
    assert _Doubler.double.__name__ == "double"


def test_fp16_helper_computes_half_inputs_in_single_precision():
    seen = []

    class Identity(chainer.FunctionNode):
        @precision._fp16_mixed_precision_helper
        def forward(self, inputs):
            seen.append(tuple(x.dtype for x in inputs))
            return inputs

    half = np.zeros(2, np.float16)
    ints = np.zeros(2, np.int8)
    ys = Identity().apply((half, ints))
    assert seen[-1] == (np.float32, np.int8)
    assert (ys[0].dtype, ys[1].dtype) == (np.float16, np.int8)
    single = np.zeros(2, np.float32)
    Identity().apply((single,))
    assert seen[-1] == (np.float32,)


def test_oversample_takes_corners_center_and_mirrors():
    images = np.arange(2 * 1 * 5 * 6, dtype=np.float32).reshape(2, 1, 5, 6)
    crops = imgproc.oversample(images, (3, 4))
    assert crops.shape == (20, 1, 3, 4)
    for n in range(2):
        image = images[n]
        expected = [
            image[:, 0:3, 0:4],
            image[:, 0:3, 2:6],
            image[:, 2:5, 0:4],
            image[:, 2:5, 2:6],
            image[:, 1:4, 1:5],
        ]
        expected += [e[:, :, ::-1] for e in expected]
        np.testing.assert_array_equal(crops[10 * n : 10 * n + 10], np.stack(expected))
    with pytest.raises(ValueError, match="must fit"):
        imgproc.oversample(images, (6, 4))


def test_final_methods_cannot_be_overridden():
    Base = meta.enable_final()

    class A(Base):
        @meta.final
        def f(self):
            return 1

        @meta.final(action=DeprecationWarning)
        def g(self):
            return 1

    with pytest.raises(TypeError, match="method 'f' is final"):

        class B(A):
            def f(self):
                return 2

    with pytest.warns(DeprecationWarning, match="Overriding method 'g'"):

        class C(A):
            def g(self):
                return 2

    assert C().g() == 2


def test_nondeterministic_warns_only_when_asked():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chainer.utils.nondeterministic("atomic_add")
    with chainer.using_config("warn_nondeterministic", True), pytest.warns(UserWarning, match="Source: atomic_add"):
        chainer.utils.nondeterministic("atomic_add")


def test_tempdir_and_collections_abc():
    with chainer.utils.tempdir(prefix="chainer-test-") as path:
        assert os.path.basename(path).startswith("chainer-test-")
        open(os.path.join(path, "f"), "w").close()
    assert not os.path.exists(path)
    assert chainer.utils.collections_abc is collections.abc


def test_get_order_rejects_half_padded_indices():
    row = np.array([0, 1, -1], np.int32)
    col = np.array([0, -1, 2], np.int32)
    with pytest.raises(ValueError, match="invalid index combination"):
        chainer.utils.get_order(row, col)
    assert chainer.utils.get_order(np.array([0, -1]), np.array([1, -1])) == "C"
