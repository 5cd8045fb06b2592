"""The trainer on a GPU (skipped without CuPy and a CUDA device)."""

import numpy
import pytest
from _training_testlib import MLP, Classifier, classification_data

import chainer
from chainer import serializers, training
from chainer.testing import attr
from chainer.training import extensions, updaters


def make(tmp_path, device, name, shuffle=False):
    numpy.random.seed(0)
    model = Classifier(MLP())
    model(numpy.zeros((1, 5), numpy.float32), numpy.zeros(1, numpy.int32))  # initialize on the CPU
    optimizer = chainer.optimizers.MomentumSGD(lr=0.1).setup(model)
    it = chainer.iterators.SerialIterator(classification_data(n=40), 8, shuffle=shuffle)
    updater = updaters.StandardUpdater(it, optimizer, device=device)
    trainer = training.Trainer(updater, (2, "epoch"), out=str(tmp_path / name))
    test_it = chainer.iterators.SerialIterator(classification_data(n=16, seed=1), 8, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(test_it, model, device=device))
    trainer.extend(extensions.LogReport())
    return trainer, model


@attr.gpu
@pytest.mark.parametrize("device", [0, "@cupy:0"])
def test_training_on_gpu_matches_cpu(tmp_path, device):
    import cupy

    gpu_trainer, gpu_model = make(tmp_path, device, "gpu")
    cpu_trainer, cpu_model = make(tmp_path, -1, "cpu")
    assert isinstance(gpu_model.predictor.l1.W.array, cupy.ndarray)
    gpu_trainer.run()
    cpu_trainer.run()
    for (name, p), (_, q) in zip(sorted(gpu_model.namedparams()), sorted(cpu_model.namedparams())):
        numpy.testing.assert_allclose(cupy.asnumpy(p.array), q.array, rtol=1e-4, atol=1e-5, err_msg=name)
    gpu_log = gpu_trainer.get_extension("LogReport").log
    cpu_log = cpu_trainer.get_extension("LogReport").log
    for key in ("main/loss", "validation/main/loss", "validation/main/accuracy"):
        assert gpu_log[-1][key] == pytest.approx(cpu_log[-1][key], rel=1e-4, abs=1e-5)


@attr.gpu
def test_gpu_snapshot_resumes_on_gpu_and_loads_on_cpu(tmp_path):
    import cupy

    trainer, model = make(tmp_path, 0, "run", shuffle=True)
    trainer.extend(extensions.snapshot(), trigger=(1, "epoch"))
    trainer.run()
    path = str(tmp_path / "run" / "snapshot_iter_10")
    resumed, resumed_model = make(tmp_path, 0, "resumed", shuffle=True)
    serializers.load_npz(path, resumed)
    assert resumed.updater.iteration == 10
    assert isinstance(resumed_model.predictor.l1.W.array, cupy.ndarray)
    cpu_model = Classifier(MLP())
    serializers.load_npz(path, cpu_model, path="updater/model:main/")
    numpy.testing.assert_array_equal(cpu_model.predictor.l1.W.array, cupy.asnumpy(model.predictor.l1.W.array))


@attr.gpu
def test_extensions_with_gpu_arrays(tmp_path):
    import cupy

    trainer, model = make(tmp_path, 0, "ext")
    trainer.extend(extensions.FailOnNonNumber())
    trainer.extend(extensions.ParameterStatistics(model, trigger=(1, "epoch")))
    trainer.extend(extensions.MicroAverage("main/accuracy", "main/loss", "main/ratio"))
    trainer.extend(extensions.VariableStatisticsPlot(model, trigger=(1, "epoch")))
    trainer.extend(extensions.snapshot(writer=extensions.snapshot_writers.ThreadWriter()))
    trainer.run()
    log = trainer.get_extension("LogReport").log
    assert "None/predictor/l1/W/data/mean" in log[-1] and "main/ratio" in log[-1]
    assert numpy.isfinite(log[-1]["None/predictor/l1/W/data/std"])
    assert (tmp_path / "ext" / "statistics.png").exists()
    assert (tmp_path / "ext" / "snapshot_iter_10").exists()

    diverging, diverging_model = make(tmp_path, 0, "nan")

    def poison(trainer):
        diverging_model.predictor.l2.W.array[0, 0] = cupy.nan

    diverging.extend(poison, priority=1000)
    diverging.extend(extensions.FailOnNonNumber(check_grad=False))
    with pytest.raises(RuntimeError, match="'/predictor/l2/W'"):
        diverging.run(show_loop_exception_msg=False)


@attr.gpu
def test_parallel_updater_on_one_gpu_twice(tmp_path):
    import cupy

    numpy.random.seed(0)
    model = Classifier(MLP())
    model(numpy.zeros((1, 5), numpy.float32), numpy.zeros(1, numpy.int32))
    optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
    it = chainer.iterators.SerialIterator(classification_data(n=40), 8, shuffle=False)
    updater = updaters.ParallelUpdater(it, optimizer, devices={"main": 0, "second": "@cupy:0"})
    training.Trainer(updater, (3, "iteration"), out=str(tmp_path)).run()
    second = updater._models["second"]
    assert isinstance(second.predictor.l1.W.array, cupy.ndarray)
    cupy.testing.assert_array_equal(second.predictor.l1.W.array, model.predictor.l1.W.array)


@attr.gpu
def test_multiprocess_parallel_updater_reports_what_is_missing():
    import cupy

    count = cupy.cuda.runtime.getDeviceCount()
    optimizer = chainer.optimizers.SGD().setup(Classifier(MLP()))
    iterators = [chainer.iterators.SerialIterator(list(range(4)), 2) for _ in range(count + 1)]
    with pytest.raises(RuntimeError, match=rf"given {count + 1} devices but this machine has {count} GPU|NCCL"):
        updaters.MultiprocessParallelUpdater(iterators, optimizer, devices=list(range(count + 1)))
