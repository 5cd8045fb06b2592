"""Shared checks of the link tests, handed to the tests as the ``link_checks`` fixture
(test folders are not packages, so helpers travel as fixtures)."""

import types

import numpy
import pytest

import chainer
from chainer import plugins, serializers


def _arrays(link):
    """Every parameter array under ``link``, by path."""
    return {path: param.array for path, param in link.namedparams()}


def npz_round_trip(link, fresh, expected_keys, tmp_path):
    """Save ``link`` to an npz file, check the file's keys are exactly ``expected_keys``
    (the key names of Chainer 7.8.1), load it into ``fresh`` and check every value came back."""
    path = tmp_path / "link.npz"
    serializers.save_npz(str(path), link)
    with numpy.load(str(path)) as npz:
        assert sorted(npz.files) == sorted(expected_keys)
        saved = {key: npz[key] for key in npz.files}
    serializers.load_npz(str(path), fresh)
    loaded = _arrays(fresh)
    for key, value in _arrays(link).items():
        numpy.testing.assert_array_equal(loaded[key], value)
        numpy.testing.assert_array_equal(saved[key.lstrip("/")], value)
    return fresh


def copy_and_repeat(link, random_params=()):
    """``copy('share')`` shares the arrays, ``copy('copy')`` duplicates them,
    ``copy('init')`` re-draws the parameters named in ``random_params``, and
    ``repeat(2)`` gives two independent copies."""
    original = {k: v.copy() for k, v in _arrays(link).items()}
    shared = link.copy("share")
    copied = link.copy("copy")
    for (_, p), (_, s), (_, c) in zip(link.namedparams(), shared.namedparams(), copied.namedparams()):
        assert s is not p and c is not p
        assert s.array is p.array
        assert c.array is not p.array
        numpy.testing.assert_array_equal(c.array, p.array)
    init = link.copy("init")
    init_arrays = _arrays(init)
    for path in random_params:
        assert not numpy.array_equal(init_arrays[path], original[path]), path
    seq = link.repeat(2)
    assert len(seq) == 2 and seq[0] is not seq[1]
    assert type(seq[0]) is type(link)
    for path in random_params:
        assert not numpy.array_equal(_arrays(seq[0])[path], _arrays(seq[1])[path]), path
    # The original is untouched by all of that.
    for key, value in _arrays(link).items():
        numpy.testing.assert_array_equal(value, original[key])


def device_round_trip(link, run):
    """Move ``link`` to a fake third-party device and between two of them; ``run(link, device)``
    computes on the link there and its outputs must stay on that device and equal the NumPy result
    (``run=None`` checks the move alone)."""
    import chainer_plugin_fakedev as fakedev

    expected = [] if run is None else [numpy.asarray(y.array).copy() for y in run(link, chainer.get_device("@numpy"))]
    plugins.register(fakedev, name="links-tests-fakedev")
    try:
        for name in ("@fakedev:1", "@fakedev:2"):
            link.to_device(name)
            device = chainer.get_device(name)
            assert link.device == device
            for path, param in link.namedparams():
                assert chainer.backend.get_device_from_array(param.array) == device, path
            outputs = [] if run is None else run(link, device)
            for y, e in zip(outputs, expected):
                assert chainer.backend.get_device_from_array(y.array) == device
                numpy.testing.assert_allclose(numpy.asarray(y.array), e, rtol=1e-6, atol=1e-6)
    finally:
        link.to_device("@numpy")
        plugins.unregister(fakedev)


@pytest.fixture
def link_checks():
    return types.SimpleNamespace(
        npz_round_trip=npz_round_trip, copy_and_repeat=copy_and_repeat, device_round_trip=device_round_trip
    )
