#!/usr/bin/env python
"""Generate images with a Deep Convolutional GAN (DCGAN) trained on CIFAR-10.

The tutorial "DCGAN: Generate images with Deep Convolutional GAN" as one script: a
generator of deconvolutions and batch normalization, a discriminator of convolutions with
leaky ReLU and noise, and ``DCGANUpdater``, a custom updater that takes turns at
minimizing the discriminator's and the generator's losses. Every ``--snapshot_interval``
iterations a 10x10 grid of generated images is written to ``<out>/preview/``.

    python train_dcgan.py                          # CIFAR-10, downloaded on first use
    python train_dcgan.py --dataset ~/my_images    # a directory of your own images
    python train_dcgan.py --device @cupy:0         # on GPU 0 (also: --device 0)
    python train_dcgan.py --small --ch 64          # tiny synthetic data, a small model
"""

import argparse
import os
import sys

import numpy
from PIL import Image

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import Variable, training
from chainer.training import extensions


class Generator(chainer.Chain):
    """Maps a latent vector to a (3, 32, 32) image in [0, 1]: a fully-connected layer
    to a ``bottom_width`` square of ``ch`` channels, then deconvolutions that double the
    size and halve the channels."""

    def __init__(self, n_hidden, bottom_width=4, ch=512, wscale=0.02):
        super().__init__()
        self.n_hidden = n_hidden
        self.ch = ch
        self.bottom_width = bottom_width

        with self.init_scope():
            w = chainer.initializers.Normal(wscale)
            self.l0 = L.Linear(self.n_hidden, bottom_width * bottom_width * ch, initialW=w)
            self.dc1 = L.Deconvolution2D(ch, ch // 2, 4, 2, 1, initialW=w)
            self.dc2 = L.Deconvolution2D(ch // 2, ch // 4, 4, 2, 1, initialW=w)
            self.dc3 = L.Deconvolution2D(ch // 4, ch // 8, 4, 2, 1, initialW=w)
            self.dc4 = L.Deconvolution2D(ch // 8, 3, 3, 1, 1, initialW=w)
            self.bn0 = L.BatchNormalization(bottom_width * bottom_width * ch)
            self.bn1 = L.BatchNormalization(ch // 2)
            self.bn2 = L.BatchNormalization(ch // 4)
            self.bn3 = L.BatchNormalization(ch // 8)

    def make_hidden(self, batchsize):
        dtype = chainer.get_dtype()
        return numpy.random.uniform(-1, 1, (batchsize, self.n_hidden, 1, 1)).astype(dtype)

    def forward(self, z):
        h = F.reshape(F.relu(self.bn0(self.l0(z))), (len(z), self.ch, self.bottom_width, self.bottom_width))
        h = F.relu(self.bn1(self.dc1(h)))
        h = F.relu(self.bn2(self.dc2(h)))
        h = F.relu(self.bn3(self.dc3(h)))
        x = F.sigmoid(self.dc4(h))
        return x


def add_noise(device, h, sigma=0.2):
    """Gaussian noise on every intermediate output of the discriminator, in training."""
    if chainer.config.train:
        xp = device.xp
        return h + sigma * xp.random.randn(*h.shape).astype(h.dtype)
    return h


class Discriminator(chainer.Chain):
    """Scores an image: real (high) or generated (low). Mirrors the generator with
    strided convolutions and leaky ReLU, and adds noise to each layer's input."""

    def __init__(self, bottom_width=4, ch=512, wscale=0.02):
        w = chainer.initializers.Normal(wscale)
        super().__init__()
        with self.init_scope():
            self.c0_0 = L.Convolution2D(3, ch // 8, 3, 1, 1, initialW=w)
            self.c0_1 = L.Convolution2D(ch // 8, ch // 4, 4, 2, 1, initialW=w)
            self.c1_0 = L.Convolution2D(ch // 4, ch // 4, 3, 1, 1, initialW=w)
            self.c1_1 = L.Convolution2D(ch // 4, ch // 2, 4, 2, 1, initialW=w)
            self.c2_0 = L.Convolution2D(ch // 2, ch // 2, 3, 1, 1, initialW=w)
            self.c2_1 = L.Convolution2D(ch // 2, ch // 1, 4, 2, 1, initialW=w)
            self.c3_0 = L.Convolution2D(ch // 1, ch // 1, 3, 1, 1, initialW=w)
            self.l4 = L.Linear(bottom_width * bottom_width * ch, 1, initialW=w)
            self.bn0_1 = L.BatchNormalization(ch // 4, use_gamma=False)
            self.bn1_0 = L.BatchNormalization(ch // 4, use_gamma=False)
            self.bn1_1 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2_0 = L.BatchNormalization(ch // 2, use_gamma=False)
            self.bn2_1 = L.BatchNormalization(ch // 1, use_gamma=False)
            self.bn3_0 = L.BatchNormalization(ch // 1, use_gamma=False)

    def forward(self, x):
        device = self.device
        h = add_noise(device, x)
        h = F.leaky_relu(add_noise(device, self.c0_0(h)))
        h = F.leaky_relu(add_noise(device, self.bn0_1(self.c0_1(h))))
        h = F.leaky_relu(add_noise(device, self.bn1_0(self.c1_0(h))))
        h = F.leaky_relu(add_noise(device, self.bn1_1(self.c1_1(h))))
        h = F.leaky_relu(add_noise(device, self.bn2_0(self.c2_0(h))))
        h = F.leaky_relu(add_noise(device, self.bn2_1(self.c2_1(h))))
        h = F.leaky_relu(add_noise(device, self.bn3_0(self.c3_0(h))))
        return self.l4(h)


class DCGANUpdater(chainer.training.updaters.StandardUpdater):
    """One iteration: score a real and a generated batch, then update the discriminator
    and the generator, each with its own optimizer and loss."""

    def __init__(self, *args, **kwargs):
        self.gen, self.dis = kwargs.pop("models")
        super().__init__(*args, **kwargs)

    def loss_dis(self, dis, y_fake, y_real):
        batchsize = len(y_fake)
        L1 = F.sum(F.softplus(-y_real)) / batchsize
        L2 = F.sum(F.softplus(y_fake)) / batchsize
        loss = L1 + L2
        chainer.report({"loss": loss}, dis)
        return loss

    def loss_gen(self, gen, y_fake):
        batchsize = len(y_fake)
        loss = F.sum(F.softplus(-y_fake)) / batchsize
        chainer.report({"loss": loss}, gen)
        return loss

    def update_core(self):
        gen_optimizer = self.get_optimizer("gen")
        dis_optimizer = self.get_optimizer("dis")

        batch = self.get_iterator("main").next()
        device = self.device
        x_real = Variable(self.converter(batch, device)) / 255.0

        gen, dis = self.gen, self.dis
        batchsize = len(batch)

        y_real = dis(x_real)

        z = Variable(device.xp.asarray(gen.make_hidden(batchsize)))
        x_fake = gen(z)
        y_fake = dis(x_fake)

        dis_optimizer.update(self.loss_dis, dis, y_fake, y_real)
        gen_optimizer.update(self.loss_gen, gen, y_fake)


def out_generated_image(gen, dis, rows, cols, seed, dst):
    """An extension that writes a ``rows`` x ``cols`` grid of generated images (the same
    latent vectors every time, from ``seed``) to ``<dst>/preview/image<iteration>.png``."""

    @chainer.training.make_extension()
    def make_image(trainer):
        # The preview draws its latent vectors from a fixed seed without disturbing the
        # random numbers of the training that goes on after it.
        training_state = numpy.random.get_state()
        numpy.random.seed(seed)
        n_images = rows * cols
        xp = gen.xp
        z = Variable(xp.asarray(gen.make_hidden(n_images)))
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            x = gen(z)
        x = chainer.backends.cuda.to_cpu(x.array)
        numpy.random.set_state(training_state)

        x = numpy.asarray(numpy.clip(x * 255, 0.0, 255.0), dtype=numpy.uint8)
        _, _, H, W = x.shape
        x = x.reshape((rows, cols, 3, H, W))
        x = x.transpose(0, 3, 1, 4, 2)
        x = x.reshape((rows * H, cols * W, 3))

        preview_dir = os.path.join(dst, "preview")
        os.makedirs(preview_dir, exist_ok=True)
        preview_path = os.path.join(preview_dir, f"image{trainer.updater.iteration:0>8}.png")
        Image.fromarray(x).save(preview_path)

    return make_image


def make_small_images(n=64, seed=0):
    """A tiny stand-in for CIFAR-10 images as the DCGAN reads them: (3, 32, 32) float32
    arrays with values in [0, 255] (soft coloured discs on a dark background)."""
    rng = numpy.random.RandomState(seed)
    yy, xx = numpy.mgrid[0:32, 0:32].astype(numpy.float32)
    centres = rng.uniform(8, 24, size=(n, 2, 1, 1)).astype(numpy.float32)
    radius = rng.uniform(4, 10, size=(n, 1, 1)).astype(numpy.float32)
    disc = ((xx - centres[:, 0]) ** 2 + (yy - centres[:, 1]) ** 2 < radius**2).astype(numpy.float32)
    colours = rng.uniform(0.3, 1.0, size=(n, 3, 1, 1)).astype(numpy.float32)
    return (255 * colours * disc[:, None]).astype(numpy.float32)


def main():
    parser = argparse.ArgumentParser(description="Chainer example: DCGAN")
    parser.add_argument("--batchsize", "-b", type=int, default=50, help="Number of images in each mini-batch")
    parser.add_argument("--epoch", "-e", type=int, default=1000, help="Number of sweeps over the dataset to train")
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="-1",
        help="Device specifier: '@numpy', '@cupy:N', or an integer "
        "(a negative one is the CPU, N >= 0 is GPU N, as in Chainer's older examples)",
    )
    parser.add_argument(
        "--dataset", "-i", default="", help="Directory of image files. Default is cifar-10 (the training images)."
    )
    parser.add_argument("--out", "-o", default="result", help="Directory to output the result")
    parser.add_argument("--resume", "-r", type=str, help="Resume the training from a trainer snapshot")
    parser.add_argument("--n_hidden", "-n", type=int, default=100, help="Number of hidden units (z)")
    parser.add_argument("--ch", type=int, default=512, help="Number of channels of the widest layer")
    parser.add_argument("--seed", type=int, default=0, help="Random seed of z at visualization stage")
    parser.add_argument(
        "--train_seed", type=int, default=None, help="Random seed of the training (initial weights, z, order)"
    )
    parser.add_argument("--snapshot_interval", type=int, default=1000, help="Interval of snapshot (iterations)")
    parser.add_argument("--display_interval", type=int, default=100, help="Interval of displaying log (iterations)")
    parser.add_argument(
        "--small", action="store_true", help="Use a tiny synthetic data set of CIFAR's shapes (quick runs and tests)"
    )
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument(
        "--gpu", "-g", dest="device", type=int, nargs="?", const=0, help="GPU ID (negative value indicates CPU)"
    )
    args = parser.parse_args()
    if args.train_seed is not None:
        numpy.random.seed(args.train_seed)

    device = chainer.get_device(args.device)
    device.use()

    print(f"Device: {device}")
    print(f"# Minibatch-size: {args.batchsize}")
    print(f"# n_hidden: {args.n_hidden}")
    print(f"# epoch: {args.epoch}")
    print("")

    # Set up the generator, the discriminator and their optimizers
    gen = Generator(n_hidden=args.n_hidden, ch=args.ch)
    dis = Discriminator(ch=args.ch)
    gen.to_device(device)
    dis.to_device(device)

    def make_optimizer(model, alpha=0.0002, beta1=0.5):
        optimizer = chainer.optimizers.Adam(alpha=alpha, beta1=beta1)
        optimizer.setup(model)
        optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0001), "hook_dec")
        return optimizer

    opt_gen = make_optimizer(gen)
    opt_dis = make_optimizer(dis)

    # The images, with pixel values in [0, 255]
    if args.small:
        train = make_small_images()
    elif args.dataset:
        all_files = sorted(os.listdir(args.dataset))
        image_files = [f for f in all_files if f.lower().endswith((".png", ".jpg", ".jpeg"))]
        print(f"{len(image_files)} images found in {args.dataset}")
        train = chainer.datasets.ImageDataset(image_files, root=args.dataset)
    else:
        try:
            train, _ = chainer.datasets.get_cifar10(withlabel=False, scale=255.0)
        except OSError as error:
            sys.exit(f"Could not get CIFAR-10 ({error}).\nRun with --small to try the example on synthetic data.")
    train_iter = chainer.iterators.SerialIterator(train, args.batchsize)

    updater = DCGANUpdater(
        models=(gen, dis), iterator=train_iter, optimizer={"gen": opt_gen, "dis": opt_dis}, device=device
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    snapshot_interval = (args.snapshot_interval, "iteration")
    display_interval = (args.display_interval, "iteration")
    trainer.extend(extensions.snapshot(filename="snapshot_iter_{.updater.iteration}.npz"), trigger=snapshot_interval)
    trainer.extend(extensions.snapshot_object(gen, "gen_iter_{.updater.iteration}.npz"), trigger=snapshot_interval)
    trainer.extend(extensions.snapshot_object(dis, "dis_iter_{.updater.iteration}.npz"), trigger=snapshot_interval)
    trainer.extend(extensions.LogReport(trigger=display_interval))
    trainer.extend(extensions.PrintReport(["epoch", "iteration", "gen/loss", "dis/loss"]), trigger=display_interval)
    trainer.extend(extensions.ProgressBar(update_interval=10))
    trainer.extend(out_generated_image(gen, dis, 10, 10, args.seed, args.out), trigger=snapshot_interval)

    if args.resume:
        chainer.serializers.load_npz(args.resume, trainer)

    trainer.run()


if __name__ == "__main__":
    main()
