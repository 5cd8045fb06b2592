"""``distribution_unittest``: a distribution checked against its SciPy counterpart."""

from __future__ import annotations

import unittest
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from chainer import variable
from chainer.testing import array as array_module
from chainer.testing import attr

#: What a test may list in ``test_targets``.
_TARGETS = frozenset(
    {
        "batch_shape",
        "cdf",
        "entropy",
        "event_shape",
        "icdf",
        "log_cdf",
        "log_prob",
        "log_survival",
        "mean",
        "prob",
        "sample",
        "stddev",
        "support",
        "survival",
        "variance",
    }
)

# Samples drawn for the moment comparison of ``sample``.
_N_SAMPLES = 100000


def _gpu_array(a: Any) -> Any:
    from chainer.backends import cuda

    return cuda.to_gpu(a)


class distribution_unittest(unittest.TestCase):
    """A base class of distribution tests: a :class:`~chainer.Distribution` against
    the SciPy distribution of the same law.

    A subclass is parameterized with ``shape`` (the batch shape), ``sample_shape``
    and ``is_variable`` (whether the parameters are given as Variables), and
    implements:

    - ``setUp_configure()``, which sets ``self.dist`` (the class, or any callable taking
      the parameters as keywords), ``self.scipy_dist`` (a ``scipy.stats``
      distribution), ``self.params`` and ``self.scipy_params`` (dicts of NumPy
      arrays), ``self.test_targets`` (the names of the checks to run), and where they
      differ from the defaults ``self.support`` (``'real'``), ``self.event_shape``
      (``()``), ``self.continuous`` (``True``: densities are compared with SciPy's
      ``pdf``, otherwise with its ``pmf``) and ``self.options`` (extra keyword
      arguments of ``self.dist``, ``{}``);
    - ``sample_for_test()``, points (NumPy, of shape ``sample_shape + shape +
      event_shape``) at which densities and distribution functions are compared.

    Each target ``X`` gets ``test_X_cpu`` and ``test_X_gpu`` (skipped without a GPU),
    which call ``check_X(is_gpu)`` (a subclass may override a check); the tests of a
    target not in ``test_targets`` are skipped. With
    ``scipy_onebyone = True`` SciPy is called once per batch element, with the
    parameters indexed by it (for SciPy distributions that do not broadcast).
    Values are compared with :func:`~chainer.testing.assert_allclose`; samples by
    the mean and standard deviation of 100,000 draws.
    """

    scipy_onebyone = False

    def setUp(self) -> None:
        self.support = "real"
        if not hasattr(self, "event_shape"):
            self.event_shape = ()
        self.continuous = True
        self.test_targets: set[str] = set()
        self.options: dict[str, Any] = {}
        self.setUp_configure()
        unknown = set(self.test_targets) - _TARGETS
        if unknown:
            raise ValueError(
                f"distribution_unittest: unknown test_targets {sorted(unknown)}; known are {sorted(_TARGETS)}"
            )
        if self.is_variable:
            self.params = {k: variable.Variable(v) for k, v in self.params.items()}

    def setUp_configure(self) -> None:
        """Set the distribution, its parameters and the checks to run (see above)."""
        raise NotImplementedError(f"{type(self).__name__} must implement setUp_configure()")

    def sample_for_test(self) -> Any:
        """Points at which densities and distribution functions are compared."""
        raise NotImplementedError(f"{type(self).__name__} must implement sample_for_test()")

    # -- the distributions under test ----------------------------------------------------------

    @property
    def cpu_dist(self) -> Any:
        """The distribution under test, made from ``params`` (and ``options``)."""
        return self.dist(**self.params, **self.options)

    @property
    def gpu_dist(self) -> Any:
        """The distribution under test with its parameters on the GPU."""
        params = {}
        for name, value in self.params.items():
            if isinstance(value, variable.Variable):
                params[name] = variable.Variable(_gpu_array(value.array))
            else:
                params[name] = _gpu_array(value)
        return self.dist(**params, **self.options)

    def _dist(self, is_gpu: bool) -> Any:
        return self.gpu_dist if is_gpu else self.cpu_dist

    def _at(self, is_gpu: bool, x: Any) -> Any:
        return _gpu_array(x) if is_gpu else x

    # -- SciPy, one batch element at a time ------------------------------------------------

    def scipy_onebyone_params_iter(self) -> Iterator[dict[str, Any]]:
        """The SciPy parameters of each batch element, in C order of ``shape``."""
        for index in numpy.ndindex(*self.shape):
            yield {k: v if numpy.isscalar(v) else numpy.asarray(v)[index] for k, v in self.scipy_params.items()}

    def _scipy_property(self, name: str) -> Any:
        """``scipy_dist.<name>(**scipy_params)``, of shape ``shape`` + the shape of one
        element's result."""
        method = getattr(self.scipy_dist, name)
        if not self.scipy_onebyone:
            return method(**self.scipy_params)
        results = [numpy.asarray(method(**one)) for one in self.scipy_onebyone_params_iter()]
        return numpy.stack(results).reshape(tuple(self.shape) + results[0].shape)

    def _scipy_at(self, method: Callable[..., Any], smp: Any) -> Any:
        """``method(smp, **scipy_params)`` for points ``smp`` of shape ``sample_shape +
        shape + event_shape``; a result of shape ``sample_shape + shape``."""
        if not self.scipy_onebyone:
            return method(smp, **self.scipy_params)
        n_sample = smp.ndim - len(self.shape) - len(self.event_shape)
        lead = (slice(None),) * n_sample
        out = numpy.empty(smp.shape[: n_sample + len(self.shape)])
        for index, one in zip(numpy.ndindex(*self.shape), self.scipy_onebyone_params_iter()):
            out[lead + index] = method(smp[lead + index], **one)
        return out

    # -- the checks ------------------------------------------------------------------------------

    def check_batch_shape(self, is_gpu: bool) -> None:
        self.assertEqual(self._dist(is_gpu).batch_shape, tuple(self.shape))

    def check_event_shape(self, is_gpu: bool) -> None:
        self.assertEqual(self._dist(is_gpu).event_shape, tuple(self.event_shape))

    def check_support(self, is_gpu: bool) -> None:
        self.assertEqual(self._dist(is_gpu).support, self.support)

    def _check_property(self, is_gpu: bool, name: str, scipy_name: str) -> None:
        actual = getattr(self._dist(is_gpu), name).array
        array_module.assert_allclose(actual, self._scipy_property(scipy_name))

    def check_entropy(self, is_gpu: bool) -> None:
        self._check_property(is_gpu, "entropy", "entropy")

    def check_mean(self, is_gpu: bool) -> None:
        self._check_property(is_gpu, "mean", "mean")

    def check_stddev(self, is_gpu: bool) -> None:
        self._check_property(is_gpu, "stddev", "std")

    def check_variance(self, is_gpu: bool) -> None:
        self._check_property(is_gpu, "variance", "var")

    def _check_function(self, is_gpu: bool, name: str, scipy_name: str, smp: Any = None) -> None:
        if smp is None:
            smp = self.sample_for_test()
        actual = getattr(self._dist(is_gpu), name)(self._at(is_gpu, smp)).array
        array_module.assert_allclose(actual, self._scipy_at(getattr(self.scipy_dist, scipy_name), smp))

    def check_cdf(self, is_gpu: bool) -> None:
        self._check_function(is_gpu, "cdf", "cdf")

    def check_log_cdf(self, is_gpu: bool) -> None:
        self._check_function(is_gpu, "log_cdf", "logcdf")

    def check_survival(self, is_gpu: bool) -> None:
        self._check_function(is_gpu, "survival_function", "sf")

    def check_log_survival(self, is_gpu: bool) -> None:
        self._check_function(is_gpu, "log_survival_function", "logsf")

    def check_prob(self, is_gpu: bool) -> None:
        self._check_function(is_gpu, "prob", "pdf" if self.continuous else "pmf")

    def check_log_prob(self, is_gpu: bool) -> None:
        self._check_function(is_gpu, "log_prob", "logpdf" if self.continuous else "logpmf")

    def check_icdf(self, is_gpu: bool) -> None:
        # Probabilities strictly inside (0, 1), where every quantile is finite.
        shape = tuple(self.sample_shape) + tuple(self.shape)
        smp = numpy.random.uniform(1e-5, 1 - 1e-5, shape).astype(numpy.float32)
        self._check_function(is_gpu, "icdf", "ppf", smp)

    def check_sample(self, is_gpu: bool) -> None:
        sample_shape = (_N_SAMPLES,) + tuple(self.sample_shape)
        actual = self._dist(is_gpu).sample(sample_shape=sample_shape).array
        actual = numpy.asarray(actual.get() if is_gpu else actual)
        if self.scipy_onebyone:
            event_shape = tuple(self.cpu_dist.event_shape)
            expected = numpy.empty(sample_shape + tuple(self.shape) + event_shape)
            lead = (slice(None),) * len(sample_shape)
            for index, one in zip(numpy.ndindex(*self.shape), self.scipy_onebyone_params_iter()):
                expected[lead + index] = self.scipy_dist.rvs(size=sample_shape, **one).reshape(
                    sample_shape + event_shape
                )
        else:
            expected = self.scipy_dist.rvs(size=sample_shape + tuple(self.shape), **self.scipy_params)
        array_module.assert_allclose(actual.mean(axis=0), expected.mean(axis=0), atol=3e-2, rtol=3e-2)
        array_module.assert_allclose(actual.std(axis=0), expected.std(axis=0), atol=3e-2, rtol=3e-2)

    def _run(self, target: str, is_gpu: bool) -> None:
        if target not in self.test_targets:
            raise unittest.SkipTest(f"{target!r} is not in test_targets")
        getattr(self, f"check_{target}")(is_gpu)


def _add_tests(target: str) -> None:
    def test_cpu(self: distribution_unittest) -> None:
        self._run(target, False)

    @attr.gpu
    def test_gpu(self: distribution_unittest) -> None:
        self._run(target, True)

    for method, suffix in ((test_cpu, "cpu"), (test_gpu, "gpu")):
        method.__name__ = method.__qualname__ = f"test_{target}_{suffix}"
        method.__doc__ = f"The {target} of the distribution agrees with SciPy ({suffix.upper()})."
        setattr(distribution_unittest, method.__name__, method)


# One pair of tests per target, written out once rather than thirty times.
for _target in sorted(_TARGETS):
    _add_tests(_target)
del _target

__all__ = ["distribution_unittest"]
