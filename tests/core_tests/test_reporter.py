"""Tests of chainer.Reporter, chainer.report and the summaries."""

import math
import threading
import warnings

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import Reporter, report, report_scope
from chainer.testing import attr


class Model(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.predictor = Predictor()

    def forward(self, x):
        y = self.predictor(x)
        loss = F.sum(y)
        report({"loss": loss, "accuracy": 0.5}, self)
        return loss


class Predictor(chainer.Link):
    def forward(self, x):
        y = x * 2
        report({"sum_y": F.sum(y)}, self)
        return y


# -- Reporter -------------------------------------------------------------------------------


def test_docs_reporter_example():
    reporter = Reporter()
    observer = object()
    reporter.add_observer("my_observer:", observer)
    observation = {}
    with reporter.scope(observation):
        reporter.report({"x": 1}, observer)
    assert observation == {"my_observer:/x": 1}
    observation = {}
    with reporter.scope(observation):
        report({"x": 1}, observer)
    assert observation == {"my_observer:/x": 1}


def test_docs_naming_rule_with_namedlinks():
    model = Model()
    reporter = Reporter()
    reporter.add_observer("main", model)
    reporter.add_observers("main", model.namedlinks(skipself=True))
    observation = {}
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    with reporter.scope(observation):
        model(x)
    assert sorted(observation) == ["main/accuracy", "main/loss", "main/predictor/sum_y"]
    assert float(observation["main/predictor/sum_y"].array) == 6.0
    assert observation["main/accuracy"] == 0.5


def test_report_without_observer_and_without_reporter():
    report({"ignored": 1})  # no reporter: nothing happens
    reporter = Reporter()
    observation = {}
    with reporter.scope(observation):
        report({"a": 1})
    assert observation == {"a": 1}


def test_unregistered_observer():
    reporter = Reporter()
    with reporter, pytest.raises(KeyError, match="not registered"):
        report({"a": 1}, object())


def test_scopes_nest_and_restore():
    outer, inner = Reporter(), Reporter()
    obs1, obs2, obs3 = {}, {}, {}
    with outer.scope(obs1):
        report({"a": 1})
        with inner.scope(obs2):
            assert chainer.get_current_reporter() is inner
            report({"b": 2})
            with report_scope(obs3):
                report({"c": 3})
            report({"d": 4})
        report({"e": 5})
    assert obs1 == {"a": 1, "e": 5}
    assert obs2 == {"b": 2, "d": 4}
    assert obs3 == {"c": 3}
    with pytest.raises(IndexError, match="no reporter is active"):
        chainer.get_current_reporter()


def test_enter_exit_makes_current():
    reporter = Reporter()
    with reporter as r:
        assert r is reporter and chainer.get_current_reporter() is reporter
        report({"x": 3})
    assert reporter.observation == {"x": 3}


def test_reporters_are_thread_local():
    reporter = Reporter()
    seen = []

    def worker():
        try:
            chainer.get_current_reporter()
            seen.append("found")
        except IndexError:
            seen.append("none")

    with reporter:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen == ["none"]


@pytest.mark.parametrize("keep", [False, True])
def test_keep_graph_on_report(keep):
    reporter = Reporter()
    observation = {}
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float32))
    loss = F.sum(x * x)
    with chainer.using_config("keep_graph_on_report", keep), reporter.scope(observation):
        report({"loss": loss})
    reported = observation["loss"]
    numpy.testing.assert_array_equal(reported.array, loss.array)
    if keep:
        assert reported is loss and reported.creator is not None
    else:
        assert reported is not loss and reported.creator is None


# -- Summary ---------------------------------------------------------------------------------


def test_summary_statistics_match_numpy():
    values = numpy.random.uniform(-5, 5, 50)
    summary = chainer.Summary()
    for i, v in enumerate(values):
        # mix the kinds of values a training loop reports
        if i % 3 == 0:
            summary.add(float(v))
        elif i % 3 == 1:
            summary.add(numpy.float32(v))
        else:
            summary.add(chainer.Variable(numpy.asarray(v, numpy.float32)))
    as_reported = numpy.array(
        [float(v) if i % 3 == 0 else float(numpy.float32(v)) for i, v in enumerate(values)], numpy.float64
    )
    mean, std = summary.make_statistics()
    # Variables were added, so the statistics are Variables too (as in Chainer 7).
    assert isinstance(mean, chainer.Variable) and isinstance(std, chainer.Variable)
    assert float(summary.compute_mean().array) == pytest.approx(as_reported.mean(), rel=1e-12)
    assert float(mean.array) == pytest.approx(as_reported.mean(), rel=1e-12)
    assert float(std.array) == pytest.approx(as_reported.std(), rel=1e-9)
    plain = chainer.Summary()
    plain.add(1.0)
    plain.add(2.0, numpy.float32(3))
    assert not isinstance(plain.compute_mean(), chainer.Variable)
    assert plain.compute_mean() == pytest.approx((1 + 2 * 3) / 4)


def test_summary_weights():
    summary = chainer.Summary()
    summary.add(1.0, weight=3)
    summary.add(5.0, weight=1)
    values = numpy.array([1.0, 1.0, 1.0, 5.0])
    mean, std = summary.make_statistics()
    assert mean == pytest.approx(values.mean())
    assert std == pytest.approx(values.std())


def test_summary_precision_in_float32_inputs():
    # Sums are float64 even for float32 inputs (NumPy 2 would keep float32 otherwise).
    summary = chainer.Summary()
    for _ in range(20000):
        summary.add(numpy.float32(0.1))
    assert summary.compute_mean() == pytest.approx(float(numpy.float32(0.1)), rel=1e-12)


def test_summary_large_mean_small_spread():
    # E[x^2] - E[x]^2 would cancel catastrophically here.
    values = 1e6 + numpy.random.uniform(-0.01, 0.01, 1000)
    summary = chainer.Summary()
    for v in values:
        summary.add(v)
    mean, std = summary.make_statistics()
    assert mean == pytest.approx(values.mean(), rel=1e-14)
    assert std == pytest.approx(values.std(), rel=1e-6)
    # the saved sums are the plain Chainer 7 ones
    s = chainer.serializers.DictionarySerializer()
    summary.serialize(s)
    assert float(s.target["_x"]) == pytest.approx(values.sum(), rel=1e-14)
    assert float(s.target["_x2"]) == pytest.approx((values**2).sum(), rel=1e-14)
    assert int(s.target["_n"]) == 1000


def test_summary_constant_values_have_zero_std():
    summary = chainer.Summary()
    for _ in range(7):
        summary.add(0.1)
    assert summary.make_statistics()[1] == 0.0


def test_summary_errors():
    with pytest.raises(ZeroDivisionError, match="no value"):
        chainer.Summary().compute_mean()
    with pytest.raises(ValueError, match="scalar"):
        chainer.Summary().add(numpy.zeros(3))
    with pytest.raises(TypeError, match="number"):
        chainer.Summary().add("1.0")


# -- DictSummary --------------------------------------------------------------------------------


def test_dict_summary_matches_numpy():
    rows = [{"loss": numpy.random.rand(), "acc": numpy.float32(numpy.random.rand())} for _ in range(20)]
    summary = chainer.DictSummary()
    for row in rows:
        summary.add(row)
    losses = numpy.array([r["loss"] for r in rows])
    accs = numpy.array([float(r["acc"]) for r in rows])
    means = summary.compute_mean()
    assert means["loss"] == pytest.approx(losses.mean())
    stats = summary.make_statistics()
    assert sorted(stats) == ["acc", "acc.std", "loss", "loss.std"]
    assert stats["acc"] == pytest.approx(accs.mean())
    assert stats["acc.std"] == pytest.approx(accs.std())
    assert stats["loss.std"] == pytest.approx(losses.std())


def test_dict_summary_ignores_non_scalars_and_takes_weights():
    summary = chainer.DictSummary()
    summary.add({"a": 1.0, "vec": numpy.zeros(3), "text": "hello", "w": (2.0, 3)})
    summary.add({"a": chainer.Variable(numpy.asarray(3.0)), "w": (6.0, 1)})
    means = summary.compute_mean()
    assert sorted(means) == ["a", "w"]
    assert means["a"] == pytest.approx(2.0)
    assert means["w"] == pytest.approx((2.0 * 3 + 6.0) / 4)
    with pytest.raises(ValueError, match="weight"):
        summary.add({"a": (1.0, numpy.ones(2))})
    with pytest.raises(TypeError, match="expected a dict"):
        summary.add([1.0])


def test_summary_serialization_round_trip(tmp_path):
    summary = chainer.DictSummary()
    summary.add({"loss": 1.0, "acc": 0.5})
    summary.add({"loss": 3.0})
    path = tmp_path / "summary.npz"
    chainer.serializers.save_npz(path, summary)
    with numpy.load(path) as npz:
        # Chainer 7's keys, plus the exact running state of each summary.
        assert sorted(npz.files) == [
            "_names",
            "_summaries/0/_exact_s1",
            "_summaries/0/_exact_s2",
            "_summaries/0/_exact_shift",
            "_summaries/0/_n",
            "_summaries/0/_x",
            "_summaries/0/_x2",
            "_summaries/1/_exact_s1",
            "_summaries/1/_exact_s2",
            "_summaries/1/_exact_shift",
            "_summaries/1/_n",
            "_summaries/1/_x",
            "_summaries/1/_x2",
        ]
        assert str(npz["_names"]) == '["loss", "acc"]'
    restored = chainer.DictSummary()
    restored.add({"other": 1.0})
    chainer.serializers.load_npz(path, restored)
    assert restored.compute_mean() == pytest.approx({"loss": 2.0, "acc": 0.5})
    assert restored.make_statistics() == pytest.approx(summary.make_statistics())
    restored.add({"loss": 5.0})
    assert restored.compute_mean()["loss"] == pytest.approx(3.0)


def test_resumed_summary_continues_bit_for_bit(tmp_path):
    values = [0.1, 0.7, 0.2, 0.30000000000000004, 1e-3, 0.9]
    summary = chainer.Summary()
    for v in values[:3]:
        summary.add(v)
    path = tmp_path / "summary.npz"
    chainer.serializers.save_npz(path, summary)
    restored = chainer.Summary()
    chainer.serializers.load_npz(path, restored)
    for v in values[3:]:
        summary.add(v)
        restored.add(v)
    assert restored.compute_mean() == summary.compute_mean()
    assert restored.make_statistics() == summary.make_statistics()


def test_summary_loads_a_chainer7_layout(tmp_path):
    # What Chainer 7 writes for a Summary: float sums and an integer count.
    path = tmp_path / "summary.npz"
    numpy.savez(path, _x=numpy.asarray(6.0), _x2=numpy.asarray(14.0), _n=numpy.asarray(3))
    summary = chainer.Summary()
    chainer.serializers.load_npz(path, summary)
    mean, std = summary.make_statistics()
    assert mean == pytest.approx(2.0)
    assert std == pytest.approx(numpy.std([1.0, 2.0, 3.0]))


@attr.gpu
def test_summary_of_gpu_values_stays_on_gpu():
    import cupy

    values = numpy.random.uniform(-1, 1, 10).astype(numpy.float32)
    summary = chainer.DictSummary()
    for v in values:
        summary.add({"loss": cupy.asarray(v), "var": chainer.Variable(cupy.asarray(v))})
    stats = summary.make_statistics()
    assert isinstance(stats["loss"], cupy.ndarray)
    expected = values.astype(numpy.float64)
    assert float(stats["loss"]) == pytest.approx(expected.mean(), rel=1e-12)
    assert float(stats["var.std"]) == pytest.approx(expected.std(), rel=1e-9)


def test_dict_summary_loaded_from_a_file_without_names_starts_empty(tmp_path):
    # Files of Chainer's old versions saved nothing for a DictSummary: loading one warns
    # and starts from no statistics, as those versions did.
    summary = chainer.DictSummary()
    summary.add({"a": 3.0, "c": 4.0})
    path = tmp_path / "old.npz"
    numpy.savez(path, dummy=0)
    with pytest.warns(UserWarning, match="starting empty"):
        chainer.serializers.load_npz(str(path), summary)
    summary.add({"a": 9.0})
    assert set(summary.compute_mean()) == {"a"}


@pytest.mark.parametrize(
    "values,mean",
    [
        ([math.inf], math.inf),
        ([math.inf, 1.0], math.inf),
        ([1.0, math.inf], math.inf),
        ([-math.inf, 2.0], -math.inf),
        ([math.nan, 1.0], math.nan),
        ([1.0, math.nan], math.nan),
        ([math.inf, -math.inf], math.nan),
    ],
)
@pytest.mark.parametrize("kind", [float, numpy.float32])
def test_summary_of_infinite_or_nan_values(values, mean, kind):
    """A diverging loss is reported as it is: the mean of values one of which is
    infinite is that infinity (the sum over the count), NaN where they are of both signs
    or one is NaN, as in Chainer 7 (which summed them); no NumPy RuntimeWarning on the way
    to the mean. The same after a save and a load of Chainer 7's keys (_x, _x2, _n) only."""
    summary = chainer.reporter.Summary()
    with warnings.catch_warnings():
        # inf + -inf warns in NumPy arithmetic (as it did in Chainer 7), not otherwise.
        warnings.simplefilter(
            "ignore" if kind is numpy.float32 and math.inf in values and -math.inf in values else "error"
        )
        for v in values:
            summary.add(kind(v))
        numpy.testing.assert_equal(float(summary.compute_mean()), mean)
        saved = chainer.serializers.DictionarySerializer()
        summary.serialize(saved)
        old_keys = {k: numpy.asarray(v) for k, v in saved.target.items() if k in ("_x", "_x2", "_n")}
        loaded = chainer.reporter.Summary()
        loaded.serialize(chainer.serializers.NpzDeserializer(old_keys))
        numpy.testing.assert_equal(float(loaded.compute_mean()), mean)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the variance of infinities is NaN
        numpy.testing.assert_equal(float(summary.make_statistics()[0]), mean)


def test_summary_of_python_numbers_is_a_python_float_and_of_numpy_values_a_numpy_one():
    summary = chainer.reporter.Summary()
    summary.add(1)
    summary.add(2.0)
    assert type(summary.compute_mean()) is float and summary.compute_mean() == 1.5
    assert [type(v) for v in summary.make_statistics()] == [float, float]
    # NumPy values give NumPy float64 scalars (Chainer 7 code hands them to to_cpu).
    summary = chainer.reporter.Summary()
    summary.add(numpy.float32(1.0))
    assert type(summary.compute_mean()) is numpy.float64
    assert [type(v) for v in summary.make_statistics()] == [numpy.float64, numpy.float64]
