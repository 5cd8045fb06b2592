"""BackendConfig and inject_backend_tests: one test class per backend configuration."""

import unittest

import numpy as np
import pytest

import chainer
from chainer import testing


def test_backend_config_defaults_to_the_cpu_and_sets_the_configuration():
    config = testing.BackendConfig({})
    assert config.device == chainer.backend.CpuDevice() and config.xp is np
    assert config.use_cuda is False and config.use_ideep == "never"
    # Every key is in the name, booleans in lower case, as in 7.8.1's test names.
    assert config.get_func_str() == (
        "use_chainerx_false__chainerx_device_None__use_cuda_false__cuda_device_None__use_cudnn_never__"
        "cudnn_deterministic_false__autotune_false__cudnn_fast_batch_normalization_false__use_ideep_never"
    )
    x = np.arange(3.0)
    assert config.get_array(x) is x
    with testing.BackendConfig({"use_cudnn": "always", "autotune": True}):
        assert chainer.config.use_cudnn == "always" and chainer.config.autotune is True
    assert chainer.config.use_cudnn != "always" or chainer.global_config.use_cudnn == "always"


def test_backend_config_refuses_unknown_keys():
    with pytest.raises(ValueError, match="unknown keys"):
        testing.BackendConfig({"use_tpu": True})


def test_gpu_configurations_carry_marks_and_names():
    import pytest as _pytest

    config = testing.BackendConfig({"use_cuda": True, "use_cudnn": "always", "cuda_device": 1})
    names = {mark.name for mark in config.get_pytest_marks()}
    assert names == {"gpu", "cudnn", "multi_gpu"}
    assert "__use_cuda_true__cuda_device_1__use_cudnn_always__" in config.get_func_str()
    assert testing.BackendConfig({"use_cuda": True}).cuda_device == 0
    assert all(isinstance(m, _pytest.MarkDecorator) for m in config.get_pytest_marks())


def test_each_configuration_gets_its_class_and_unavailable_ones_skip(scratch, run):
    seen = []

    class Case(unittest.TestCase):
        def test_a(self, backend_config):
            seen.append(backend_config.get_func_str())

        def test_b(self, backend_config):
            seen.append("b")

    generated = scratch.expand(testing.inject_backend_tests(None, [{}, {"use_chainerx": True}]), Case)
    assert len(generated) == 2
    results = {name: run(klass, "test_a") for name, klass in generated.items()}
    numpy_name = next(name for name in generated if "use_chainerx_false" in name)
    assert results[numpy_name].wasSuccessful() and not results[numpy_name].skipped
    (other,) = set(generated) - {numpy_name}
    assert len(results[other].skipped) == 1 and "ChainerX" in results[other].skipped[0][1]
    assert seen == [testing.BackendConfig({}).get_func_str()]
    marks = {m.name for m in getattr(generated[other].test_a, "pytestmark", [])}
    assert "chainerx" in marks


def test_only_the_named_methods_are_run_each_with_a_configuration(scratch, run):
    class Case(unittest.TestCase):
        def test_with(self, backend_config):
            assert backend_config.xp is np

        def test_without(self):
            pass

    (klass,) = scratch.expand(testing.inject_backend_tests(["test_with"], [{}]), Case).values()
    assert run(klass, "test_with").wasSuccessful()
    # As in Chainer 7.8.1, naming the methods leaves the class's other tests out.
    assert unittest.defaultTestLoader.getTestCaseNames(klass) == ["test_with"]
    with pytest.raises(ValueError, match="no method 'test_missing'"):
        scratch.expand(testing.inject_backend_tests(["test_missing"], [{}]), type("Other", (unittest.TestCase,), {}))


def test_invalid_arguments():
    with pytest.raises(TypeError, match="list of names or None"):
        testing.inject_backend_tests("test_a", [{}])
    with pytest.raises(ValueError, match="at least one configuration"):
        testing.inject_backend_tests(None, [])
    with pytest.raises(ValueError, match="unknown keys"):
        testing.inject_backend_tests(None, [{"use_gpu": True}])
