"""The documentation's Trainer programs run as written, on synthetic data of the same
shapes: "Mushrooms - tasty or deadly?" (the glance example), "MNIST using Trainer" and
"Customize your own logging".

Until chainer.links/chainer.functions provide Linear, Classifier and the losses, the
programs' imports of L and F are pointed at the stand-ins of ``_training_testlib``
(which are the real modules as soon as those names exist).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import string

import numpy
import pytest
from _training_testlib import F as TEST_F
from _training_testlib import L as TEST_L
from PIL import Image

import chainer

GLANCE = """
import chainer as ch
from chainer import datasets
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

import numpy as np

import matplotlib
matplotlib.use('Agg')

mushroomsfile = 'mushrooms.csv'
data_array = np.genfromtxt(
    mushroomsfile, delimiter=',', dtype=str, skip_header=1)
for col in range(data_array.shape[1]):
    data_array[:, col] = np.unique(data_array[:, col], return_inverse=True)[1]

X = data_array[:, 1:].astype(np.float32)
Y = data_array[:, 0].astype(np.int32)[:, None]
train, test = datasets.split_dataset_random(
    datasets.TupleDataset(X, Y), int(data_array.shape[0] * .7))

train_iter = ch.iterators.SerialIterator(train, 100)
test_iter = ch.iterators.SerialIterator(
    test, 100, repeat=False, shuffle=False)


# Network definition
def MLP(n_units, n_out):
    layer = ch.Sequential(L.Linear(n_units), F.relu)
    model = layer.repeat(2)
    model.append(L.Linear(n_out))

    return model


model = L.Classifier(
    MLP(44, 1), lossfun=F.sigmoid_cross_entropy, accfun=F.binary_accuracy)

# Setup an optimizer
optimizer = ch.optimizers.SGD().setup(model)

# Create the updater, using the optimizer
updater = training.StandardUpdater(train_iter, optimizer, device=-1)

# Set up a trainer
trainer = training.Trainer(updater, (50, 'epoch'), out='result')

# Evaluate the model with the test dataset for each epoch
trainer.extend(extensions.Evaluator(test_iter, model, device=-1))

# Dump a computational graph from 'loss' variable at the first iteration
# The "main" refers to the target link of the "main" optimizer.
trainer.extend(extensions.DumpGraph('main/loss'))

trainer.extend(extensions.snapshot(), trigger=(20, 'epoch'))

# Write a log of evaluation statistics for each epoch
trainer.extend(extensions.LogReport())

# Save two plot images to the result dir
trainer.extend(
    extensions.PlotReport(['main/loss', 'validation/main/loss'],
                          'epoch', file_name='loss.png'))
trainer.extend(
    extensions.PlotReport(
        ['main/accuracy', 'validation/main/accuracy'],
        'epoch', file_name='accuracy.png'))

# Print selected entries of the log to stdout
trainer.extend(extensions.PrintReport(
    ['epoch', 'main/loss', 'validation/main/loss',
     'main/accuracy', 'validation/main/accuracy', 'elapsed_time']))

# Run the training
trainer.run()

x, t = test[np.random.randint(len(test))]

predict = model.predictor(x[None]).array
predict = predict[0][0]

if predict >= 0:
    print('Predicted Poisonous, Actual ' + ['Edible', 'Poisonous'][t[0]])
else:
    print('Predicted Edible, Actual ' + ['Edible', 'Poisonous'][t[0]])
"""

MNIST = """
import math
import numpy as np
import chainer
from chainer import backend
from chainer import backends
from chainer.backends import cuda
from chainer import Function, FunctionNode, gradient_check, report, training, utils, Variable
from chainer import datasets, initializers, iterators, optimizers, serializers
from chainer import Link, Chain, ChainList
import chainer.functions as F
import chainer.links as L
from chainer.training import extensions

train, test = SYNTHETIC_MNIST

batchsize = 128

train_iter = iterators.SerialIterator(train, batchsize)
test_iter = iterators.SerialIterator(test, batchsize, False, False)

class MLP(Chain):

    def __init__(self, n_mid_units=100, n_out=10):
        super(MLP, self).__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_mid_units)
            self.l2 = L.Linear(None, n_mid_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)

gpu_id = -1  # Set to -1 if you use CPU

model = MLP()
if gpu_id >= 0:
    model.to_gpu(gpu_id)

max_epoch = 10

# Wrap your model by Classifier and include the process of loss calculation within your model.
# Since we do not specify a loss function here, the default 'softmax_cross_entropy' is used.
model = L.Classifier(model)

# selection of your optimizing method
optimizer = optimizers.MomentumSGD()

# Give the optimizer a reference to the model
optimizer.setup(model)

# Get an updater that uses the Iterator and Optimizer
updater = training.updaters.StandardUpdater(train_iter, optimizer, device=gpu_id)

# Setup a Trainer
trainer = training.Trainer(updater, (max_epoch, 'epoch'), out='mnist_result')

from chainer.training import extensions

trainer.extend(extensions.LogReport())
trainer.extend(extensions.snapshot(filename='snapshot_epoch-{.updater.epoch}'))
trainer.extend(extensions.snapshot_object(model.predictor, filename='model_epoch-{.updater.epoch}'))
trainer.extend(extensions.Evaluator(test_iter, model, device=gpu_id))
trainer.extend(extensions.PrintReport(['epoch', 'main/loss', 'main/accuracy', 'validation/main/loss', 'validation/main/accuracy', 'elapsed_time']))
trainer.extend(extensions.PlotReport(['main/loss', 'validation/main/loss'], x_key='epoch', file_name='loss.png'))
trainer.extend(extensions.PlotReport(['main/accuracy', 'validation/main/accuracy'], x_key='epoch', file_name='accuracy.png'))
trainer.extend(extensions.DumpGraph('main/loss'))

trainer.run()

model = MLP()
serializers.load_npz('mnist_result/model_epoch-10', model)

# Show the output
x, t = test[0]
y = model(x[None, ...])
prediction = y.array.argmax(axis=1)[0]
print('label:', t)
print('predicted_label:', prediction)
"""

LOGGING = """
from chainer import Reporter, report, report_scope
from chainer import Chain, datasets, iterators, optimizers, training
from chainer.training import extensions
import chainer.functions as F
import chainer.links as L

class Classifier(Chain):
    def __init__(self, predictor):
        super(Classifier, self).__init__()
        with self.init_scope():
            self.predictor = predictor

    def forward(self, x, t):
        y = self.predictor(x)
        loss = F.softmax_cross_entropy(y, t)
        accuracy = F.accuracy(y, t)
        report({'loss': loss, 'accuracy': accuracy}, self)
        return loss

class MLP(Chain):
    def __init__(self, n_units, n_out):
        super(MLP, self).__init__()
        with self.init_scope():
            # the size of the inputs to each layer will be inferred
            self.l1 = L.Linear(None, n_units)  # n_in -> n_units
            self.l2 = L.Linear(None, n_units)  # n_units -> n_units
            self.l3 = L.Linear(None, n_out)  # n_units -> n_out

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        y = self.l3(h2)
        report({'sum_y': F.sum(y)}, self)
        return y

model = Classifier(MLP(100, 10))
for name, observer in model.namedlinks(skipself=True):
    print(name)

train, test = SYNTHETIC_MNIST
train_iter = iterators.SerialIterator(train, batch_size=100, shuffle=True)
test_iter = iterators.SerialIterator(test, batch_size=100, repeat=False, shuffle=False)
optimizer = optimizers.SGD()
optimizer.setup(model)
updater = training.StandardUpdater(train_iter, optimizer)
trainer = training.Trainer(updater, (1, 'epoch'), out='result')
trainer.extend(extensions.Evaluator(test_iter, model))
trainer.extend(extensions.LogReport())
trainer.extend(extensions.PrintReport(
    ['epoch', 'main/accuracy', 'main/loss', 'main/predictor/sum_y', 'validation/main/accuracy']))
trainer.run()
"""


def _installed(module_name):
    try:
        return importlib.import_module(module_name)
    except ImportError:  # chainer-links is not installed (chainer-training alone)
        return None


def run_program(source, namespace=None):
    if TEST_L is not _installed("chainer.links"):
        source = source.replace("import chainer.links as L", "from _training_testlib import L")
    if TEST_F is not _installed("chainer.functions"):
        source = source.replace("import chainer.functions as F", "from _training_testlib import F")
    namespace = {"__name__": "__docs_program__", **(namespace or {})}
    exec(compile(source, "<docs program>", "exec"), namespace)
    return namespace


def write_mushrooms_csv(path, n=2000, seed=0):
    """Rows of 22 single-letter categorical attributes and a class 'e'/'p' that one
    attribute (the "odor") decides, like the Kaggle file's layout."""
    rng = numpy.random.RandomState(seed)
    letters = list(string.ascii_lowercase)
    header = ["class"] + [f"attr{i}" for i in range(22)]
    rows = []
    for _ in range(n):
        attrs = [letters[rng.randint(0, 4 + i % 6)] for i in range(22)]
        poisonous = attrs[4] in "abc"
        rows.append(["p" if poisonous else "e", *attrs])
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for row in rows:
            f.write(",".join(row) + "\n")


def synthetic_mnist(n_train=512, n_test=128, seed=0):
    """Images of 784 values in [0, 1] around ten class prototypes, int32 labels."""
    rng = numpy.random.RandomState(seed)
    prototypes = rng.uniform(0, 1, (10, 784)).astype(numpy.float32)

    def make(n):
        t = rng.randint(0, 10, n).astype(numpy.int32)
        x = numpy.clip(prototypes[t] + rng.normal(0, 0.3, (n, 784)), 0, 1).astype(numpy.float32)
        return chainer.datasets.TupleDataset(x, t)

    return make(n_train), make(n_test)


def assert_png(path):
    with Image.open(path) as image:
        assert image.format == "PNG"
        image.load()


@pytest.mark.slow
def test_glance_mushrooms_program(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_mushrooms_csv(tmp_path / "mushrooms.csv")
    run_program(GLANCE)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert (
        lines[0]
        == "epoch       main/loss   validation/main/loss  main/accuracy  validation/main/accuracy  elapsed_time"
    )
    rows = [line.split() for line in lines[1:51]]
    assert [int(r[0]) for r in rows] == list(range(1, 51))
    assert all(len(r) == 6 for r in rows)
    assert lines[51].startswith("Predicted ") and ", Actual " in lines[51]

    result = tmp_path / "result"
    with open(result / "log") as f:
        log = json.load(f)
    n_train = int(2000 * 0.7)  # batches of 100 cross the epoch boundaries

    def iterations_for(epochs):
        return math.ceil(epochs * n_train / 100)

    assert len(log) == 50 and log[-1]["epoch"] == 50 and log[-1]["iteration"] == iterations_for(50)
    assert {"main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy"} <= set(log[0])
    # It learned: the validation loss went down and the accuracy is well above chance.
    assert log[-1]["validation/main/loss"] < log[0]["validation/main/loss"]
    assert log[-1]["validation/main/accuracy"] > 0.9
    for row, entry in zip(rows, log):
        assert float(row[1]) == pytest.approx(entry["main/loss"], rel=1e-5)
    assert_png(result / "loss.png")
    assert_png(result / "accuracy.png")
    assert (result / "cg.dot").read_text().startswith("digraph")
    snapshots = {n for n in os.listdir(result) if n.startswith("snapshot")}
    assert snapshots == {f"snapshot_iter_{iterations_for(20)}", f"snapshot_iter_{iterations_for(40)}"}


@pytest.mark.slow
def test_mnist_using_trainer_program(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ns = run_program(MNIST, {"SYNTHETIC_MNIST": synthetic_mnist()})
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0] == "epoch       main/loss   main/accuracy  validation/main/loss  validation/main/accuracy  elapsed_time"
    )
    assert [int(line.split()[0]) for line in out[1:11]] == list(range(1, 11))
    assert out[11] == f"label: {ns['t']}" and out[12].startswith("predicted_label: ")

    result = tmp_path / "mnist_result"
    with open(result / "log") as f:
        log = json.load(f)
    assert len(log) == 10
    assert log[-1]["main/loss"] < log[0]["main/loss"]
    assert log[-1]["validation/main/accuracy"] > 0.9
    files = set(os.listdir(result))
    assert {f"snapshot_epoch-{e}" for e in range(1, 11)} <= files
    assert {f"model_epoch-{e}" for e in range(1, 11)} <= files
    assert {"loss.png", "accuracy.png", "cg.dot", "log"} <= files
    assert_png(result / "loss.png")
    assert_png(result / "accuracy.png")
    # The model loaded from model_epoch-10 is the trained predictor.
    trained = ns["trainer"].updater.get_optimizer("main").target.predictor
    for (name, p), (_, q) in zip(sorted(ns["model"].namedparams()), sorted(trained.namedparams())):
        numpy.testing.assert_array_equal(p.array, q.array, err_msg=name)


def test_customize_your_own_logging_program(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    run_program(LOGGING, {"SYNTHETIC_MNIST": synthetic_mnist(n_train=200, n_test=100)})
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["/predictor", "/predictor/l1", "/predictor/l2", "/predictor/l3"]
    assert out[4] == "epoch       main/accuracy  main/loss   main/predictor/sum_y  validation/main/accuracy"
    values = out[5].split()
    assert values[0] == "1" and len(values) == 5
    with open(tmp_path / "result" / "log") as f:
        (entry,) = json.load(f)
    assert {
        "main/loss",
        "main/accuracy",
        "main/predictor/sum_y",
        "validation/main/loss",
        "validation/main/accuracy",
    } <= set(entry)
    assert float(values[3]) == pytest.approx(entry["main/predictor/sum_y"], rel=1e-5)
