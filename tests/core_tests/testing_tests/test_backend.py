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


def test_named_methods_run_with_each_configuration_and_the_others_without(scratch, run):
    class Case(unittest.TestCase):
        def test_with(self, backend_config):
            assert backend_config.xp is np

        def test_without(self):
            pass

    generated = scratch.expand(testing.inject_backend_tests(["test_with"], [{}]), Case)
    configured = generated.pop(f"Case_{testing.BackendConfig({}).get_func_str()}")
    assert run(configured, "test_with").wasSuccessful()
    assert unittest.defaultTestLoader.getTestCaseNames(configured) == ["test_with"]
    # The other methods stay in a class of the decorated class's name: the name the
    # test module binds to the decorator's result, so as in Chainer 7.8.1 they are not
    # collected unless another decorator is stacked above.
    (rest,) = generated.values()
    assert rest.__name__ == "Case"
    assert unittest.defaultTestLoader.getTestCaseNames(rest) == ["test_without"]
    with pytest.raises(ValueError, match="no method 'test_missing'"):
        scratch.expand(testing.inject_backend_tests(["test_missing"], [{}]), type("Other", (unittest.TestCase,), {}))


def test_a_parameterization_above_named_methods_collects_the_other_methods(scratch):
    class Case(unittest.TestCase):
        def test_with(self, backend_config):
            pass

        def test_without(self):
            pass

    def decorate(cls):
        return testing.parameterize({"p": 1}, {"p": 2})(testing.inject_backend_tests(["test_with"], [{}])(cls))

    generated = scratch.expand(decorate, Case)
    names = sorted(unittest.defaultTestLoader.getTestCaseNames(k)[0] for k in generated.values())
    # Two parameterizations of the configured class and two of the rest.
    assert names == ["test_with", "test_with", "test_without", "test_without"]


def test_invalid_arguments():
    with pytest.raises(TypeError, match="list of names or None"):
        testing.inject_backend_tests("test_a", [{}])
    with pytest.raises(ValueError, match="at least one configuration"):
        testing.inject_backend_tests(None, [])
    with pytest.raises(ValueError, match="unknown keys"):
        testing.inject_backend_tests(None, [{"use_gpu": True}])
