#!/usr/bin/env python
"""Train the convolutional networks of the tutorial on CIFAR-10 or CIFAR-100.

The tutorial "Convolutional Network for Visual Recognition Tasks" writes three models:
LeNet5 (a ``Chain``), VGG16 (a ``ChainList`` of blocks) and ResNet152 (bottleneck
blocks in ``ChainList`` s). This script trains the one chosen with ``--arch`` with
``L.Classifier``, ``MomentumSGD`` and a ``Trainer``.

    python train_cifar.py --arch vgg16                 # CIFAR-10, downloaded on first use
    python train_cifar.py --arch resnet152 --dataset cifar100 --device @cupy:0
    python train_cifar.py --arch lenet5 --small        # tiny synthetic CIFAR-shaped data

The models differ from the tutorial in two small ways: the number of classes is an
argument (10 or 100 instead of ImageNet's 1000), and they return the scores in test
mode too, instead of their softmax: ``L.Classifier`` applies ``softmax_cross_entropy``
to the output, so the validation loss is right only on scores. Use
``F.softmax(model(x))`` for the probabilities.
"""

import argparse
import sys

import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

# ----------------------------------------------------------------------------- LeNet5


class LeNet5(chainer.Chain):
    """LeNet5 as simplified in the Deep Learning Tutorials: three convolutions with
    sigmoid activations and max pooling, then two fully-connected layers."""

    def __init__(self, n_class=10):
        super().__init__()
        with self.init_scope():
            # in_channels=None: inferred at the first call (1 for MNIST, 3 for CIFAR).
            self.conv1 = L.Convolution2D(in_channels=None, out_channels=6, ksize=5, stride=1)
            self.conv2 = L.Convolution2D(in_channels=6, out_channels=16, ksize=5, stride=1)
            self.conv3 = L.Convolution2D(in_channels=16, out_channels=120, ksize=4, stride=1)
            self.fc4 = L.Linear(None, 84)
            self.fc5 = L.Linear(84, n_class)

    def forward(self, x):
        h = F.sigmoid(self.conv1(x))
        h = F.max_pooling_2d(h, 2, 2)
        h = F.sigmoid(self.conv2(h))
        h = F.max_pooling_2d(h, 2, 2)
        h = F.sigmoid(self.conv3(h))
        h = F.sigmoid(self.fc4(h))
        return self.fc5(h)


# ------------------------------------------------------------------------------ VGG16


class VGGBlock(chainer.Chain):
    """Two or three 3x3 convolutions with ReLU, then 2x2 max pooling; the last block
    also holds the three fully-connected layers."""

    def __init__(self, n_channels, n_convs=2, fc=False, n_class=10):
        w = chainer.initializers.HeNormal()
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, n_channels, 3, 1, 1, initialW=w)
            self.conv2 = L.Convolution2D(n_channels, n_channels, 3, 1, 1, initialW=w)
            if n_convs == 3:
                self.conv3 = L.Convolution2D(n_channels, n_channels, 3, 1, 1, initialW=w)
            if fc:
                self.fc4 = L.Linear(None, 4096, initialW=w)
                self.fc5 = L.Linear(4096, 4096, initialW=w)
                self.fc6 = L.Linear(4096, n_class, initialW=w)
        self.n_convs = n_convs
        self.fc = fc

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.relu(self.conv2(h))
        if self.n_convs == 3:
            h = F.relu(self.conv3(h))
        h = F.max_pooling_2d(h, 2, 2)
        if self.fc:
            h = F.dropout(F.relu(self.fc4(h)))
            h = F.dropout(F.relu(self.fc5(h)))
            h = self.fc6(h)
        return h


class VGG16(chainer.ChainList):
    """VGG16: five blocks of convolutions, the last one with the classifier."""

    def __init__(self, n_class=10):
        super().__init__(
            VGGBlock(64),
            VGGBlock(128),
            VGGBlock(256, 3),
            VGGBlock(512, 3),
            VGGBlock(512, 3, True, n_class),
        )

    def forward(self, x):
        for f in self.children():
            x = f(x)
        return x


# -------------------------------------------------------------------------- ResNet152


class BottleNeck(chainer.Chain):
    """1x1, 3x3, 1x1 convolutions with batch normalization and a shortcut; with
    ``proj`` the shortcut is a strided 1x1 convolution that matches the shapes."""

    def __init__(self, n_in, n_mid, n_out, stride=1, proj=False):
        w = chainer.initializers.HeNormal()
        super().__init__()
        with self.init_scope():
            self.conv1x1a = L.Convolution2D(n_in, n_mid, 1, stride, 0, initialW=w, nobias=True)
            self.conv3x3b = L.Convolution2D(n_mid, n_mid, 3, 1, 1, initialW=w, nobias=True)
            self.conv1x1c = L.Convolution2D(n_mid, n_out, 1, 1, 0, initialW=w, nobias=True)
            self.bn_a = L.BatchNormalization(n_mid)
            self.bn_b = L.BatchNormalization(n_mid)
            self.bn_c = L.BatchNormalization(n_out)
            if proj:
                self.conv1x1r = L.Convolution2D(n_in, n_out, 1, stride, 0, initialW=w, nobias=True)
                self.bn_r = L.BatchNormalization(n_out)
        self.proj = proj

    def forward(self, x):
        h = F.relu(self.bn_a(self.conv1x1a(x)))
        h = F.relu(self.bn_b(self.conv3x3b(h)))
        h = self.bn_c(self.conv1x1c(h))
        if self.proj:
            x = self.bn_r(self.conv1x1r(x))
        return F.relu(h + x)


class ResBlock(chainer.ChainList):
    """``n_layers`` bottlenecks, the first of which projects the shortcut."""

    def __init__(self, n_layers, n_in, n_mid, n_out, stride=2):
        super().__init__()
        self.add_link(BottleNeck(n_in, n_mid, n_out, stride, True))
        for _ in range(n_layers - 1):
            self.add_link(BottleNeck(n_out, n_mid, n_out))

    def forward(self, x):
        for f in self.children():
            x = f(x)
        return x


class ResNet152(chainer.Chain):
    """ResNet-152: a 7x7 convolution, four stages of 3, 8, 36 and 3 bottlenecks, global
    average pooling and a fully-connected classifier."""

    def __init__(self, n_class=10, n_blocks=(3, 8, 36, 3)):
        w = chainer.initializers.HeNormal()
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, 64, 7, 2, 3, initialW=w, nobias=True)
            self.bn1 = L.BatchNormalization(64)
            self.res2 = ResBlock(n_blocks[0], 64, 64, 256, 1)
            self.res3 = ResBlock(n_blocks[1], 256, 128, 512)
            self.res4 = ResBlock(n_blocks[2], 512, 256, 1024)
            self.res5 = ResBlock(n_blocks[3], 1024, 512, 2048)
            self.fc6 = L.Linear(2048, n_class)

    def forward(self, x):
        h = self.bn1(self.conv1(x))
        h = F.max_pooling_2d(F.relu(h), 2, 2)
        h = self.res2(h)
        h = self.res3(h)
        h = self.res4(h)
        h = self.res5(h)
        h = F.average_pooling_2d(h, h.shape[2:], stride=1)
        return self.fc6(h)


ARCHS = {"lenet5": LeNet5, "vgg16": VGG16, "resnet152": ResNet152}


def make_small_cifar(n_class, n_train=32, n_test=16, seed=0):
    """A tiny stand-in for CIFAR with its shapes and dtypes: (3, 32, 32) float32 images in
    [0, 1] and int32 labels. Each class is a colour and a direction of stripes, with
    noise, so that a convolutional network learns it within a few epochs."""
    rng = np.random.RandomState(seed)
    colours = rng.uniform(0.2, 1.0, size=(n_class, 3, 1, 1)).astype(np.float32)
    angles = rng.uniform(0, np.pi, size=n_class)
    yy, xx = np.mgrid[0:32, 0:32].astype(np.float32)

    def sample(n):
        labels = rng.randint(0, n_class, size=n).astype(np.int32)
        phase = rng.uniform(0, 2 * np.pi, size=(n, 1, 1))
        a = angles[labels][:, None, None]
        stripes = 0.5 + 0.5 * np.sin((np.cos(a) * xx + np.sin(a) * yy) * 0.8 + phase)
        images = colours[labels] * stripes[:, None].astype(np.float32)
        images += rng.normal(0, 0.1, size=images.shape).astype(np.float32)
        return chainer.datasets.TupleDataset(np.clip(images, 0, 1), labels)

    return sample(n_train), sample(n_test)


def main():
    parser = argparse.ArgumentParser(description="Chainer example: CIFAR-10/100 with LeNet5, VGG16 or ResNet152")
    parser.add_argument("--arch", "-a", choices=sorted(ARCHS), default="vgg16", help="Network architecture")
    parser.add_argument("--dataset", choices=["cifar10", "cifar100"], default="cifar10", help="The dataset to use")
    parser.add_argument("--batchsize", "-b", type=int, default=64, help="Number of images in each mini-batch")
    parser.add_argument("--learnrate", "-l", type=float, default=0.05, help="Learning rate for SGD")
    parser.add_argument("--epoch", "-e", type=int, default=300, help="Number of sweeps over the dataset to train")
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="-1",
        help="Device specifier: '@numpy', '@cupy:N', or an integer "
        "(a negative one is the CPU, N >= 0 is GPU N, as in Chainer's older examples)",
    )
    parser.add_argument("--out", "-o", default="result", help="Directory to output the result")
    parser.add_argument("--resume", "-r", type=str, help="Resume the training from a trainer snapshot")
    parser.add_argument("--noplot", dest="plot", action="store_false", help="Disable PlotReport extension")
    parser.add_argument(
        "--small", action="store_true", help="Use a tiny synthetic data set of CIFAR's shapes (quick runs and tests)"
    )
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument(
        "--gpu", "-g", dest="device", type=int, nargs="?", const=0, help="GPU ID (negative value indicates CPU)"
    )
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    device.use()

    print(f"Device: {device}")
    print(f"# Architecture: {args.arch}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    n_class = 10 if args.dataset == "cifar10" else 100
    if args.small:
        train, test = make_small_cifar(n_class)
    else:
        get = chainer.datasets.get_cifar10 if args.dataset == "cifar10" else chainer.datasets.get_cifar100
        try:
            train, test = get()
        except OSError as error:
            sys.exit(f"Could not get {args.dataset} ({error}).\nRun with --small to try it on synthetic data.")

    model = L.Classifier(ARCHS[args.arch](n_class))
    model.to_device(device)

    optimizer = chainer.optimizers.MomentumSGD(args.learnrate)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(5e-4))

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    # Halve the learning rate every 25 epochs.
    trainer.extend(extensions.ExponentialShift("lr", 0.5), trigger=(25, "epoch"))
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.extend(extensions.snapshot(filename="snapshot_epoch-{.updater.epoch}"))
    trainer.extend(extensions.snapshot_object(model.predictor, filename="model_epoch-{.updater.epoch}"))
    trainer.extend(extensions.LogReport())
    if args.plot and extensions.PlotReport.available():
        trainer.extend(extensions.PlotReport(["main/loss", "validation/main/loss"], x_key="epoch", filename="loss.png"))
        trainer.extend(
            extensions.PlotReport(["main/accuracy", "validation/main/accuracy"], x_key="epoch", filename="accuracy.png")
        )
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy", "elapsed_time"]
        )
    )
    trainer.extend(extensions.ProgressBar(update_interval=10))

    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()


if __name__ == "__main__":
    main()
