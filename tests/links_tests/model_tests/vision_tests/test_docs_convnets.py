"""The VGG16 and ResNet152 definitions of the documentation's "Write a convnet" chapter
(copied as written there) build and take one training step on small random data."""

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import optimizers


class VGG16(chainer.ChainList):
    def __init__(self):
        super().__init__(VGGBlock(64), VGGBlock(128), VGGBlock(256, 3), VGGBlock(512, 3), VGGBlock(512, 3, True))

    def forward(self, x):
        for f in self.children():
            x = f(x)
        if chainer.config.train:
            return x
        return F.softmax(x)


class VGGBlock(chainer.Chain):
    def __init__(self, n_channels, n_convs=2, fc=False):
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
                self.fc6 = L.Linear(4096, 1000, initialW=w)
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


class ResNet152(chainer.Chain):
    def __init__(self, n_blocks=[3, 8, 36, 3]):  # noqa: B006 - as in the documentation
        w = chainer.initializers.HeNormal()
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(None, 64, 7, 2, 3, initialW=w, nobias=True)
            self.bn1 = L.BatchNormalization(64)
            self.res2 = ResBlock(n_blocks[0], 64, 64, 256, 1)
            self.res3 = ResBlock(n_blocks[1], 256, 128, 512)
            self.res4 = ResBlock(n_blocks[2], 512, 256, 1024)
            self.res5 = ResBlock(n_blocks[3], 1024, 512, 2048)
            self.fc6 = L.Linear(2048, 1000)

    def forward(self, x):
        h = self.bn1(self.conv1(x))
        h = F.max_pooling_2d(F.relu(h), 2, 2)
        h = self.res2(h)
        h = self.res3(h)
        h = self.res4(h)
        h = self.res5(h)
        h = F.average_pooling_2d(h, h.shape[2:], stride=1)
        h = self.fc6(h)
        if chainer.config.train:
            return h
        return F.softmax(h)


class ResBlock(chainer.ChainList):
    def __init__(self, n_layers, n_in, n_mid, n_out, stride=2):
        super().__init__()
        self.add_link(BottleNeck(n_in, n_mid, n_out, stride, True))
        for _ in range(n_layers - 1):
            self.add_link(BottleNeck(n_out, n_mid, n_out))

    def forward(self, x):
        for f in self.children():
            x = f(x)
        return x


class BottleNeck(chainer.Chain):
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


def one_training_step(model, x, t, watched):
    """One MomentumSGD step; returns the loss and which of the ``watched`` parameters changed."""
    optimizer = optimizers.MomentumSGD(lr=0.01)
    optimizer.setup(model)
    loss = F.softmax_cross_entropy(model(x), t)  # this forward also creates the lazily sized parameters
    params = dict(model.namedparams())
    before = {path: params[path].array.copy() for path in watched}
    model.cleargrads()
    loss.backward()
    optimizer.update()
    assert numpy.isfinite(float(loss.array))
    assert not [path for path, param in params.items() if param.grad is None]
    return loss, [path for path in watched if not numpy.array_equal(params[path].array, before[path])]


@pytest.mark.slow
def test_docs_vgg16_trains_one_step():
    model = VGG16()
    x = numpy.random.randn(2, 3, 32, 32).astype(numpy.float32)
    t = numpy.array([3, 7], numpy.int32)
    watched = ["/0/conv1/W", "/0/conv1/b", "/2/conv3/W", "/4/fc4/W", "/4/fc6/b"]
    loss, changed = one_training_step(model, x, t, watched)
    assert model[4].fc4.W.shape == (4096, 512)  # 32x32 inputs: 512 features at the last pooling
    assert changed == watched
    with chainer.using_config("train", False):
        prob = model(x)
    assert prob.shape == (2, 1000)
    numpy.testing.assert_allclose(prob.array.sum(axis=1), 1, rtol=1e-5)


@pytest.mark.slow
def test_docs_resnet152_trains_one_step():
    model = ResNet152()
    x = numpy.random.randn(2, 3, 32, 32).astype(numpy.float32)
    t = numpy.array([1, 998], numpy.int32)
    watched = ["/conv1/W", "/bn1/gamma", "/res2/0/conv1x1r/W", "/res4/35/conv3x3b/W", "/res5/2/bn_c/beta", "/fc6/W"]
    loss, changed = one_training_step(model, x, t, watched)
    n_convs = sum(1 for path, _ in model.namedparams() if path.endswith("/W") and "conv" in path)
    assert n_convs == 1 + 3 * (3 + 8 + 36 + 3) + 4  # 151 convolutions (+ the final fc: 152 layers)
    assert changed == watched
    # (No test-mode call: after one step the running statistics are still mostly their
    # initial values, and 50 unnormalised residual blocks overflow float32.)
