"""Save and load a real model and its optimizer, in NPZ and HDF5, into fresh objects.

The model has a Convolution2D, a BatchNormalization (persistents avg_mean, avg_var, N),
a lazily initialized Linear that ran and one that never ran (its W stays None). The
optimizers are Adam and MomentumSGD after a few updates. Every array and counter must
come back exactly, and the loaded pair must then train exactly like the original.
"""

from __future__ import annotations

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers, serializers

pytest.importorskip("h5py")

FORMATS = {
    "npz": (serializers.save_npz, serializers.load_npz),
    "hdf5": (serializers.save_hdf5, serializers.load_hdf5),
}
OPTIMIZERS = {
    "Adam": lambda: optimizers.Adam(alpha=0.01),
    "MomentumSGD": lambda: optimizers.MomentumSGD(lr=0.05, momentum=0.9),
}


class Net(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(1, 3, ksize=3)
            self.bn = L.BatchNormalization(3)
            self.fc = L.Linear(None, 4)
            self.head = L.Linear(None, 2)  # never called: its W stays uninitialized

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return self.fc(h)


def batch(seed):
    rng = np.random.RandomState(seed)
    return rng.normal(size=(5, 1, 6, 6)).astype(np.float32), rng.randint(0, 4, size=5).astype(np.int32)


def train(model, optimizer, seeds):
    for seed in seeds:
        x, t = batch(seed)
        optimizer.update(F.softmax_cross_entropy, model(x), t)


def trained_pair(opt_name, steps=3):
    model = Net()
    optimizer = OPTIMIZERS[opt_name]()
    optimizer.setup(model)
    train(model, optimizer, range(steps))
    optimizer.new_epoch()
    # Fine-tuning counts the batches in the persistent N.
    for seed in range(2):
        model.bn(model.conv(batch(seed)[0]), finetune=True)
    return model, optimizer


def fresh_pair(opt_name):
    model = Net()
    optimizer = OPTIMIZERS[opt_name]()
    optimizer.setup(model)
    return model, optimizer


def model_values(model):
    """Every parameter and persistent value by path (None for uninitialized ones)."""
    values = {}
    for path, link in model.namedlinks():
        for name in sorted(link._params):
            values[f"{path}/{name}"] = getattr(link, name).array
        for name in sorted(link._persistent):
            values[f"{path}/{name}"] = getattr(link, name)
    return values


def optimizer_values(optimizer):
    values = {"t": optimizer.t, "epoch": optimizer.epoch}
    for path, param in optimizer.target.namedparams():
        rule = param.update_rule
        values[f"{path}/t"] = rule.t
        values[f"{path}/state"] = None if rule.state is None else dict(rule.state)
    return values


def assert_same(a, b, where=""):
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), where
        for key in a:
            assert_same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b), where
    else:
        assert type(a) is type(b) and a == b, (where, a, b)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
def test_model_and_optimizer_round_trip_exactly(tmp_path, fmt, opt_name):
    save, load = FORMATS[fmt]
    model, optimizer = trained_pair(opt_name)
    # The state the test relies on is really there.
    assert model.bn.N == 2 and isinstance(model.bn.N, int)
    assert model.fc.W.array is not None and model.head.W.array is None
    assert optimizer.t == 3 and optimizer.epoch == 1
    keys = {"Adam": {"m", "v"}, "MomentumSGD": {"v"}}[opt_name]
    assert set(model.conv.W.update_rule.state) == keys

    save(tmp_path / "model", model)
    save(tmp_path / "optimizer", optimizer)
    model2, optimizer2 = fresh_pair(opt_name)
    assert model2.fc.W.array is None
    load(tmp_path / "model", model2)
    load(tmp_path / "optimizer", optimizer2)

    assert_same(model_values(model), model_values(model2), "model")
    assert model2.head.W.array is None
    assert_same(optimizer_values(optimizer), optimizer_values(optimizer2), "optimizer")

    # The loaded pair trains exactly like the original (state, counters, hyperparameters).
    train(model, optimizer, [10, 11])
    train(model2, optimizer2, [10, 11])
    assert_same(model_values(model), model_values(model2), "after training")
    assert_same(optimizer_values(optimizer), optimizer_values(optimizer2), "optimizer after training")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
def test_loading_into_used_objects_replaces_their_state(tmp_path, fmt, opt_name):
    save, load = FORMATS[fmt]
    model, optimizer = trained_pair(opt_name, steps=2)
    save(tmp_path / "model", model)
    save(tmp_path / "optimizer", optimizer)
    expected_model, expected_optimizer = model_values(model), optimizer_values(optimizer)
    # Objects that trained on other data, longer: loading must overwrite everything.
    model2, optimizer2 = fresh_pair(opt_name)
    train(model2, optimizer2, [20, 21, 22, 23])
    load(tmp_path / "model", model2)
    load(tmp_path / "optimizer", optimizer2)
    assert_same(expected_model, model_values(model2), "model")
    assert_same(expected_optimizer, optimizer_values(optimizer2), "optimizer")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_untrained_model_and_optimizer_round_trip(tmp_path, fmt):
    # Nothing initialized yet: uninitialized parameters are saved as None, rules without state.
    save, load = FORMATS[fmt]
    model, optimizer = fresh_pair("Adam")
    save(tmp_path / "model", model)
    save(tmp_path / "optimizer", optimizer)
    model2, optimizer2 = fresh_pair("Adam")
    load(tmp_path / "model", model2)
    load(tmp_path / "optimizer", optimizer2)
    assert_same(model_values(model), model_values(model2), "model")
    assert model2.fc.W.array is None
    assert all(p.update_rule.state is None for p in model2.params())
    assert_same(optimizer_values(optimizer), optimizer_values(optimizer2), "optimizer")
