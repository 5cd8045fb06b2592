"""VariableStatisticsPlot: statistics against NumPy, the PNG, thinning."""

import os

import numpy
import pytest
from _training_testlib import FakeTrainer, Regression
from PIL import Image

import chainer
from chainer.training import extensions


class Trainer(FakeTrainer):
    def __init__(self, out):
        super().__init__()
        self.out = str(out)
        os.makedirs(self.out, exist_ok=True)


def test_statistics_and_png(tmp_path):
    model = Regression()
    model.W.grad = numpy.ones_like(model.W.array)
    ext = extensions.VariableStatisticsPlot(model, trigger=(2, "iteration"))
    trainer = Trainer(tmp_path)
    for _ in range(2):
        trainer.updater.update()
        ext(trainer)
    values = numpy.concatenate([model.W.array.ravel(), model.b.array.ravel()]).astype(numpy.float64)
    row = ext._samples[-1]
    assert row[0] == 2
    sigmas = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100)
    expected_data = [values.mean(), values.std(), *numpy.percentile(values, sigmas)]
    numpy.testing.assert_allclose(row[1:12], expected_data, rtol=1e-6)
    # b has no gradient: the grad statistics are over W's only.
    numpy.testing.assert_allclose(row[12:14], [1.0, 0.0])
    with Image.open(tmp_path / "statistics.png") as image:
        assert image.format == "PNG"


def test_variables_and_options(tmp_path):
    v = chainer.Variable(numpy.arange(5, dtype=numpy.float32))
    ext = extensions.VariableStatisticsPlot(
        [v], report_grad=False, percentile_sigmas=(), trigger=(1, "iteration"), file_name="v.png", figsize=(3, 2)
    )
    trainer = Trainer(tmp_path)
    trainer.updater.update()
    ext(trainer)
    assert ext._samples == [[1.0, 2.0, numpy.std(numpy.arange(5))]]
    assert (tmp_path / "v.png").exists()


def test_thinning_keeps_the_whole_history(tmp_path):
    v = chainer.Variable(numpy.zeros(2, numpy.float32))
    ext = extensions.VariableStatisticsPlot(v, max_sample_size=4, trigger=(100, "iteration"))
    trainer = Trainer(tmp_path)
    for _ in range(9):
        trainer.updater.update()
        ext(trainer)
    iterations = [row[0] for row in ext._samples]
    assert len(iterations) <= 4 and iterations[-1] == 9 and iterations == sorted(iterations)


def test_save_plot_using_module(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    v = chainer.Variable(numpy.arange(4, dtype=numpy.float32))
    ext = extensions.VariableStatisticsPlot(v, trigger=(100, "iteration"))
    trainer = Trainer(tmp_path)
    trainer.updater.update()
    ext(trainer)
    ext.save_plot_using_module(str(tmp_path / "manual.png"), plt)
    with Image.open(tmp_path / "manual.png") as image:
        assert image.format == "PNG"


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"report_data": False, "report_grad": False}, ValueError, "cannot both be False"),
        ({"percentile_sigmas": (150,)}, ValueError, "within"),
        ({"max_sample_size": 1}, ValueError, "max_sample_size"),
        ({"plot_mean": False, "plot_std": False, "percentile_sigmas": ()}, ValueError, "nothing to plot"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        extensions.VariableStatisticsPlot(chainer.Variable(numpy.zeros(2, numpy.float32)), **kwargs)


def test_bad_targets():
    with pytest.raises(TypeError, match="Variables or Links"):
        extensions.VariableStatisticsPlot(numpy.zeros(2))


def test_statistician_against_numpy():
    from chainer.training.extensions.variable_statistics_plot import Statistician

    x = numpy.random.default_rng(0).standard_normal((4, 6)).astype(numpy.float32)
    stat = Statistician(True, True, (0, 25, 100))(x, axis=0, dtype=numpy.float64)
    numpy.testing.assert_allclose(stat["mean"], x.astype(numpy.float64).mean(axis=0))
    numpy.testing.assert_allclose(stat["std"], x.astype(numpy.float64).std(axis=0))
    assert stat["percentile"].shape == (3, 6) and stat["percentile"].dtype == numpy.float64
    numpy.testing.assert_allclose(stat["percentile"][0], x.min(axis=0))
    numpy.testing.assert_allclose(stat["percentile"][2], x.max(axis=0))
    assert set(Statistician(False, True, ())(x, axis=None)) == {"std"}


def test_reservoir_keeps_a_uniform_sample_in_index_order():
    from chainer.training.extensions.variable_statistics_plot import Reservoir

    reservoir = Reservoir(size=3, data_shape=(2,))
    for i in range(2):
        reservoir.add(numpy.full(2, i))
    indices, data = reservoir.get_data()
    assert indices.tolist() == [0, 1] and data[:, 0].tolist() == [0, 1]
    # Over many streams of 10 arrays, each array is kept about 3/10 of the time.
    kept = numpy.zeros(10)
    for seed in range(400):
        reservoir = Reservoir(size=3, data_shape=(1,), seed=seed)
        for i in range(10):
            reservoir.add(numpy.array([i]), idx=100 + i)
        indices, data = reservoir.get_data()
        assert indices.tolist() == sorted(indices.tolist()) and (data[:, 0] + 100 == indices).all()
        kept[indices - 100] += 1
    numpy.testing.assert_allclose(kept / 400, 0.3, atol=0.08)
