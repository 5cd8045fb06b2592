#!/usr/bin/env python
"""Train a multi-layer perceptron on MNIST with the Trainer.

The tutorial "MNIST using Trainer" as one script: an MLP wrapped in ``L.Classifier``,
``MomentumSGD``, a ``StandardUpdater`` and a ``Trainer`` with the extensions the
tutorial lists (log, snapshots, evaluation, printed and plotted reports, the
computational graph). At the end the last model snapshot is loaded into a fresh MLP
that classifies a test image, as in the tutorial's last section.

    python train_mnist.py                     # MNIST, downloaded on first use
    python train_mnist.py --device @cupy:0    # on GPU 0 (also: --device 0)
    python train_mnist.py --small             # a tiny synthetic MNIST, a few seconds
"""

import argparse
import os
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class MLP(chainer.Chain):
    """Three fully-connected layers with ReLU in between."""

    def __init__(self, n_mid_units=100, n_out=10):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_mid_units)
            self.l2 = L.Linear(None, n_mid_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def make_small_mnist(n_train=512, n_test=128, seed=0):
    """A tiny stand-in for MNIST with its shapes and dtypes: 784-pixel float32 images in
    [0, 1] (a fixed random stroke pattern per class, shifted a pixel and noised) and int32
    labels. It is learnable, so the loss falls within a few epochs."""
    rng = np.random.RandomState(seed)
    prototypes = (rng.uniform(size=(10, 28, 28)) > 0.85).astype(np.float32)

    def sample(n):
        labels = rng.randint(0, 10, size=n).astype(np.int32)
        images = prototypes[labels]
        images = np.roll(images, rng.randint(-1, 2), axis=1)
        images = images + rng.normal(0, 0.2, size=images.shape).astype(np.float32)
        images = np.clip(images, 0, 1).reshape(n, 784)
        return chainer.datasets.TupleDataset(images, labels)

    return sample(n_train), sample(n_test)


def main():
    parser = argparse.ArgumentParser(description="Chainer example: MNIST with the Trainer")
    parser.add_argument("--batchsize", "-b", type=int, default=128, help="Number of images in each mini-batch")
    parser.add_argument("--epoch", "-e", type=int, default=10, help="Number of sweeps over the dataset to train")
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="-1",
        help="Device specifier: '@numpy', '@cupy:N', or an integer "
        "(a negative one is the CPU, N >= 0 is GPU N, as in Chainer's older examples)",
    )
    parser.add_argument("--out", "-o", default="mnist_result", help="Directory to output the result")
    parser.add_argument("--resume", "-r", type=str, help="Resume the training from a trainer snapshot")
    parser.add_argument("--unit", "-u", type=int, default=100, help="Number of units in each hidden layer")
    parser.add_argument("--noplot", dest="plot", action="store_false", help="Disable PlotReport extension")
    parser.add_argument(
        "--small", action="store_true", help="Use a tiny synthetic data set of MNIST's shapes (quick runs and tests)"
    )
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument(
        "--gpu", "-g", dest="device", type=int, nargs="?", const=0, help="GPU ID (negative value indicates CPU)"
    )
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    device.use()

    print(f"Device: {device}")
    print(f"# unit: {args.unit}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    # 1. Prepare the dataset
    if args.small:
        train, test = make_small_mnist()
    else:
        try:
            train, test = chainer.datasets.get_mnist()
        except OSError as error:
            sys.exit(f"Could not get MNIST ({error}).\nRun with --small to try the example on synthetic data.")

    # 2. Prepare the dataset iterators
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    # 3. Prepare the model: the loss (softmax cross entropy) is computed by the Classifier.
    model = L.Classifier(MLP(args.unit, 10))
    model.to_device(device)

    # 4. Prepare the optimizer and the updater
    optimizer = chainer.optimizers.MomentumSGD()
    optimizer.setup(model)
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)

    # 5. Set up the trainer
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    # 6. Add extensions
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.snapshot(filename="snapshot_epoch-{.updater.epoch}"))
    trainer.extend(extensions.snapshot_object(model.predictor, filename="model_epoch-{.updater.epoch}"))
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(
        extensions.PrintReport(
            [
                "epoch",
                "main/loss",
                "main/accuracy",
                "validation/main/loss",
                "validation/main/accuracy",
                "elapsed_time",
            ]
        )
    )
    if args.plot and extensions.PlotReport.available():
        trainer.extend(extensions.PlotReport(["main/loss", "validation/main/loss"], x_key="epoch", filename="loss.png"))
        trainer.extend(
            extensions.PlotReport(["main/accuracy", "validation/main/accuracy"], x_key="epoch", filename="accuracy.png")
        )
    trainer.extend(extensions.DumpGraph("main/loss"))

    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    # 7. Start training
    trainer.run()

    # 8. Evaluate the trained model, loaded from its last snapshot into a fresh MLP
    model = MLP(args.unit, 10)
    chainer.serializers.load_npz(os.path.join(args.out, f"model_epoch-{args.epoch}"), model)
    x, t = test[0]
    print("label:", int(t))
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        y = model(x[None, ...])
    print("predicted_label:", int(y.array.argmax(axis=1)[0]))


if __name__ == "__main__":
    main()
