"""Evaluator: naming, test mode, no graphs, iterator reset/copy, means over batches."""

import warnings

import numpy
import pytest
from _training_testlib import Regression, make_trainer, regression_data

import chainer
from chainer import dataset, training
from chainer.training import extensions


class Probe(chainer.Link):
    """Reports, per batch, the batch mean of x, the batch size, the train flag and
    whether graphs are recorded."""

    def forward(self, x):
        chainer.report(
            {
                "mean": float(numpy.mean(x)),
                "size": float(len(x)),
                "train": float(chainer.config.train),
                "backprop": float(chainer.config.enable_backprop),
            },
            self,
        )


def evaluate(target, data, batch_size=3, **kwargs):
    it = chainer.iterators.SerialIterator(data, batch_size, repeat=False, shuffle=False)
    return extensions.Evaluator(it, target, **kwargs)


def test_standalone_means_and_modes():
    data = numpy.arange(7, dtype=numpy.float32).reshape(7, 1)
    result = evaluate(Probe(), data)()
    # Batches [0,1,2], [3,4,5], [6]: the summary is the mean of the per-batch values.
    assert result["main/mean"] == pytest.approx((1 + 4 + 6) / 3)
    assert result["main/size"] == pytest.approx((3 + 3 + 1) / 3)
    assert result["main/train"] == 0.0
    assert result["main/backprop"] == 0.0
    assert chainer.config.train is True


def test_names_under_a_trainer(tmp_path):
    trainer = make_trainer(tmp_path, stop=(1, "epoch"))
    model = trainer.updater.get_optimizer("main").target
    x, _ = regression_data(n=6, n_in=5)
    test = chainer.datasets.TupleDataset(x, numpy.zeros(6, numpy.int32))
    trainer.extend(evaluate(model, test))
    trainer.extend(evaluate(model, test), name="test")
    seen = {}
    trainer.extend(lambda t: seen.update(t.observation), name="grab", trigger=(1, "epoch"))
    trainer.run()
    assert {"validation/main/loss", "validation/main/accuracy", "test/main/loss"} <= set(seen)
    assert seen["validation/main/loss"] == seen["test/main/loss"]


def test_iterator_is_reset_each_time():
    data = numpy.arange(4, dtype=numpy.float32).reshape(4, 1)
    ev = evaluate(Probe(), data, batch_size=2)
    first = ev()
    second = ev()
    assert first == second
    assert first["main/mean"] == pytest.approx((0.5 + 2.5) / 2)


def test_iterator_without_reset_is_copied():
    class NoReset(dataset.Iterator):
        def __init__(self, batches):
            self.batches = list(batches)
            self.position = 0

        def __next__(self):
            if self.position >= len(self.batches):
                raise StopIteration
            self.position += 1
            return self.batches[self.position - 1]

        def __copy__(self):
            clone = NoReset(self.batches)
            clone.position = self.position
            return clone

    it = NoReset([[numpy.float32([1])], [numpy.float32([3])]])
    ev = extensions.Evaluator(it, Probe())
    with pytest.warns(DeprecationWarning, match="has no reset method"):
        assert ev()["main/mean"] == 2.0
    assert it.position == 0  # the original was not consumed
    with pytest.warns(DeprecationWarning):
        assert ev()["main/mean"] == 2.0


def test_repeating_iterator_warns():
    it = chainer.iterators.SerialIterator([1, 2], 1)
    with pytest.warns(UserWarning, match="repeats"):
        extensions.Evaluator(it, Probe())


def test_eval_func_eval_hook_converter_and_device():
    x, t = regression_data(n=4)
    data = chainer.datasets.TupleDataset(x, t)
    model = Regression()
    hooks, devices = [], []

    def converter(batch, device=None):
        devices.append(device)
        return dataset.concat_examples(batch, device)

    calls = []

    def eval_func(x, t):
        calls.append(x.shape)
        return model(x, t)

    ev = evaluate(
        model, data, batch_size=2, converter=converter, device=-1, eval_hook=hooks.append, eval_func=eval_func
    )
    result = ev()
    assert hooks == [ev]
    assert devices == [-1, -1]
    assert calls == [(2, 3), (2, 3)]
    d = x @ model.W.array.T + model.b.array - t
    per_batch = [(d[:2] ** 2).sum() / 2, (d[2:] ** 2).sum() / 2]
    assert result["main/loss"] == pytest.approx(numpy.mean(per_batch), rel=1e-5)


def test_dict_targets_and_accessors():
    a, b = Probe(), Probe()
    it = chainer.iterators.SerialIterator([numpy.float32([1])], 1, repeat=False)
    ev = extensions.Evaluator({"main": it}, {"main": a, "other": b})
    assert ev.get_target("other") is b
    assert ev.get_all_targets() == {"main": a, "other": b}
    assert ev.get_iterator("main") is it
    assert ev.get_all_iterators() == {"main": it}
    assert ev.default_name == "validation"
    assert ev.trigger == (1, "epoch")
    assert ev.priority == training.PRIORITY_WRITER


def test_evaluation_leaves_no_graph_on_the_parameters():
    x, t = regression_data(n=4)
    model = Regression()
    ev = evaluate(model, chainer.datasets.TupleDataset(x, t), batch_size=4)
    with chainer.using_config("keep_graph_on_report", True):
        observation = {}
        with chainer.Reporter().scope(observation):
            ev()
    assert model.W.grad is None


def test_bad_arguments():
    it = chainer.iterators.SerialIterator([1], 1, repeat=False)
    with pytest.raises(TypeError, match="must be a chainer.Link"):
        extensions.Evaluator(it, object())
    with pytest.raises(TypeError, match="converter must be callable"):
        extensions.Evaluator(it, Probe(), converter=1)
    with pytest.raises(TypeError, match="eval_func must be callable"):
        extensions.Evaluator(it, Probe(), eval_func=1)
    with pytest.raises(ValueError, match="'main' entry"):
        extensions.Evaluator({"val": it}, Probe())
    with pytest.raises(TypeError, match="unexpected keyword"):
        extensions.Evaluator(it, Probe(), bogus=1)


def test_progress_bar_keyword_on_a_non_tty(capsys):
    data = numpy.arange(4, dtype=numpy.float32).reshape(4, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # batches [0, 1, 2] and [3]
        assert evaluate(Probe(), data, progress_bar=True)()["main/mean"] == pytest.approx((1 + 3) / 2)
    assert capsys.readouterr().out == ""


class TTY:
    """A terminal stand-in: collects what is written."""

    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass

    def isatty(self):
        return True


def test_progress_bar_on_a_terminal_draws_chainer_7_layout(monkeypatch):
    """Three lines per batch, as Chainer 7 draws them: the bar with the fraction swept,
    the examples swept out of the data set's, and the speed with the time to finish;
    each draw moves the cursor back up, the last is erased."""
    tty = TTY()
    monkeypatch.setattr("sys.stdout", tty)
    data = numpy.arange(5, dtype=numpy.float32).reshape(5, 1)
    evaluate(Probe(), data, batch_size=2, progress_bar=True)()  # batches of 2, 2, 1
    draws = "".join(tty.parts).split("\033[J")
    assert draws[0] == "" and draws[-1] == ""
    assert len(draws) == 5  # three draws, each after an erase, and the final erase
    first = draws[1].split("\n")
    assert first[0] == "validation [" + "#" * 20 + "." * 30 + "] 40.00%"
    assert first[1] == "         2 / 5 iterations"
    assert first[2].endswith(" iters/sec. Estimated time to finish: " + first[2].split("finish: ")[1])
    assert len(first[2].split(" iters/sec")[0]) == 10  # the speed right-aligned in 10 characters
    assert first[3] == "\033[3A"
    last = draws[3].split("\n")
    assert last[0] == "validation [" + "#" * 50 + "] 100.00%"
    # The whole data set at the end (Chainer 7 showed the iterator's position, 0, there).
    assert last[1] == "         5 / 5 iterations"
