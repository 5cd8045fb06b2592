"""prepare() of the model zoo and the ten-crop oversampling, against the documented recipe:
RGB -> resize -> BGR -> minus the ImageNet mean -> (3, H, W)."""

import numpy
import pytest
from PIL import Image

import chainer
from chainer.links.model.vision import _common, googlenet, resnet, vgg

MEANS = {vgg: (103.939, 116.779, 123.68), resnet: (103.063, 115.903, 123.152), googlenet: (104.0, 117.0, 123.0)}


def rgb_image(h=20, w=30):
    return numpy.random.randint(0, 256, (h, w, 3)).astype(numpy.uint8)


@pytest.mark.parametrize("module", [vgg, resnet, googlenet], ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_prepare_follows_the_recipe(module):
    rgb = rgb_image()
    resized = numpy.asarray(Image.fromarray(rgb).resize((16, 12), Image.BICUBIC), dtype=numpy.float64)
    expected = numpy.stack([resized[:, :, 2 - c] - MEANS[module][c] for c in range(3)])
    out = module.prepare(Image.fromarray(rgb), size=(16, 12))
    assert out.shape == (3, 12, 16) and out.dtype == numpy.float32 and out.flags.c_contiguous
    numpy.testing.assert_allclose(out, expected, atol=1e-4)
    # Arrays in (H, W, 3) and (3, H, W) layouts mean the same image; None keeps the size.
    numpy.testing.assert_array_equal(module.prepare(rgb, size=(16, 12)), out)
    numpy.testing.assert_array_equal(module.prepare(rgb.transpose(2, 0, 1), size=(16, 12)), out)
    kept = module.prepare(rgb, size=None)
    assert kept.shape == (3, 20, 30)
    numpy.testing.assert_allclose(kept[0], rgb[:, :, 2] - MEANS[module][0], atol=1e-4)


def test_prepare_grayscale_and_default_size_and_dtype():
    gray = numpy.random.randint(0, 256, (10, 10)).astype(numpy.uint8)
    out = vgg.prepare(gray)
    assert out.shape == (3, 224, 224)
    # The three channels of a grey image are equal before the mean is subtracted.
    numpy.testing.assert_allclose(out[0] + 103.939, out[2] + 123.68, atol=1e-3)
    numpy.testing.assert_array_equal(vgg.prepare(gray[None]), out)
    with chainer.using_config("dtype", numpy.float64):
        assert resnet.prepare(gray, size=(8, 8)).dtype == numpy.float64


def test_prepare_rejects_bad_images():
    with pytest.raises(TypeError, match="vgg.prepare: image must be a PIL image or a numpy.ndarray, got list"):
        vgg.prepare([[0]])
    with pytest.raises(ValueError, match=r"resnet.prepare: an array image must have shape .* got \(2, 3, 4, 5\)"):
        resnet.prepare(numpy.zeros((2, 3, 4, 5), numpy.uint8))


def test_oversample_takes_corners_centre_and_mirrors():
    images = numpy.random.randn(2, 3, 8, 10).astype(numpy.float32)
    crops = _common.oversample(images, (4, 6))
    assert crops.shape == (20, 3, 4, 6)
    for i, img in enumerate(images):
        expected = [img[:, :4, :6], img[:, :4, 4:], img[:, 4:, :6], img[:, 4:, 4:], img[:, 2:6, 2:8]]
        expected += [e[:, :, ::-1] for e in expected]
        for k, e in enumerate(expected):
            numpy.testing.assert_array_equal(crops[10 * i + k], e)


def test_available_says_whether_pillow_is_installed():
    import importlib.util

    from chainer.links.model.vision import googlenet, resnet, vgg

    expected = importlib.util.find_spec("PIL") is not None
    assert resnet.available is vgg.available is googlenet.available is expected
