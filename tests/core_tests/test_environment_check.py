"""chainer._environment_check: warnings about known-bad environments."""

import importlib.metadata
import warnings

import pytest

from chainer import _environment_check


class _Dist:
    def __init__(self, name, version):
        self.metadata = {"Name": name}
        self.version = version


def test_clean_environment_gives_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _environment_check.check()


def test_old_cupy_and_the_original_chainer_are_reported(monkeypatch):
    monkeypatch.setattr(
        importlib.metadata, "distributions", lambda: [_Dist("cupy-cuda12x", "13.6.0"), _Dist("cupy", "14.0.1")]
    )
    monkeypatch.setattr(_environment_check, "_distribution_version", lambda name: "7.8.1")
    with pytest.warns(RuntimeWarning) as record:
        _environment_check.check()
    messages = [str(w.message) for w in record]
    assert any("cupy-cuda12x 13.6.0 is installed" in m for m in messages)
    assert not any("cupy 14.0.1" in m for m in messages)
    assert any("original 'chainer' distribution" in m for m in messages)
