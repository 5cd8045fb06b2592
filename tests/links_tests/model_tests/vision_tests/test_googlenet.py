"""GoogLeNet: layer names and order, the auxiliary branches, forward shapes, initialisation and
pre-trained weights from npz files."""

import os

import numpy
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import serializers

LAYERS = [
    "conv1",
    "pool1",
    "conv2_reduce",
    "conv2",
    "pool2",
    "inception_3a",
    "inception_3b",
    "pool3",
    "inception_4a",
    "inception_4b",
    "inception_4c",
    "inception_4d",
    "inception_4e",
    "pool4",
    "inception_5a",
    "inception_5b",
    "pool5",
    "loss3_fc",
    "prob",
    "loss1_fc2",
    "loss2_fc2",
]


@pytest.fixture(scope="module")
def googlenet():
    return L.GoogLeNet(pretrained_model=None)


def test_structure_and_initialisation(googlenet):
    assert googlenet.available_layers == LAYERS
    params = dict(googlenet.namedparams())
    assert params["/conv1/W"].shape == (64, 3, 7, 7)
    assert params["/inc3a/conv1/W"].shape == (64, 192, 1, 1)
    assert params["/inc4e/conv5/W"].shape == (128, 32, 5, 5)
    assert params["/inc5b/projp/W"].shape == (128, 832, 1, 1)
    assert params["/loss1_fc1/W"].shape == (1024, 2048) and params["/loss2_conv/W"].shape == (128, 528, 1, 1)
    assert params["/loss3_fc/W"].shape == (1000, 1024)
    bound = numpy.sqrt(3 / (3 * 7 * 7))  # LeCunUniform
    w = googlenet.conv1.W.array
    assert w.min() >= -bound and w.max() <= bound and w.max() > 0.9 * bound


def test_forward_shapes_at_a_small_input(googlenet):
    x = numpy.random.randn(1, 3, 64, 64).astype(numpy.float32)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        out = googlenet(x, layers=LAYERS[: LAYERS.index("inception_5b") + 1])
    expected = {"conv1": (64, 32), "pool1": (64, 16), "conv2": (192, 16), "pool2": (192, 8)}
    expected.update({"inception_3a": (256, 8), "inception_3b": (480, 8), "pool3": (480, 4)})
    expected.update({"inception_4a": (512, 4), "inception_4d": (528, 4), "inception_4e": (832, 4)})
    expected.update({"pool4": (832, 2), "inception_5b": (1024, 2)})
    for name, (channels, side) in expected.items():
        assert out[name].shape == (1, channels, side, side), name


@pytest.mark.slow
def test_full_forward_and_branches(googlenet):
    x = numpy.random.randn(2, 3, 224, 224).astype(numpy.float32)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        out = googlenet(x, layers=LAYERS)
    assert out["inception_5b"].shape == (2, 1024, 7, 7)
    assert out["pool5"].shape == (2, 1024, 1, 1)
    for name in ("loss3_fc", "prob", "loss1_fc2", "loss2_fc2"):
        assert out[name].shape == (2, 1000), name
    numpy.testing.assert_allclose(
        out["pool5"].array[:, :, 0, 0], out["inception_5b"].array.mean(axis=(2, 3)), rtol=1e-5
    )
    pooled = out["pool5"].array.reshape(2, 1024)
    numpy.testing.assert_allclose(
        out["loss3_fc"].array, pooled @ googlenet.loss3_fc.W.array.T + googlenet.loss3_fc.b.array, rtol=1e-4, atol=1e-5
    )
    # The auxiliary classifiers branch off inception_4a and inception_4d.
    for name, source, prefix in (("loss1_fc2", "inception_4a", "loss1"), ("loss2_fc2", "inception_4d", "loss2")):
        with chainer.using_config("train", False):
            h = F.average_pooling_2d(out[source], 5, stride=3)
            h = F.relu(getattr(googlenet, f"{prefix}_conv")(h))
            h = F.relu(getattr(googlenet, f"{prefix}_fc1")(h))
            h = getattr(googlenet, f"{prefix}_fc2")(h)
        numpy.testing.assert_allclose(out[name].array, h.array, rtol=1e-4, atol=1e-5)
    # A branch alone gives the same result.
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        alone = googlenet(x, layers=["loss2_fc2"])
    assert list(alone) == ["loss2_fc2"]
    numpy.testing.assert_allclose(alone["loss2_fc2"].array, out["loss2_fc2"].array, rtol=1e-5)


def test_pretrained_weights_from_npz(googlenet, tmp_path, monkeypatch):
    path = str(tmp_path / "googlenet.npz")
    serializers.save_npz(path, googlenet, compression=False)
    with numpy.load(path) as npz:
        assert {"conv1/W", "conv2_reduce/b", "inc4c/proj3/W", "inc5b/conv5/b", "loss1_fc2/W"} <= set(npz.files)
    loaded = L.GoogLeNet(pretrained_model=path)
    numpy.testing.assert_array_equal(loaded.inc4b.conv3.W.array, googlenet.inc4b.conv3.W.array)
    root = tmp_path / "root"
    monkeypatch.setenv("CHAINER_DATASET_ROOT", str(root))
    with pytest.raises(FileNotFoundError, match="GoogLeNet: the pre-trained weights 'bvlc_googlenet.npz'"):
        L.GoogLeNet()
    os.makedirs(root / "pfnet" / "chainer" / "models")
    os.replace(path, root / "pfnet" / "chainer" / "models" / "bvlc_googlenet.npz")
    numpy.testing.assert_array_equal(L.GoogLeNet().loss2_fc1.W.array, googlenet.loss2_fc1.W.array)
