"""Resuming the docs' manual training loop from files: a run interrupted after some
iterations, whose model, optimizer and iterator were saved with save_npz / save_hdf5 and
loaded into freshly built objects, ends bit-identical to a run that was never stopped."""

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import iterators, optimizers, serializers
from chainer.dataset import concat_examples

N_SAMPLES, N_IN, N_CLASSES, BATCH = 90, 12, 3, 16  # 16 does not divide 90: epochs end mid-batch
TOTAL, STOP_AT = 20, 7


def _dataset():
    rng = numpy.random.RandomState(3)
    x = rng.normal(size=(N_SAMPLES, N_IN)).astype(numpy.float32)
    t = (x[:, :N_CLASSES].argmax(axis=1)).astype(numpy.int32)
    return chainer.datasets.TupleDataset(x, t)


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, 20)  # lazily initialised, as in the docs
            self.l2 = L.Linear(20, N_CLASSES)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def _build(opt_name):
    numpy.random.seed(11)  # the same initial weights for every build
    model = L.Classifier(MLP())
    optimizer = {"MomentumSGD": lambda: optimizers.MomentumSGD(lr=0.05), "Adam": lambda: optimizers.Adam()}[opt_name]()
    optimizer.setup(model)
    numpy.random.seed(5)  # the iterator's first shuffle
    iterator = iterators.SerialIterator(_dataset(), BATCH, repeat=True, shuffle=True)
    return model, optimizer, iterator


def _train(model, optimizer, iterator, n_iterations):
    for _ in range(n_iterations):
        x, t = concat_examples(iterator.next())
        model.cleargrads()
        loss = model(x, t)
        loss.backward()
        optimizer.update()


@pytest.mark.parametrize("fmt", ["npz", "hdf5"])
@pytest.mark.parametrize("opt_name", ["MomentumSGD", "Adam"])
def test_resumed_manual_loop_is_bit_identical(tmp_path, fmt, opt_name):
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    save = {"npz": serializers.save_npz, "hdf5": serializers.save_hdf5}[fmt]
    load = {"npz": serializers.load_npz, "hdf5": serializers.load_hdf5}[fmt]

    straight = _build(opt_name)
    numpy.random.seed(99)  # later shuffles draw from the global generator
    _train(*straight, TOTAL)

    first = _build(opt_name)
    numpy.random.seed(99)
    _train(*first, STOP_AT)
    for name, obj in zip(("model", "optimizer", "iterator"), first):
        save(str(tmp_path / f"{name}.{fmt}"), obj)
    rng_state = numpy.random.get_state()  # what a real script would also save
    del first

    resumed = _build(opt_name)
    numpy.random.seed(1234)  # the fresh process's generator is somewhere else ...
    for name, obj in zip(("model", "optimizer", "iterator"), resumed):
        load(str(tmp_path / f"{name}.{fmt}"), obj)
    numpy.random.set_state(rng_state)  # ... until the saved state is restored
    model, optimizer, iterator = resumed
    assert optimizer.t == STOP_AT
    assert iterator.epoch == STOP_AT * BATCH // N_SAMPLES
    _train(*resumed, TOTAL - STOP_AT)

    assert optimizer.t == straight[1].t == TOTAL
    assert iterator.epoch == straight[2].epoch and iterator.current_position == straight[2].current_position
    expected = dict(straight[0].namedparams())
    for path, param in model.namedparams():
        assert param.array.tobytes() == expected[path].array.tobytes(), path
    for path, param in model.namedparams():
        for key, value in param.update_rule.state.items():
            reference = expected[path].update_rule.state[key]
            assert value.tobytes() == reference.tobytes(), f"{path}/{key}"


def test_resuming_without_the_optimizer_state_differs(tmp_path):
    """The check above can fail: resuming Adam from the model alone (fresh moments) ends
    elsewhere."""
    straight = _build("Adam")
    numpy.random.seed(99)
    _train(*straight, TOTAL)

    first = _build("Adam")
    numpy.random.seed(99)
    _train(*first, STOP_AT)
    serializers.save_npz(str(tmp_path / "model.npz"), first[0])
    serializers.save_npz(str(tmp_path / "iterator.npz"), first[2])
    rng_state = numpy.random.get_state()

    resumed = _build("Adam")
    serializers.load_npz(str(tmp_path / "model.npz"), resumed[0])
    serializers.load_npz(str(tmp_path / "iterator.npz"), resumed[2])
    numpy.random.set_state(rng_state)
    _train(*resumed, TOTAL - STOP_AT)
    assert not numpy.array_equal(resumed[0].predictor.l1.W.array, straight[0].predictor.l1.W.array)
