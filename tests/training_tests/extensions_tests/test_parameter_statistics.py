"""ParameterStatistics: keys and values checked against NumPy."""

import numpy
import pytest
from _training_testlib import FakeTrainer, Regression

import chainer
from chainer.training import extensions


def call(ext, trainer):
    observation = {}
    with chainer.Reporter().scope(observation):
        ext(trainer)
    return observation


def test_default_statistics():
    model = Regression()
    model.W.grad = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    ext = extensions.ParameterStatistics(model, trigger=(1, "iteration"))
    trainer = FakeTrainer()
    trainer.updater.update()
    obs = call(ext, trainer)
    W = model.W.array.ravel().astype(numpy.float64)
    assert obs["None/W/data/mean"] == pytest.approx(W.mean())
    assert obs["None/W/data/std"] == pytest.approx(W.std())
    assert obs["None/W/data/min"] == pytest.approx(W.min())
    assert obs["None/W/data/max"] == pytest.approx(W.max())
    assert obs["None/W/grad/zeros"] == 1
    sigmas = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)
    for i, p in enumerate(sigmas):
        assert obs[f"None/W/data/percentile/{i}"] == pytest.approx(numpy.percentile(W, p), rel=1e-5)
    # b has no gradient yet: it counts as NaN (what Chainer 7 held in a gradient not
    # computed yet), so its statistics are NaN, and "zeros" counts none.
    b_grad = {k: v for k, v in obs.items() if k.startswith("None/b/grad/")}
    assert b_grad["None/b/grad/zeros"] == 0
    assert all(numpy.isnan(v) for k, v in b_grad.items() if not k.endswith("zeros"))
    assert len(b_grad) == 5 + len(sigmas)
    assert "None/b/data/mean" in obs


def test_prefix_custom_statistics_and_interval():
    model = Regression()
    ext = extensions.ParameterStatistics(
        [model], statistics={"absmax": lambda x: numpy.abs(x).max()}, report_grads=False, prefix="stats",
        trigger=(2, "iteration"),
    )  # fmt: skip
    ext.register_statistics("l2", lambda x: numpy.sqrt((x * x).sum()))
    trainer = FakeTrainer()
    trainer.updater.update()
    assert call(ext, trainer) == {}
    model.W.array[...] *= 2
    trainer.updater.update()
    obs = call(ext, trainer)
    assert set(obs) == {
        "stats/None/W/data/absmax",
        "stats/None/b/data/absmax",
        "stats/None/W/data/l2",
        "stats/None/b/data/l2",
    }
    # The mean over the interval of the values before and after doubling.
    doubled = numpy.sqrt((model.W.array.astype(numpy.float64) ** 2).sum())
    assert obs["stats/None/W/data/l2"] == pytest.approx((doubled / 2 + doubled) / 2, rel=1e-6)


def test_skip_nan_params():
    model = Regression()
    model.W.array[0, 0] = numpy.nan
    ext = extensions.ParameterStatistics(model, trigger=(1, "iteration"), skip_nan_params=True, report_grads=False)
    trainer = FakeTrainer()
    trainer.updater.update()
    obs = call(ext, trainer)
    assert numpy.isnan(obs["None/W/data/mean"])
    assert not numpy.isnan(obs["None/b/data/mean"])


def test_bad_statistics():
    with pytest.raises(ValueError, match="'default', a dict or None"):
        extensions.ParameterStatistics(Regression(), statistics="all")
    with pytest.raises(TypeError, match="not callable"):
        extensions.ParameterStatistics(Regression(), statistics={"x": 1})


def test_skip_nan_params_gives_one_nan_per_statistic():
    model = Regression()
    ext = extensions.ParameterStatistics(model, trigger=(1, "iteration"), skip_nan_params=True, report_params=False)
    trainer = FakeTrainer()
    trainer.updater.update()
    obs = call(ext, trainer)
    # No gradient yet: W and b each get one NaN per statistic (no percentile/0.. keys).
    assert len(obs) == 2 * 6 and all(numpy.isnan(v) for v in obs.values())
