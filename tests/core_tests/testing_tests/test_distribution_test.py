"""distribution_unittest: a distribution checked against SciPy, target by target."""

import unittest

import numpy as np
import pytest

import chainer
import chainer.distributions as D
from chainer import testing

stats = pytest.importorskip("scipy.stats")

_ALL = ("batch_shape", "cdf", "entropy", "event_shape", "icdf", "log_cdf", "log_prob", "log_survival")
_ALL += ("mean", "prob", "sample", "stddev", "support", "survival", "variance")


def _normal_case(shape=(2, 3), sample_shape=(4,), is_variable=False, onebyone=False, reference=None, targets=_ALL):
    class Case(testing.distribution_unittest):
        scipy_onebyone = onebyone

        def setUp_configure(self):
            self.dist = D.Normal
            self.scipy_dist = reference or stats.norm
            self.test_targets = set(targets)
            loc = np.random.uniform(-1, 1, self.shape).astype(np.float32)
            scale = np.exp(np.random.uniform(-1, 1, self.shape)).astype(np.float32)
            self.params = {"loc": loc, "scale": scale}
            self.scipy_params = {"loc": loc, "scale": scale}

        def sample_for_test(self):
            return np.random.normal(size=self.sample_shape + self.shape).astype(np.float32)

    Case.shape, Case.sample_shape, Case.is_variable = shape, sample_shape, is_variable
    return Case


def _run(case, name):
    result = unittest.TestResult()
    case(name).run(result)
    return result


@pytest.mark.parametrize("onebyone", [False, True])
@pytest.mark.parametrize("shape", [(2, 3), ()])
@pytest.mark.parametrize("target", _ALL)
def test_a_correct_distribution_passes_every_target(target, shape, onebyone):
    case = _normal_case(shape=shape, onebyone=onebyone)
    result = _run(case, f"test_{target}_cpu")
    assert result.wasSuccessful() and not result.skipped, result.failures + result.errors


@pytest.mark.parametrize("target", ["log_prob", "prob", "cdf", "entropy", "stddev", "variance", "sample"])
def test_a_wrong_law_fails(target):
    # Laplace with the same loc and scale is a different law from Normal (of the same mean).
    case = _normal_case(reference=stats.laplace)
    result = _run(case, f"test_{target}_cpu")
    assert len(result.failures) == 1


def test_targets_not_listed_are_skipped_and_unknown_ones_refused():
    case = _normal_case(targets=("mean",))
    assert len(_run(case, "test_log_prob_cpu").skipped) == 1
    assert _run(case, "test_mean_cpu").wasSuccessful()
    bad = _normal_case(targets=("mean", "median"))
    result = _run(bad, "test_mean_cpu")
    assert len(result.errors) == 1 and "median" in result.errors[0][1]


def test_is_variable_wraps_the_parameters_and_options_reach_the_distribution():
    seen = []

    class Case(_normal_case(is_variable=True)):
        def setUp_configure(self):
            super().setUp_configure()
            self.dist = lambda **kw: seen.append(kw) or D.Normal(kw["loc"], kw["scale"])
            self.options = {"extra": 1}

    case = Case("test_mean_cpu")
    case.setUp()
    assert all(isinstance(v, chainer.Variable) for v in case.params.values())
    assert isinstance(case.cpu_dist, D.Normal)
    assert seen[-1]["extra"] == 1 and "extra" not in case.params


def test_one_by_one_handles_event_axes():
    class Case(testing.distribution_unittest):
        scipy_onebyone = True
        shape, sample_shape, is_variable = (2,), (3,), False
        event_shape = (3,)

        def setUp_configure(self):
            self.dist = D.MultivariateNormal
            self.scipy_dist = stats.multivariate_normal
            self.test_targets = {"batch_shape", "event_shape", "log_prob", "entropy", "sample"}
            loc = np.random.uniform(-1, 1, (2, 3))
            a = np.random.normal(size=(2, 3, 3))
            cov = a @ a.transpose(0, 2, 1) + np.eye(3)
            self.params = {"loc": loc, "scale_tril": np.linalg.cholesky(cov)}
            self.scipy_params = {"mean": loc, "cov": cov}

        def sample_for_test(self):
            return np.random.normal(size=(3, 2, 3))

    for target in ("batch_shape", "event_shape", "log_prob", "entropy", "sample"):
        result = _run(Case, f"test_{target}_cpu")
        assert result.wasSuccessful() and not result.skipped, (target, result.failures + result.errors)
