"""L.Classifier: loss and accuracy of a predictor's output, reported as 'loss' and
'accuracy' under the model's observer name."""

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import serializers


def _data():
    x = np.random.uniform(-1, 1, (6, 4)).astype(np.float32)
    t = np.array([0, 1, 2, 0, 1, 2], np.int32)
    return x, t


def _softmax_cross_entropy(y, t):
    y = np.asarray(y, np.float64)
    log_p = y - y.max(axis=1, keepdims=True)
    log_p -= np.log(np.exp(log_p).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(t)), t].mean()


def test_defaults():
    model = L.Classifier(L.Linear(4, 3))
    assert model.lossfun is F.softmax_cross_entropy and model.accfun is F.accuracy
    assert model.label_key == -1 and model.compute_accuracy is True
    assert (model.y, model.loss, model.accuracy) == (None, None, None)
    assert [name for name, _ in model.namedlinks(skipself=True)] == ["/predictor"]


def test_loss_accuracy_and_reports():
    model = L.Classifier(L.Linear(4, 3))
    x, t = _data()
    reporter = chainer.Reporter()
    reporter.add_observer("main", model)
    observation = {}
    with reporter.scope(observation):
        loss = model(x, t)
    y = x @ model.predictor.W.array.T + model.predictor.b.array
    np.testing.assert_allclose(model.y.array, y, rtol=1e-6)
    np.testing.assert_allclose(loss.array, _softmax_cross_entropy(y, t), rtol=1e-5)
    assert loss is model.loss
    np.testing.assert_allclose(model.accuracy.array, (y.argmax(axis=1) == t).mean())
    assert set(observation) == {"main/loss", "main/accuracy"}
    np.testing.assert_allclose(observation["main/loss"].array, loss.array)
    # The loss is differentiable down to the predictor's parameters.
    model.cleargrads()
    loss.backward()
    assert model.predictor.W.grad is not None


def test_without_accuracy():
    model = L.Classifier(L.Linear(4, 3))
    model.compute_accuracy = False
    x, t = _data()
    observation = {}
    reporter = chainer.Reporter()
    reporter.add_observer("main", model)
    with reporter.scope(observation):
        model(x, t)
    assert set(observation) == {"main/loss"} and model.accuracy is None


class _TwoInputs(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l = L.Linear(4, 3)

    def forward(self, a, b=0):
        return self.l(a + b)


@pytest.mark.parametrize(
    "label_key, make_args",
    [
        (-1, lambda x, t: ((x, x, t), {})),
        (0, lambda x, t: ((t, x, x), {})),
        (1, lambda x, t: ((x, t, x), {})),
        ("t", lambda x, t: ((x, x), {"t": t})),
        ("t", lambda x, t: ((x,), {"b": x, "t": t})),
    ],
)
def test_label_key(label_key, make_args):
    model = L.Classifier(_TwoInputs(), label_key=label_key)
    x, t = _data()
    args, kwargs = make_args(x, t)
    loss = model(*args, **kwargs)
    y = (2 * x) @ model.predictor.l.W.array.T + model.predictor.l.b.array
    np.testing.assert_allclose(loss.array, _softmax_cross_entropy(y, t), rtol=1e-5)


def test_custom_functions():
    calls = []

    def lossfun(y, t):
        calls.append("loss")
        return F.mean_squared_error(y, t)

    model = L.Classifier(L.Linear(2, 2), lossfun=lossfun, accfun=lambda y, t: F.sum(y) * 0)
    x = np.ones((3, 2), np.float32)
    loss = model(x, np.zeros((3, 2), np.float32))
    assert calls == ["loss"]
    np.testing.assert_allclose(loss.array, (model.y.array**2).mean(), rtol=1e-6)
    assert float(model.accuracy.array) == 0


def test_bad_label_keys():
    # Messages carry the phrases Chainer 7's tests match ("label_key must be int or str",
    # "Label key").
    with pytest.raises(TypeError, match="Classifier: label_key must be int or str, got float"):
        L.Classifier(L.Linear(2, 2), label_key=1.0)
    x, t = _data()
    with pytest.raises(ValueError, match="Classifier: Label key 2 is out of bounds for 2 positional argument"):
        L.Classifier(L.Linear(4, 3), label_key=2)(x, t)
    with pytest.raises(ValueError, match="Classifier: Label key 'label' is not found"):
        L.Classifier(L.Linear(4, 3), label_key="label")(x, t=t)


def test_serialization_keys(tmp_path):
    model = L.Classifier(L.Linear(4, 3))
    serializers.save_npz(tmp_path / "model.npz", model)
    with np.load(tmp_path / "model.npz") as npz:
        assert set(npz.files) == {"predictor/W", "predictor/b"}
    other = L.Classifier(L.Linear(4, 3))
    serializers.load_npz(tmp_path / "model.npz", other)
    np.testing.assert_array_equal(other.predictor.W.array, model.predictor.W.array)


def test_trainer_logs_main_loss_and_accuracy(tmp_path):
    pytest.importorskip("chainer.training", reason="chainer-training is not installed (chainer-links alone)")
    from chainer import datasets, iterators, optimizers, training
    from chainer.training import extensions

    x = np.random.uniform(-1, 1, (8, 4)).astype(np.float32)
    t = (x[:, 0] > 0).astype(np.int32)
    model = L.Classifier(L.Linear(4, 2))
    optimizer = optimizers.MomentumSGD(lr=0.1)
    optimizer.setup(model)
    iterator = iterators.SerialIterator(datasets.TupleDataset(x, t), 4, shuffle=False)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    trainer = training.Trainer(updater, (3, "iteration"), out=str(tmp_path))
    log = extensions.LogReport(trigger=(1, "iteration"))
    trainer.extend(log)
    first_y = x[:4] @ model.predictor.W.array.T + model.predictor.b.array
    trainer.run()
    assert len(log.log) == 3
    for entry in log.log:
        assert {"main/loss", "main/accuracy"} <= set(entry)
        assert 0.0 <= entry["main/accuracy"] <= 1.0
    # The first logged values are those of the first batch at the initial weights.
    np.testing.assert_allclose(log.log[0]["main/loss"], _softmax_cross_entropy(first_y, t[:4]), rtol=1e-5)
    np.testing.assert_allclose(log.log[0]["main/accuracy"], (first_y.argmax(axis=1) == t[:4]).mean())
