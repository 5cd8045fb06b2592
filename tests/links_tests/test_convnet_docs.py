"""The LeNet5 models of the documentation's ConvNet chapter build and train."""

from functools import partial

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import Chain, optimizers


# As written in the documentation (first definition).
class LeNet5(Chain):
    def __init__(self):
        super(LeNet5, self).__init__()  # noqa: UP008
        with self.init_scope():
            self.conv1 = L.Convolution2D(in_channels=1, out_channels=6, ksize=5, stride=1)
            self.conv2 = L.Convolution2D(in_channels=6, out_channels=16, ksize=5, stride=1)
            self.conv3 = L.Convolution2D(in_channels=16, out_channels=120, ksize=4, stride=1)
            self.fc4 = L.Linear(None, 84)
            self.fc5 = L.Linear(84, 10)

    def forward(self, x):
        h = F.sigmoid(self.conv1(x))
        h = F.max_pooling_2d(h, 2, 2)
        h = F.sigmoid(self.conv2(h))
        h = F.max_pooling_2d(h, 2, 2)
        h = F.sigmoid(self.conv3(h))
        h = F.sigmoid(self.fc4(h))
        if chainer.config.train:
            return self.fc5(h)
        return F.softmax(self.fc5(h))


# The second definition, from a list of layers.
class LeNet5List(Chain):
    def __init__(self):
        super(LeNet5List, self).__init__()  # noqa: UP008
        net = [("conv1", L.Convolution2D(1, 6, 5, 1))]
        net += [("_sigm1", F.sigmoid)]
        net += [("_mpool1", partial(F.max_pooling_2d, ksize=2, stride=2))]
        net += [("conv2", L.Convolution2D(6, 16, 5, 1))]
        net += [("_sigm2", F.sigmoid)]
        net += [("_mpool2", partial(F.max_pooling_2d, ksize=2, stride=2))]
        net += [("conv3", L.Convolution2D(16, 120, 4, 1))]
        net += [("_sigm3", F.sigmoid)]
        net += [("_mpool3", partial(F.max_pooling_2d, ksize=2, stride=2))]
        net += [("fc4", L.Linear(None, 84))]
        net += [("_sigm4", F.sigmoid)]
        net += [("fc5", L.Linear(84, 10))]
        net += [("_sigm5", F.sigmoid)]
        with self.init_scope():
            for n in net:
                if not n[0].startswith("_"):
                    setattr(self, n[0], n[1])
        self.layers = net

    def forward(self, x):
        for n, f in self.layers:
            if not n.startswith("_"):
                x = getattr(self, n)(x)
            else:
                x = f(x)
        if chainer.config.train:
            return x
        return F.softmax(x)


def _data():
    x = np.random.rand(32, 1, 28, 28).astype(np.float32)
    t = np.random.randint(0, 10, size=(32,)).astype(np.int32)
    return x, t


def test_lenet5_one_momentum_sgd_step():
    model = LeNet5()
    x, t = _data()
    assert model.fc4.W.array is None
    y = model(x)
    assert y.shape == (32, 10)
    assert model.fc4.W.shape == (84, 120)  # inferred from the 120 x 1 x 1 features

    optimizer = optimizers.MomentumSGD(lr=0.1, momentum=0.9)
    optimizer.setup(model)
    before = {path: param.array.copy() for path, param in model.namedparams()}
    loss = F.softmax_cross_entropy(model(x), t)
    model.cleargrads()
    loss.backward()
    grads = {path: param.grad.copy() for path, param in model.namedparams()}
    optimizer.update()
    assert np.isfinite(float(loss.array))
    assert set(before) == {f"/{layer}/{p}" for layer in ("conv1", "conv2", "conv3", "fc4", "fc5") for p in "Wb"}
    for path, param in model.namedparams():
        # The first momentum step from a zero velocity: W <- W - lr * grad.
        np.testing.assert_allclose(param.array, before[path] - 0.1 * grads[path], rtol=1e-5, atol=1e-7)
        assert np.abs(grads[path]).sum() > 0, path

    with chainer.using_config("train", False):
        probabilities = model(x).array
    np.testing.assert_allclose(probabilities.sum(axis=1), 1, rtol=1e-5)


def test_lenet5_training_lowers_the_loss_on_a_fixed_batch():
    model = LeNet5()
    x, t = _data()
    optimizer = optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    losses = []
    for _ in range(15):
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        optimizer.update()
        losses.append(float(loss.array))
    assert losses[-1] < losses[0]


def test_lenet5_in_a_classifier():
    model = L.Classifier(LeNet5())
    x, t = _data()
    optimizer = optimizers.MomentumSGD()
    optimizer.setup(model)
    reporter = chainer.Reporter()
    reporter.add_observer("main", model)
    observation = {}
    before = model.predictor.conv1.W.array.copy()
    with reporter.scope(observation):
        optimizer.update(model, x, t)
    assert set(observation) == {"main/loss", "main/accuracy"}
    assert 0 <= float(observation["main/accuracy"].array) <= 1
    np.testing.assert_allclose(
        float(observation["main/loss"].array), float(F.softmax_cross_entropy(model.y, t).array), rtol=1e-6
    )
    assert not np.array_equal(model.predictor.conv1.W.array, before)


def test_lenet5_from_a_list_of_layers():
    model = LeNet5List()
    x, t = _data()
    optimizer = optimizers.MomentumSGD()
    optimizer.setup(model)
    before = model.conv1.W.array.copy()
    y = model(x)
    assert y.shape == (32, 10)
    loss = F.mean_squared_error(y, np.eye(10, dtype=np.float32)[t])
    model.cleargrads()
    loss.backward()
    optimizer.update()
    assert not np.array_equal(model.conv1.W.array, before)
    assert sorted(name for name, _ in model.namedlinks(skipself=True)) == [
        "/conv1",
        "/conv2",
        "/conv3",
        "/fc4",
        "/fc5",
    ]
