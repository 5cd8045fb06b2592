#!/usr/bin/env python
"""Train a multi-layer perceptron on MNIST with a training loop written by hand.

The tutorial "MNIST with a Manual Training Loop" as one script: iterate mini-batches,
compute the loss, ``cleargrads``/``backward``/``update``, check the validation loss and
accuracy after every epoch, save the model with ``save_npz``, then load it into a fresh
network and classify a test image.

    python train_mnist_custom_loop.py                   # MNIST, downloaded on first use
    python train_mnist_custom_loop.py --device @cupy:0  # on GPU 0 (also: --device 0)
    python train_mnist_custom_loop.py --small           # a tiny synthetic MNIST
"""

import argparse
import os
import sys

import matplotlib.pyplot as plt
import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import serializers
from chainer.backends.cuda import to_cpu
from chainer.dataset import concat_examples


class MyNetwork(chainer.Chain):
    """Three fully-connected layers with ReLU in between."""

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


def save_image(x, path):
    plt.imshow(x.reshape(28, 28), cmap="gray")
    plt.savefig(path)
    plt.close()


def main():
    parser = argparse.ArgumentParser(description="Chainer example: MNIST with a manual training loop")
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
    parser.add_argument("--out", "-o", default="result", help="Directory to output the model and the images")
    parser.add_argument("--unit", "-u", type=int, default=100, help="Number of units in each hidden layer")
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
    os.makedirs(args.out, exist_ok=True)

    # 1. Prepare a dataset, and save one of its images to check it
    if args.small:
        train, test = make_small_mnist()
    else:
        try:
            train, test = chainer.datasets.get_mnist(withlabel=True, ndim=1)
        except OSError as error:
            sys.exit(f"Could not get MNIST ({error}).\nRun with --small to try the example on synthetic data.")
    x, t = train[0]
    save_image(x, os.path.join(args.out, "train_example.png"))
    print("label:", int(t))

    # 2. Create the dataset iterators
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    # 3. Define the network
    model = MyNetwork(args.unit)
    model.to_device(device)

    # 4. Select an optimization algorithm
    optimizer = chainer.optimizers.MomentumSGD(lr=0.01, momentum=0.9)
    optimizer.setup(model)

    # 5. The training loop
    while train_iter.epoch < args.epoch:
        # ---------- One iteration of the training loop ----------
        train_batch = train_iter.next()
        image_train, target_train = concat_examples(train_batch, device)

        # Calculate the prediction of the network
        prediction_train = model(image_train)

        # Calculate the loss with softmax_cross_entropy
        loss = F.softmax_cross_entropy(prediction_train, target_train)

        # Calculate the gradients in the network
        model.cleargrads()
        loss.backward()

        # Update all the trainable parameters
        optimizer.update()
        # --------------------- until here ---------------------

        # Check the validation accuracy of prediction after every epoch
        if train_iter.is_new_epoch:  # the iteration that ended an epoch
            # Display the training loss
            print(f"epoch:{train_iter.epoch:02d} train_loss:{float(to_cpu(loss.array)):.04f} ", end="")

            test_losses = []
            test_accuracies = []
            # Evaluation runs in test mode, without building the graph
            with chainer.using_config("train", False), chainer.no_backprop_mode():
                for test_batch in test_iter:
                    image_test, target_test = concat_examples(test_batch, device)

                    # Forward the test data
                    prediction_test = model(image_test)

                    # Calculate the loss
                    loss_test = F.softmax_cross_entropy(prediction_test, target_test)
                    test_losses.append(to_cpu(loss_test.array))

                    # Calculate the accuracy
                    accuracy = F.accuracy(prediction_test, target_test)
                    accuracy.to_cpu()
                    test_accuracies.append(accuracy.array)

            test_iter.reset()

            print(f"val_loss:{np.mean(test_losses):.04f} val_accuracy:{np.mean(test_accuracies):.04f}")

    # 6. Save the trained model
    model_path = os.path.join(args.out, "my_mnist.model")
    serializers.save_npz(model_path, model)

    # 7. Perform classification by the saved model
    model = MyNetwork(args.unit)
    serializers.load_npz(model_path, model)

    x, t = test[0]
    save_image(x, os.path.join(args.out, "test_example.png"))
    print("label:", int(t))

    # A mini-batch of one image: (784,) -> (1, 784)
    print(x.shape, end=" -> ")
    x = x[None, ...]
    print(x.shape)

    with chainer.using_config("train", False), chainer.no_backprop_mode():
        y = model(x)
    y = y.array
    pred_label = y.argmax(axis=1)
    print("predicted label:", int(pred_label[0]))


if __name__ == "__main__":
    main()
