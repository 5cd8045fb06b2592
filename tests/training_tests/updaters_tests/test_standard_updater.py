"""StandardUpdater: one SGD step checked against NumPy, epochs, devices, converters,
serialization."""

import importlib.util

import numpy
import pytest
from _training_testlib import Regression, regression_data, regression_grads, save_and_load

import chainer
from chainer import backend, dataset, training
from chainer.training import updaters


def make(batch_size=4, shuffle=False, lr=0.1, **kwargs):
    x, t = regression_data()
    model = Regression()
    optimizer = chainer.optimizers.SGD(lr=lr).setup(model)
    it = chainer.iterators.SerialIterator(chainer.datasets.TupleDataset(x, t), batch_size, shuffle=shuffle)
    return updaters.StandardUpdater(it, optimizer, **kwargs), model, x, t


def test_one_update_is_one_sgd_step():
    updater, model, x, t = make(device=-1)
    W0, b0 = model.W.array.copy(), model.b.array.copy()
    updater.update()
    gW, gb = regression_grads(W0.astype(numpy.float64), b0, x[:4].astype(numpy.float64), t[:4])
    numpy.testing.assert_allclose(model.W.array, W0 - 0.1 * gW, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(model.b.array, b0 - 0.1 * gb, rtol=1e-5, atol=1e-6)
    assert updater.iteration == 1


def test_training_is_exported_at_the_top():
    assert training.StandardUpdater is updaters.StandardUpdater
    assert training.ParallelUpdater is updaters.ParallelUpdater
    assert training.MultiprocessParallelUpdater is updaters.MultiprocessParallelUpdater


def test_epoch_counters_follow_the_main_iterator():
    updater, *_ = make(batch_size=5)  # 12 examples: epochs end in the batches of iterations 3, 5
    assert updater.previous_epoch_detail is None
    details = []
    for _ in range(5):
        updater.update()
        details.append((updater.epoch, updater.epoch_detail, updater.previous_epoch_detail, updater.is_new_epoch))
    assert details == [
        (0, 5 / 12, 0.0, False),
        (0, 10 / 12, 5 / 12, False),
        (1, 1 + 3 / 12, 10 / 12, True),
        (1, 1 + 8 / 12, 1 + 3 / 12, False),
        (2, 2 + 1 / 12, 1 + 8 / 12, True),
    ]


@pytest.mark.parametrize("auto", [True, False])
def test_auto_new_epoch(auto):
    updater, *_ = make(batch_size=5, auto_new_epoch=auto)
    optimizer = updater.get_optimizer("main")
    assert optimizer.use_auto_new_epoch is auto
    for _ in range(5):
        updater.update()
    assert optimizer.epoch == (2 if auto else 0)
    if auto:
        with pytest.raises(RuntimeError, match="do not call it yourself"):
            optimizer.new_epoch()


@pytest.mark.parametrize("device", [None, -1, "@numpy", backend.CpuDevice()])
def test_cpu_devices(device):
    updater, model, *_ = make(device=device)
    expected = None if device is None else backend.CpuDevice()
    assert updater.device == expected
    assert updater.input_device == expected
    updater.update()
    assert isinstance(model.W.array, numpy.ndarray)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")
def test_gpu_device_without_cupy_is_a_clear_error():
    with pytest.raises(RuntimeError, match="CuPy is not installed"):
        make(device=0)


def test_converters_receive_devices_or_integers():
    seen = []

    def plain(batch, device=None):
        seen.append(("plain", device))
        return dataset.concat_examples(batch)

    @dataset.converter()
    def decorated(batch, device=None):
        seen.append(("decorated", device))
        return dataset.concat_examples(batch, device)

    make(converter=plain, device=-1)[0].update()
    make(converter=decorated, device="@numpy")[0].update()
    make(converter=plain)[0].update()
    assert seen[0] == ("plain", -1)
    assert seen[1][0] == "decorated" and isinstance(seen[1][1], backend.CpuDevice)
    assert seen[2] == ("plain", None)


def test_input_device_keyword():
    updater, *_ = make(input_device="@numpy")
    assert updater.device is None and updater.input_device == backend.CpuDevice()


def test_dict_and_single_array_batches():
    calls = []

    def as_dict(batch, device=None):
        x, t = dataset.concat_examples(batch)
        return {"x": x, "t": t}

    def loss_func(x, t):
        calls.append((x.shape, t.shape))
        return chainer.functions.sum(x) * 0

    updater, *_ = make(converter=as_dict, loss_func=loss_func)
    updater.update()
    single = []
    updater2, *_ = make(
        converter=lambda b, d=None: numpy.stack([e[0] for e in b]),
        loss_func=lambda x: (single.append(x.shape), chainer.functions.sum(x) * 0)[1],
    )
    updater2.update()
    assert calls == [((4, 3), (4, 2))] and single == [(4, 3)]


def test_loss_scale_gives_the_same_step():
    plain, model_a, *_ = make()
    scaled, model_b, *_ = make(loss_scale=128.0)
    plain.update()
    scaled.update()
    numpy.testing.assert_allclose(model_b.W.array, model_a.W.array, rtol=1e-6)


def test_several_iterators_and_optimizers():
    updater, model, *_ = make()
    other = chainer.optimizers.SGD().setup(Regression(seed=3))
    it2 = chainer.iterators.SerialIterator([1, 2, 3], 1)
    multi = updaters.StandardUpdater(
        {"main": updater.get_iterator("main"), "aux": it2}, {"main": updater.get_optimizer("main"), "other": other}
    )
    assert multi.get_iterator("aux") is it2
    assert multi.get_all_optimizers() == {"main": updater.get_optimizer("main"), "other": other}
    with pytest.raises(KeyError, match="no optimizer named 'nope'"):
        multi.get_optimizer("nope")
    with pytest.raises(KeyError, match="no iterator named 'nope'"):
        multi.get_iterator("nope")


def test_optimizers_named_freely_for_a_custom_update_core():
    # The DCGAN tutorial: StandardUpdater(..., optimizer={'gen': opt_gen, 'dis': opt_dis})
    # in a subclass whose update_core asks for each by name.
    updater, model, x, t = make()
    it = updater.get_iterator("main")
    gen = chainer.optimizers.SGD(lr=0.1).setup(Regression(seed=1))
    dis = chainer.optimizers.SGD(lr=0.1).setup(Regression(seed=2))

    class TwoModelUpdater(updaters.StandardUpdater):
        def update_core(self):
            x, t = self.converter(self.get_iterator("main").next(), self.device)
            for name in ("dis", "gen"):
                self.get_optimizer(name).update(self.get_optimizer(name).target, x, t)

    two = TwoModelUpdater(it, {"gen": gen, "dis": dis}, device="@numpy")
    W_gen, W_dis = gen.target.W.array.copy(), dis.target.W.array.copy()
    two.update()
    assert two.iteration == 1
    assert not numpy.array_equal(gen.target.W.array, W_gen)
    assert not numpy.array_equal(dis.target.W.array, W_dis)
    # Without an override, the standard step needs the 'main' optimizer and says so.
    plain = updaters.StandardUpdater(it, {"gen": gen, "dis": dis})
    with pytest.raises(KeyError, match=r"no optimizer named 'main' \(it has \['dis', 'gen'\]\)"):
        plain.update()


def test_serialize_resumes_identically():
    a, model_a, *_ = make(batch_size=5, shuffle=True)
    a.update()
    a.update()
    b, model_b, *_ = make(batch_size=5, shuffle=True)
    save_and_load(a, b)
    assert b.iteration == 2
    numpy.testing.assert_array_equal(model_b.W.array, model_a.W.array)
    state = numpy.random.get_state()
    a.update()
    a.update()
    numpy.random.set_state(state)
    b.update()
    b.update()
    numpy.testing.assert_array_equal(model_b.W.array, model_a.W.array)
    assert b.epoch_detail == a.epoch_detail


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"converter": 3}, TypeError, "converter must be callable"),
        ({"loss_func": 3}, TypeError, "loss_func must be callable"),
        ({"bogus": 1}, TypeError, "unexpected keyword"),
        ({"device": "@nothing"}, ValueError, "nothing"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        make(**kwargs)


def test_bad_iterators_and_optimizers():
    updater, model, *_ = make()
    it, opt = updater.get_iterator("main"), updater.get_optimizer("main")
    with pytest.raises(ValueError, match="'main' entry"):
        updaters.StandardUpdater({"train": it}, opt)
    with pytest.raises(TypeError, match="must be a chainer.Optimizer"):
        updaters.StandardUpdater(it, object())
    with pytest.raises(ValueError, match="call optimizer.setup"):
        updaters.StandardUpdater(it, chainer.optimizers.SGD())
    with pytest.raises(TypeError, match="must be a chainer.dataset.Iterator"):
        updaters.StandardUpdater(42, opt)
