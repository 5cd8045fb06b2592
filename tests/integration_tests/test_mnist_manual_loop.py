"""The docs' tutorial "MNIST with a Manual Training Loop", written as in the docs, on a
synthetic MNIST-shaped data set made here (no download): 784 float32 features in [0, 1],
int32 labels 0..9, ten noisy class prototypes (linearly separable).

The program (network, optimizer, iterators, the ``while train_iter.epoch < max_epoch:``
loop with its per-epoch validation, ``save_npz`` then ``load_npz`` into a new network and a
prediction) is the tutorial's, with ``gpu_id = -1``.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import Chain, iterators, optimizers, serializers
from chainer.backends.cuda import to_cpu
from chainer.dataset import concat_examples

N_TRAIN = 2000
N_TEST = 500
MAX_EPOCH = 4


def make_mnist_like(n_train: int, n_test: int, seed: int = 0):
    """Ten random 28x28 'digit' prototypes; an example is its class prototype plus
    Gaussian noise, clipped to [0, 1]. Returns lists of (x, t) pairs like get_mnist."""
    rng = np.random.RandomState(seed)
    prototypes = rng.uniform(0.0, 1.0, size=(10, 784)) > 0.6

    def draw(n):
        t = rng.randint(0, 10, size=n).astype(np.int32)
        x = np.clip(prototypes[t] * 0.7 + 0.15 + rng.normal(0.0, 0.35, size=(n, 784)), 0.0, 1.0)
        return list(zip(x.astype(np.float32), t))

    return draw(n_train), draw(n_test)


class MyNetwork(Chain):
    def __init__(self, n_mid_units=100, n_out=10):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_mid_units)
            self.l2 = L.Linear(n_mid_units, n_mid_units)
            self.l3 = L.Linear(n_mid_units, n_out)

    def forward(self, x):
        h = F.relu(self.l1(x))
        h = F.relu(self.l2(h))
        return self.l3(h)


def _softmax_cross_entropy_np(logits, t):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-log_p[np.arange(len(t)), t].mean())


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    """Run the tutorial once; return what it printed, the model and the data."""
    np.random.seed(0)  # initializers, shuffling
    train, test = make_mnist_like(N_TRAIN, N_TEST)
    gpu_id = -1
    stdout = io.StringIO()
    epoch_losses = []
    with contextlib.chdir(tmp_path_factory.mktemp("mnist")), contextlib.redirect_stdout(stdout):
        # 2. Create a dataset iterator
        batchsize = 128
        train_iter = iterators.SerialIterator(train, batchsize)
        test_iter = iterators.SerialIterator(test, batchsize, repeat=False, shuffle=False)

        # 3. Define a network
        model = MyNetwork()
        x_all, t_all = concat_examples(train)
        assert model.l1.W.array is None  # L.Linear(None, ...) is lazily initialized
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            initial_loss = _softmax_cross_entropy_np(model(x_all).array, t_all)

        # 4. Select an optimization algorithm
        optimizer = optimizers.MomentumSGD(lr=0.01, momentum=0.9)
        optimizer.setup(model)

        # 5. Write a training loop
        max_epoch = MAX_EPOCH
        batch_losses = []
        while train_iter.epoch < max_epoch:
            train_batch = train_iter.next()
            image_train, target_train = concat_examples(train_batch, gpu_id)
            prediction_train = model(image_train)
            loss = F.softmax_cross_entropy(prediction_train, target_train)
            model.cleargrads()
            loss.backward()
            optimizer.update()
            batch_losses.append(float(loss.array))

            if train_iter.is_new_epoch:
                epoch_losses.append(float(np.mean(batch_losses)))
                batch_losses = []
                print(f"epoch:{train_iter.epoch:02d} train_loss:{float(to_cpu(loss.array)):.04f} ", end="")
                test_losses = []
                test_accuracies = []
                for test_batch in test_iter:
                    image_test, target_test = concat_examples(test_batch, gpu_id)
                    prediction_test = model(image_test)
                    loss_test = F.softmax_cross_entropy(prediction_test, target_test)
                    test_losses.append(to_cpu(loss_test.array))
                    accuracy = F.accuracy(prediction_test, target_test)
                    accuracy.to_cpu()
                    test_accuracies.append(accuracy.array)
                test_iter.reset()
                print(f"val_loss:{np.mean(test_losses):.04f} val_accuracy:{np.mean(test_accuracies):.04f}")

        # 6. Save the trained model
        serializers.save_npz("my_mnist.model", model)
        trained = model

        # 7. Perform classification by the saved model
        model = MyNetwork()
        serializers.load_npz("my_mnist.model", model)
        x, t = test[0]
        y = model(x[None, ...])
        predicted = y.array.argmax(axis=1)[0]

    return {
        "stdout": stdout.getvalue(),
        "train": train,
        "test": test,
        "trained": trained,
        "reloaded": model,
        "initial_loss": initial_loss,
        "epoch_losses": epoch_losses,
        "iterations": optimizer.t,
        "prediction": (t, predicted),
    }


def test_prints_one_line_per_epoch_in_the_docs_format(tutorial):
    lines = tutorial["stdout"].splitlines()
    assert len(lines) == MAX_EPOCH
    pattern = re.compile(r"^epoch:(\d\d) train_loss:\d+\.\d{4} val_loss:(\d+\.\d{4}) val_accuracy:(\d\.\d{4})$")
    matches = [pattern.match(line) for line in lines]
    assert all(matches), lines
    assert [int(m.group(1)) for m in matches] == list(range(1, MAX_EPOCH + 1))
    assert float(matches[-1].group(3)) >= 0.9


def test_iterations_match_the_epochs(tutorial):
    # A repeating SerialIterator of batch 128 over 2000 examples ends epoch e within the
    # batch that reaches e * 2000 examples.
    assert tutorial["iterations"] == -(-MAX_EPOCH * N_TRAIN // 128)


def test_loss_falls_and_train_accuracy_reaches_95_percent(tutorial):
    losses = tutorial["epoch_losses"]
    assert len(losses) == MAX_EPOCH
    assert tutorial["initial_loss"] > 2.0  # about log(10) for an untrained network
    assert losses[0] < tutorial["initial_loss"]
    assert losses[-1] < 0.25 * losses[0]
    x, t = concat_examples(tutorial["train"])
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        logits = tutorial["trained"](x).array
    assert _softmax_cross_entropy_np(logits, t) < 0.25 * tutorial["initial_loss"]
    assert (logits.argmax(axis=1) == t).mean() >= 0.95


def test_reloaded_model_predicts_exactly_like_the_trained_one(tutorial):
    trained, reloaded = tutorial["trained"], tutorial["reloaded"]
    assert reloaded is not trained
    for (name, p), (name2, q) in zip(sorted(trained.namedparams()), sorted(reloaded.namedparams())):
        assert name == name2
        assert q.array.dtype == p.array.dtype == np.float32
        assert np.array_equal(q.array, p.array), name
    x, _ = concat_examples(tutorial["test"])
    with chainer.no_backprop_mode():
        assert np.array_equal(reloaded(x).array, trained(x).array)
    label, predicted = tutorial["prediction"]
    assert predicted == label
