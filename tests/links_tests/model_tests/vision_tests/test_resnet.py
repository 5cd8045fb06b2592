"""ResNet50/101/152Layers: layer names, structure, parameter counts, forward shapes,
extract/predict, pre-trained weights from npz files and the speed of a 224x224 forward."""

import collections
import os

import numpy
import pytest
from PIL import Image

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import gradient_check, serializers
from chainer.links.model.vision import _common, resnet

LAYERS = ["conv1", "pool1", "res2", "res3", "res4", "res5", "pool5", "fc6", "prob"]


@pytest.fixture(scope="module")
def resnet50():
    return L.ResNet50Layers(pretrained_model=None)


def test_layers_and_structure(resnet50):
    assert resnet50.available_layers == LAYERS
    assert isinstance(resnet50, resnet.ResNetLayers)
    params = dict(resnet50.namedparams())
    assert params["/conv1/W"].shape == (64, 3, 7, 7) and params["/conv1/b"].shape == (64,)
    assert params["/res2/a/conv1/W"].shape == (64, 64, 1, 1)
    assert params["/res2/a/conv4/W"].shape == (256, 64, 1, 1)
    assert params["/res3/b3/conv2/W"].shape == (128, 128, 3, 3)
    assert params["/res5/b2/bn3/gamma"].shape == (2048,)
    assert params["/fc6/W"].shape == (1000, 2048)
    assert "/res2/a/conv1/b" not in params  # the bottleneck convolutions have no bias
    # Stages of 3, 4, 6 and 3 bottlenecks.
    for stage, n in zip(("res2", "res3", "res4", "res5"), (3, 4, 6, 3)):
        assert sorted(
            name for name, _ in getattr(resnet50, stage).namedlinks(skipself=True) if name.count("/") == 1
        ) == (sorted(["/a"] + [f"/b{i}" for i in range(1, n)]))
    # The well-known ResNet-50 count (25,557,032) plus the bias Chainer's conv1 has.
    assert resnet50.count_params() == 25557032 + 64
    # Random initialisation: He normal convolutions.
    w = resnet50.res4.a.conv2.W.array
    assert abs(w.std() - numpy.sqrt(2 / (256 * 9))) < 0.05 * numpy.sqrt(2 / (256 * 9))


def test_downsample_placement():
    msra = resnet.BottleneckA(8, 4, 16, stride=2)
    fb = resnet.BottleneckA(8, 4, 16, stride=2, downsample_fb=True)
    assert (msra.conv1.stride, msra.conv2.stride) == ((2, 2), (1, 1))
    assert (fb.conv1.stride, fb.conv2.stride) == ((1, 1), (2, 2))
    assert msra.conv4.stride == fb.conv4.stride == (2, 2)
    x = numpy.random.randn(2, 8, 6, 6).astype(numpy.float32)
    assert msra(x).shape == fb(x).shape == (2, 16, 3, 3)


def test_forward_shapes_at_a_small_input(resnet50):
    x = numpy.random.randn(2, 3, 64, 64).astype(numpy.float32)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        out = resnet50(x, layers=LAYERS)
    shapes = {k: v.shape for k, v in out.items()}
    assert shapes == {
        "conv1": (2, 64, 32, 32),
        "pool1": (2, 64, 16, 16),
        "res2": (2, 256, 16, 16),
        "res3": (2, 512, 8, 8),
        "res4": (2, 1024, 4, 4),
        "res5": (2, 2048, 2, 2),
        "pool5": (2, 2048),
        "fc6": (2, 1000),
        "prob": (2, 1000),
    }
    # pool5 is the global average of res5, fc6 the linear map of it, prob its softmax.
    numpy.testing.assert_allclose(out["pool5"].array, out["res5"].array.mean(axis=(2, 3)), rtol=1e-5, atol=1e-6)
    fc6 = out["pool5"].array @ resnet50.fc6.W.array.T + resnet50.fc6.b.array
    numpy.testing.assert_allclose(out["fc6"].array, fc6, rtol=1e-4, atol=1e-5)
    e = numpy.exp(fc6 - fc6.max(axis=1, keepdims=True))
    numpy.testing.assert_allclose(out["prob"].array, e / e.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-7)
    # Default: prob only.
    with chainer.using_config("train", False):
        assert list(resnet50(x[:1])) == ["prob"]


def test_bottleneck_gradient():
    with chainer.using_config("dtype", numpy.float64):
        block = resnet.BuildingBlock(2, 3, 2, 4, stride=2)
    # Random statistics and shifts, so that no ReLU input sits exactly on the kink (a zero
    # patch through a bias-free convolution and default statistics would give exactly 0).
    for _, bn in block.namedlinks():
        if isinstance(bn, L.BatchNormalization):
            bn.beta.array[...] = numpy.random.uniform(-1, 1, bn.beta.shape)
            bn.avg_mean[...] = numpy.random.uniform(-1, 1, bn.avg_mean.shape)
            bn.avg_var[...] = numpy.random.uniform(0.5, 2, bn.avg_var.shape)
    x = numpy.random.randn(3, 3, 4, 4)
    gy = numpy.random.randn(3, 4, 2, 2)
    with chainer.using_config("train", False):
        gradient_check.check_backward(block, x, gy, params=tuple(block.params()), atol=1e-5, rtol=1e-4)


@pytest.mark.slow
def test_extract_and_predict(resnet50):
    images = [Image.fromarray(numpy.random.randint(0, 256, (40, 50, 3)).astype(numpy.uint8)) for _ in range(2)]
    with chainer.using_config("train", False):
        feats = resnet50.extract(images, size=(64, 64))
        assert list(feats) == ["pool5"] and feats["pool5"].shape == (2, 2048)
        x = numpy.stack([resnet.prepare(img, size=(64, 64)) for img in images])
        numpy.testing.assert_allclose(
            feats["pool5"].array, resnet50(x, layers=["pool5"])["pool5"].array, rtol=1e-5, atol=1e-6
        )
    probs = resnet50.predict(images[:1], oversample=False)
    assert probs.shape == (1, 1000) and probs.creator is None
    numpy.testing.assert_allclose(probs.array.sum(axis=1), 1, rtol=1e-5)
    centre = resnet.prepare(images[0], size=(256, 256))[None, :, 16:240, 16:240]
    with chainer.using_config("train", False):
        numpy.testing.assert_allclose(probs.array, resnet50(centre)["prob"].array, rtol=1e-4, atol=1e-7)


class _TinyModel(_common.PretrainedImageModel):
    """A cheap stand-in with the model zoo's extract/predict, to check predict's cropping alone."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.fc = L.Linear(3, 5)

    @property
    def functions(self):
        return collections.OrderedDict(
            [
                # Depends on where the crop is (its top-left corner) and stays in softmax's soft range.
                ("pool", [lambda x: F.mean(x[:, :, :7, :9], axis=(2, 3)) * 0.01]),
                ("fc", [self.fc]),
                ("prob", [F.softmax]),
            ]
        )


def test_predict_oversampled_is_the_mean_over_ten_crops():
    model = _TinyModel()
    model._mean_bgr = resnet._MEAN_BGR
    image = numpy.random.randint(0, 256, (30, 30, 3)).astype(numpy.uint8)
    probs = model.predict([image, image[::-1]])
    assert probs.shape == (2, 5)
    for i, img in enumerate([image, image[::-1]]):
        big = resnet.prepare(img, size=(256, 256))
        crops = [big[:, y : y + 224, x : x + 224] for y, x in [(0, 0), (0, 32), (32, 0), (32, 32), (16, 16)]]
        crops += [c[:, :, ::-1] for c in crops]
        with chainer.using_config("train", False):
            expected = model(numpy.stack(crops))["prob"].array.mean(axis=0)
        numpy.testing.assert_allclose(probs.array[i], expected, rtol=1e-5, atol=1e-7)


def test_pretrained_weights_from_npz(resnet50, tmp_path, monkeypatch):
    path = str(tmp_path / "resnet50.npz")
    serializers.save_npz(path, resnet50, compression=False)
    with numpy.load(path) as npz:
        keys = set(npz.files)
    assert {"conv1/W", "conv1/b", "bn1/gamma", "bn1/beta", "bn1/avg_mean", "bn1/avg_var", "bn1/N"} <= keys
    assert {"res2/a/conv1/W", "res2/a/bn4/avg_var", "res4/b5/conv3/W", "res5/b2/bn3/beta", "fc6/W", "fc6/b"} <= keys
    loaded = L.ResNet50Layers(pretrained_model=path)
    numpy.testing.assert_array_equal(loaded.res3.b2.conv2.W.array, resnet50.res3.b2.conv2.W.array)
    # 'auto' and a .caffemodel path read the converted file under the dataset root, as Chainer 7 did.
    root = tmp_path / "root"
    monkeypatch.setenv("CHAINER_DATASET_ROOT", str(root))
    with pytest.raises(FileNotFoundError, match="ResNet50Layers: the pre-trained weights 'ResNet-50-model.npz'"):
        L.ResNet50Layers()
    with pytest.raises(FileNotFoundError, match="converting Caffe models is not provided"):
        L.ResNet50Layers(pretrained_model=str(tmp_path / "ResNet-50-model.caffemodel"))
    os.makedirs(root / "pfnet" / "chainer" / "models")
    os.replace(path, root / "pfnet" / "chainer" / "models" / "ResNet-50-model.npz")
    auto = L.ResNet50Layers()
    numpy.testing.assert_array_equal(auto.fc6.W.array, resnet50.fc6.W.array)
    numpy.testing.assert_array_equal(auto.res5.a.bn4.avg_var, resnet50.res5.a.bn4.avg_var)
    with pytest.raises(FileNotFoundError, match="the pre-trained model file '/nonexistent.npz' does not exist"):
        L.ResNet50Layers(pretrained_model="/nonexistent.npz")


def test_copy_and_device_of_a_block(link_checks):
    block = resnet.BuildingBlock(2, 3, 2, 4, stride=1)
    link_checks.copy_and_repeat(block, random_params=["/a/conv1/W", "/b1/conv3/W"])
    link_checks.device_round_trip(block, None)
    shared = L.ResNet50Layers(pretrained_model=None).copy("share")
    assert isinstance(shared, L.ResNet50Layers)


def test_bad_arguments(resnet50):
    with pytest.raises(ValueError, match="ResNetLayers: n_layers must be 50, 101 or 152, got 34"):
        resnet.ResNetLayers(None, 34)
    x = numpy.zeros((1, 3, 32, 32), numpy.float32)
    with pytest.raises(ValueError, match=r"ResNet50Layers: unknown layer\(s\) \['fc7'\]"):
        resnet50(x, layers=["fc7"])
    with pytest.raises(TypeError, match="layers must be a list of layer names, got the string 'prob'"):
        resnet50(x, layers="prob")
    with pytest.raises(ValueError, match="test argument is not supported anymore"):
        resnet50(x, test=True)
    with pytest.raises(TypeError, match="pretrained_model must be 'auto', a path or None, got int"):
        L.ResNet50Layers(pretrained_model=3)


@pytest.mark.slow
@pytest.mark.parametrize(("cls", "count"), [(L.ResNet101Layers, 44549160), (L.ResNet152Layers, 60192808)])
def test_deeper_resnets(cls, count):
    model = cls(pretrained_model=None)
    # The well-known parameter counts plus the bias of Chainer's conv1.
    assert model.count_params() == count + 64
    n_b = {L.ResNet101Layers: 22, L.ResNet152Layers: 35}[cls]
    assert hasattr(model.res4, f"b{n_b}") and not hasattr(model.res4, f"b{n_b + 1}")
    x = numpy.random.randn(1, 3, 32, 32).astype(numpy.float32)
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        out = model(x, layers=["res5", "pool5", "prob"])
    assert {k: v.shape for k, v in out.items()} == {"res5": (1, 2048, 1, 1), "pool5": (1, 2048), "prob": (1, 1000)}
