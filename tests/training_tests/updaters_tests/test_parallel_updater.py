"""ParallelUpdater on CPU devices (sequential), checked against NumPy gradients."""

import numpy
import pytest
from _training_testlib import Regression, regression_data, regression_grads, save_and_load

import chainer
from chainer import training
from chainer.training import updaters


def make(devices=None, models=None, batch_size=4):
    x, t = regression_data()
    model = Regression()
    optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
    it = chainer.iterators.SerialIterator(chainer.datasets.TupleDataset(x, t), batch_size, shuffle=False)
    if models is not None:
        models = {"main": model, **models}
    updater = updaters.ParallelUpdater(it, optimizer, models=models, devices=devices)
    return updater, model, x, t


def test_gradients_of_the_parts_are_summed():
    updater, model, x, t = make(devices={"main": -1, "second": "@numpy"})
    W0, b0 = model.W.array.astype(numpy.float64), model.b.array.astype(numpy.float64)
    updater.update()
    # Example i of the batch goes to model i % 2; each part's loss is a mean over the part.
    gW0, gb0 = regression_grads(W0, b0, x[0:4:2], t[0:4:2])
    gW1, gb1 = regression_grads(W0, b0, x[1:4:2], t[1:4:2])
    numpy.testing.assert_allclose(model.W.array, W0 - 0.1 * (gW0 + gW1), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(model.b.array, b0 - 0.1 * (gb0 + gb1), rtol=1e-5, atol=1e-6)
    second = updater._models["second"]
    assert second is not model
    numpy.testing.assert_array_equal(second.W.array, model.W.array)


def test_reports_of_the_copies_are_named_after_them(tmp_path):
    updater, *_ = make(devices={"main": -1, "second": -1})
    trainer = training.Trainer(updater, (1, "iteration"), out=str(tmp_path))
    seen = {}
    trainer.extend(lambda t: seen.update(t.observation), name="grab")
    trainer.run()
    assert {"main/loss", "second/loss"} <= set(seen)


def test_given_models():
    extra = Regression(seed=5)
    updater, model, *_ = make(models={"second": extra})
    assert updater._models["second"] is extra
    updater.update()
    numpy.testing.assert_array_equal(extra.W.array, model.W.array)


def test_serialize_synchronizes_the_copies():
    a, model_a, *_ = make(devices={"main": -1, "second": -1})
    a.update()
    b, model_b, *_ = make(devices={"main": -1, "second": -1})
    save_and_load(a, b)
    numpy.testing.assert_array_equal(b._models["second"].W.array, model_a.W.array)


def test_errors():
    with pytest.raises(ValueError, match="give devices"):
        make()
    with pytest.raises(KeyError, match="'main' entry"):
        make(devices={"first": -1})
    updater, *_ = make(devices={"main": -1, "a": -1, "b": -1, "c": -1, "d": -1}, batch_size=3)
    with pytest.raises(ValueError, match="cannot be split over 5 models"):
        updater.update()
