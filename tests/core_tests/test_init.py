"""Helpers at the top of the chainer package."""

import io

import numpy as np
import pytest

import chainer
from chainer import _runtime_info


def test_array_types():
    assert np.ndarray in chainer.get_array_types()
    assert chainer.get_cpu_array_types() == (np.ndarray,)  # (iDeep is not installed here)
    assert chainer.is_arrays_compatible([np.ones(2), None, np.zeros((3, 1))])
    assert chainer.is_arrays_compatible([])


def test_debug_mode_is_a_deprecated_context():
    with pytest.warns(DeprecationWarning, match="using_config"):
        mode = chainer.DebugMode(True)
    with mode:
        assert chainer.is_debug()
    assert not chainer.is_debug()


def test_function_hooks_and_cudnn_without_cupy():
    assert chainer.get_function_hooks() == {}
    with chainer.function_hooks.TimerHook() as hook:
        assert chainer.get_function_hooks() == {hook.name: hook}
    with chainer.using_config("use_cudnn", "always"):
        assert chainer.should_use_cudnn(">=auto") is False  # no cuDNN in CuPy 14
    assert chainer.get_compute_mode() is None


def test_runtime_info_prints_what_str_gives():
    info = _runtime_info._get_runtime_info()
    assert chainer.__version__ in str(info)
    out = io.StringIO()
    chainer.print_runtime_info(out)
    assert out.getvalue() == str(_runtime_info._get_runtime_info())


def test_warning_and_type_modules():
    assert issubclass(chainer.warnings.PerformanceWarning, RuntimeWarning)
    assert isinstance(chainer.initializers.One(), chainer.types.AbstractInitializer)
