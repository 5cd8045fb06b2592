"""VGG16Layers and VGG19Layers: layer names, parameter shapes and counts, initialisation and
forward shapes. Building them draws ~140M normal samples, so these tests are slow."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import initializers
from chainer.links.model.vision import vgg


def layer_names(blocks):
    names = []
    for block, n in enumerate(blocks, start=1):
        names += [f"conv{block}_{i}" for i in range(1, n + 1)] + [f"pool{block}"]
    return names + ["fc6", "fc7", "fc8", "prob"]


@pytest.fixture(scope="module")
def fast_big_normals():
    """Draw the big Normal(0.01) matrices (fc6, fc7: 100M+ samples) from NumPy's faster
    Generator; the legacy global stream alone takes ~20 s for one VGG here. Small arrays
    still go through the initializer unchanged."""
    original = initializers.Normal.__call__
    rng = numpy.random.default_rng(0)

    def call(self, array):
        if array.size < 2**20:
            return original(self, array)
        array[...] = rng.standard_normal(array.shape, dtype=numpy.float32) * self.scale

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(initializers.Normal, "__call__", call)
        yield


@pytest.fixture(scope="module")
def vgg16(fast_big_normals):
    return L.VGG16Layers(pretrained_model=None)


@pytest.mark.slow
def test_vgg16_structure_and_initialisation(vgg16):
    assert vgg16.available_layers == layer_names((2, 2, 3, 3, 3))
    assert isinstance(vgg16, vgg.VGGLayers)
    params = dict(vgg16.namedparams())
    assert params["/conv1_1/W"].shape == (64, 3, 3, 3)
    assert params["/conv3_3/W"].shape == (256, 256, 3, 3)
    assert params["/conv5_3/b"].shape == (512,)
    assert params["/fc6/W"].shape == (4096, 512 * 7 * 7)
    assert params["/fc8/W"].shape == (1000, 4096)
    assert vgg16.count_params() == 138357544  # the published VGG-16 size
    # Normal(0.01) weights and zero biases, as in the paper.
    for name in ("conv1_1", "conv3_2", "fc6", "fc8"):
        initializer = getattr(vgg16, name).W.initializer
        assert isinstance(initializer, initializers.Normal) and initializer.scale == 0.01
    w = vgg16.conv3_2.W.array
    assert abs(w.std() - 0.01) < 5e-4 and abs(w.mean()) < 5e-4
    assert not vgg16.conv4_2.b.array.any()


@pytest.mark.slow
def test_vgg16_forward_shapes(vgg16):
    x = numpy.random.randn(2, 3, 32, 32).astype(numpy.float32)
    conv_layers = [name for name in vgg16.available_layers if name.startswith(("conv", "pool"))]
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        out = vgg16(x, layers=conv_layers)
    side = 32
    for name in conv_layers:
        if name.startswith("pool"):
            side //= 2
        channels = (64, 128, 256, 512, 512)[int(name[4]) - 1]
        assert out[name].shape == (2, channels, side, side), name
    # pool1 is the 2x2 max of relu(conv1_2).
    c = out["conv1_2"].array
    numpy.testing.assert_array_equal(out["pool1"].array, c.reshape(2, 64, 16, 2, 16, 2).max(axis=(3, 5)))
    assert (c >= 0).all()
    # The fully-connected layers need 224x224 inputs.
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        full = vgg16(numpy.random.randn(1, 3, 224, 224).astype(numpy.float32), layers=["pool5", "fc7", "prob"])
    assert {k: v.shape for k, v in full.items()} == {"pool5": (1, 512, 7, 7), "fc7": (1, 4096), "prob": (1, 1000)}
    numpy.testing.assert_allclose(full["prob"].array.sum(), 1, rtol=1e-5)


@pytest.mark.slow
def test_vgg19(fast_big_normals):
    model = L.VGG19Layers(pretrained_model=None)
    assert model.available_layers == layer_names((2, 2, 4, 4, 4))
    assert model.count_params() == 143667240  # the published VGG-19 size
    x = numpy.random.randn(1, 3, 32, 32).astype(numpy.float32)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        out = model.extract([numpy.zeros((40, 40, 3), numpy.uint8)], layers=["conv5_4", "pool5"], size=(32, 32))
        direct = model(x, layers=["pool5"])
    assert out["conv5_4"].shape == (1, 512, 2, 2) and out["pool5"].shape == direct["pool5"].shape == (1, 512, 1, 1)


def test_missing_pretrained_weights_are_explained(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINER_DATASET_ROOT", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="VGG16Layers: the pre-trained weights 'VGG_ILSVRC_16_layers.npz'"):
        L.VGG16Layers()
    with pytest.raises(FileNotFoundError, match="'VGG_ILSVRC_19_layers.npz' were not found at .*pfnet/chainer/models"):
        L.VGG19Layers(pretrained_model="auto")
    with pytest.raises(ValueError, match="VGGLayers: n_layers must be 16 or 19, got 11"):
        vgg.VGGLayers(None, 11)
