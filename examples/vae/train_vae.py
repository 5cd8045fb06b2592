#!/usr/bin/env python
"""Train a variational autoencoder (VAE) on MNIST.

Chainer's classic VAE example: an MLP encoder gives the mean and the log variance of a
Gaussian over the latent vector ``z``, an MLP decoder gives the Bernoulli logits of the
784 pixels. The loss is the negative evidence lower bound: the reconstruction error
(``F.bernoulli_nll`` of the image under the decoder, with ``z`` sampled by
``F.gaussian``) plus ``beta`` times ``F.gaussian_kl_divergence`` from the standard
normal prior. After training, reconstructions and samples are written as images.

    python train_vae.py                       # MNIST, downloaded on first use
    python train_vae.py --device @cupy:0      # on GPU 0 (also: --device 0)
    python train_vae.py --small               # a tiny synthetic MNIST (also: --test)
"""

import argparse
import os
import sys

import matplotlib.pyplot as plt
import numpy as np

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions


class VAE(chainer.Chain):
    """Variational autoencoder with one hidden layer in the encoder and the decoder."""

    def __init__(self, n_in, n_latent, n_h):
        super().__init__()
        with self.init_scope():
            # encoder
            self.le1 = L.Linear(n_in, n_h)
            self.le2_mu = L.Linear(n_h, n_latent)
            self.le2_ln_var = L.Linear(n_h, n_latent)
            # decoder
            self.ld1 = L.Linear(n_latent, n_h)
            self.ld2 = L.Linear(n_h, n_in)

    def forward(self, x, sigmoid=True):
        """Reconstructs ``x`` from the mean of its latent distribution."""
        return self.decode(self.encode(x)[0], sigmoid)

    def encode(self, x):
        """The mean and the log variance of q(z | x)."""
        h1 = F.tanh(self.le1(x))
        mu = self.le2_mu(h1)
        ln_var = self.le2_ln_var(h1)
        return mu, ln_var

    def decode(self, z, sigmoid=True):
        """The pixel probabilities of p(x | z) (their logits with ``sigmoid=False``)."""
        h1 = F.tanh(self.ld1(z))
        h2 = self.ld2(h1)
        return F.sigmoid(h2) if sigmoid else h2

    def get_loss_func(self, beta=1.0, k=1):
        """The loss function of a mini-batch: the negative ELBO per example.

        Args:
            beta: The weight of the KL divergence term.
            k: The number of samples of ``z`` averaged in the reconstruction term.
        """

        def lf(x):
            mu, ln_var = self.encode(x)
            batchsize = len(mu)
            # reconstruction loss, averaged over k samples of z
            rec_loss = 0
            for _ in range(k):
                z = F.gaussian(mu, ln_var)
                rec_loss += F.bernoulli_nll(x, self.decode(z, sigmoid=False)) / (k * batchsize)
            # the KL divergence of q(z | x) from the prior N(0, I)
            kl = F.gaussian_kl_divergence(mu, ln_var) / batchsize
            loss = rec_loss + beta * kl
            chainer.report({"loss": loss, "rec_loss": rec_loss, "kl": kl}, observer=self)
            return loss

        return lf


def make_small_mnist(n_train=512, n_test=128, seed=0):
    """A tiny stand-in for MNIST images as the VAE reads them: 784-pixel float32 images
    in [0, 1] (one of ten fixed stroke patterns, shifted a pixel and noised)."""
    rng = np.random.RandomState(seed)
    prototypes = (rng.uniform(size=(10, 28, 28)) > 0.85).astype(np.float32)

    def sample(n):
        images = prototypes[rng.randint(0, 10, size=n)]
        images = np.roll(images, rng.randint(-1, 2), axis=1)
        images = images + rng.normal(0, 0.1, size=images.shape).astype(np.float32)
        return np.clip(images, 0, 1).reshape(n, 784)

    return sample(n_train), sample(n_test)


def save_images(x, filename):
    """Writes up to nine 28x28 images as a 3x3 grid."""
    fig, ax = plt.subplots(3, 3, figsize=(9, 9), dpi=50)
    for ai, xi in zip(ax.flatten(), x):
        ai.imshow(xi.reshape(28, 28), cmap="gray")
        ai.axis("off")
    fig.savefig(filename)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description="Chainer example: VAE")
    parser.add_argument("--initmodel", "-m", type=str, help="Initialize the model from given file")
    parser.add_argument("--resume", "-r", type=str, help="Resume the optimization from snapshot")
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="-1",
        help="Device specifier: '@numpy', '@cupy:N', or an integer "
        "(a negative one is the CPU, N >= 0 is GPU N, as in Chainer's older examples)",
    )
    parser.add_argument("--out", "-o", default="results", help="Directory to output the result")
    parser.add_argument("--epoch", "-e", default=100, type=int, help="number of epochs to learn")
    parser.add_argument("--dim-z", "-z", default=20, type=int, help="dimension of encoded vector")
    parser.add_argument("--dim-h", default=500, type=int, help="dimension of hidden layer")
    parser.add_argument(
        "--beta", default=1.0, type=float, help="Regularization coefficient for the second term of ELBO"
    )
    parser.add_argument("--k", default=1, type=int, help="Number of Monte Carlo samples used in encoded vector")
    parser.add_argument("--batchsize", "-b", type=int, default=100, help="learning minibatch size")
    parser.add_argument(
        "--small",
        "--test",
        dest="small",
        action="store_true",
        help="Use a tiny synthetic data set of MNIST's shapes (quick runs and tests)",
    )
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument(
        "--gpu", "-g", dest="device", type=int, nargs="?", const=0, help="GPU ID (negative value indicates CPU)"
    )
    args = parser.parse_args()

    device = chainer.get_device(args.device)
    device.use()

    print(f"Device: {device}")
    print(f"# dim z: {args.dim_z}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# epoch: {args.epoch}")
    print("")

    # Prepare the VAE model
    model = VAE(784, args.dim_z, args.dim_h)
    if args.initmodel is not None:
        chainer.serializers.load_npz(args.initmodel, model)
    model.to_device(device)

    # Set up an optimizer
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)

    # Load the dataset (images only)
    if args.small:
        train, test = make_small_mnist()
    else:
        try:
            train, test = chainer.datasets.get_mnist(withlabel=False)
        except OSError as error:
            sys.exit(f"Could not get MNIST ({error}).\nRun with --small to try the example on synthetic data.")

    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)
    test_iter = chainer.iterators.SerialIterator(test, args.batchsize, repeat=False, shuffle=False)

    # Set up an updater whose loss is the negative ELBO
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, device=device, loss_func=model.get_loss_func(beta=args.beta, k=args.k)
    )

    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
    trainer.extend(
        extensions.Evaluator(test_iter, model, device=device, eval_func=model.get_loss_func(beta=args.beta, k=10))
    )
    trainer.extend(extensions.DumpGraph("main/loss"))
    trainer.extend(extensions.snapshot(), trigger=(args.epoch, "epoch"))
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "main/loss", "validation/main/loss", "main/rec_loss", "validation/main/rec_loss", "elapsed_time"]
        )
    )
    trainer.extend(extensions.ProgressBar())

    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    # Run the training
    trainer.run()

    chainer.serializers.save_npz(os.path.join(args.out, "model.npz"), model)

    # Visualize the results: some images, their reconstructions, and new samples
    train_ind = [1, 3, 5, 10, 2, 0, 13, 15, 17]
    test_ind = [3, 2, 1, 18, 4, 8, 11, 17, 61]
    x = device.send(np.asarray(train[train_ind]))
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        x1 = model(x)
    save_images(chainer.backends.cuda.to_cpu(x), os.path.join(args.out, "train.png"))
    save_images(chainer.backends.cuda.to_cpu(x1.array), os.path.join(args.out, "train_reconstructed.png"))

    x = device.send(np.asarray(test[test_ind]))
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        x1 = model(x)
    save_images(chainer.backends.cuda.to_cpu(x), os.path.join(args.out, "test.png"))
    save_images(chainer.backends.cuda.to_cpu(x1.array), os.path.join(args.out, "test_reconstructed.png"))

    # Draw images from randomly sampled z
    z = chainer.Variable(np.random.normal(0, 1, (9, args.dim_z)).astype(np.float32))
    z.to_device(device)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        x = model.decode(z)
    save_images(chainer.backends.cuda.to_cpu(x.array), os.path.join(args.out, "sampled.png"))


if __name__ == "__main__":
    main()
