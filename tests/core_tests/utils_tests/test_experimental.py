"""chainer.utils.experimental warns once per API."""

import importlib

import pytest

import chainer
from chainer import utils


def test_warns_once_per_api():
    with pytest.warns(FutureWarning, match=r"^test_api_a is experimental\. The interface can change in the future\.$"):
        utils.experimental("test_api_a")
    utils.experimental("test_api_a")  # silent: pytest turns warnings into errors
    with pytest.warns(FutureWarning, match="test_api_b is experimental"):
        utils.experimental("test_api_b")


def test_the_warning_points_at_the_caller_of_the_api():
    def experimental_function():
        utils.experimental("test_api_location")

    with pytest.warns(FutureWarning) as record:
        experimental_function()
    assert record[0].filename == __file__


def test_disabled_by_the_global_flag(monkeypatch):
    monkeypatch.setattr(chainer, "disable_experimental_feature_warning", True)
    utils.experimental("test_api_disabled")
    monkeypatch.setattr(chainer, "disable_experimental_feature_warning", False)
    with pytest.warns(FutureWarning):
        utils.experimental("test_api_disabled")


def test_function_and_module_are_both_reachable():
    assert callable(chainer.utils.experimental)
    module = importlib.import_module("chainer.utils.experimental")
    assert module.experimental is chainer.utils.experimental
    assert chainer.disable_experimental_feature_warning is False


def test_api_name_must_be_a_string():
    with pytest.raises(TypeError, match="api_name must be a str"):
        utils.experimental(3)
