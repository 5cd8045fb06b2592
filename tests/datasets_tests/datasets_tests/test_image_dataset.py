import pickle
import zipfile

import numpy
import pytest
from PIL import Image

import chainer
from chainer import datasets
from chainer.datasets import image_dataset


@pytest.fixture
def images(tmp_path):
    """Three small images (RGB, grayscale, RGBA) written as PNG; returns name -> HWC array."""
    rng = numpy.random.default_rng(0)
    arrays = {
        "rgb.png": rng.integers(0, 256, (4, 5, 3), dtype=numpy.uint8),
        "gray.png": rng.integers(0, 256, (3, 2), dtype=numpy.uint8),
        "rgba.png": rng.integers(0, 256, (2, 2, 4), dtype=numpy.uint8),
    }
    (tmp_path / "img").mkdir()
    for name, array in arrays.items():
        Image.fromarray(array).save(tmp_path / "img" / name)
    return arrays


def chw(array):
    return array[numpy.newaxis] if array.ndim == 2 else array.transpose(2, 0, 1)


def test_image_dataset_reads_chw_arrays(tmp_path, images):
    names = list(images)
    ds = datasets.ImageDataset(names, root=str(tmp_path / "img"))
    assert len(ds) == 3
    for i, name in enumerate(names):
        x = ds[i]
        assert x.dtype == numpy.float32
        numpy.testing.assert_array_equal(x, chw(images[name]))
    assert [x.shape for x in ds[1:]] == [(1, 3, 2), (4, 2, 2)]


def test_image_dataset_dtype_and_config(tmp_path, images):
    ds = datasets.ImageDataset(["rgb.png"], root=str(tmp_path / "img"), dtype=numpy.uint8)
    assert ds[0].dtype == numpy.uint8
    with chainer.using_config("dtype", numpy.float16):
        ds = datasets.ImageDataset(["rgb.png"], root=str(tmp_path / "img"))
    assert ds[0].dtype == numpy.float16


def test_image_dataset_from_list_file(tmp_path, images):
    listing = tmp_path / "list.txt"
    listing.write_text("gray.png\n\nrgb.png\n")
    ds = datasets.ImageDataset(str(listing), root=str(tmp_path / "img"))
    assert len(ds) == 2
    numpy.testing.assert_array_equal(ds[0], chw(images["gray.png"]))


def test_unreadable_image_is_named(tmp_path):
    (tmp_path / "bad.png").write_bytes(b"not an image")
    ds = datasets.ImageDataset(["bad.png"], root=str(tmp_path))
    with pytest.raises(OSError, match=r"ImageDataset: cannot read the image .*bad.png"):
        ds[0]


def test_labeled_image_dataset(tmp_path, images):
    ds = datasets.LabeledImageDataset([("rgb.png", 3), ("gray.png", 7)], root=str(tmp_path / "img"))
    x, t = ds[1]
    numpy.testing.assert_array_equal(x, chw(images["gray.png"]))
    assert t.dtype == numpy.int32 and t.shape == () and int(t) == 7
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("rgba.png 2\nrgb.png 5\n")
    ds = datasets.LabeledImageDataset(str(pairs), root=str(tmp_path / "img"), label_dtype=numpy.int64)
    assert [int(t) for _, t in ds[:]] == [2, 5] and ds[0][1].dtype == numpy.int64
    pairs.write_text("rgba.png 2 extra\n")
    with pytest.raises(ValueError, match="line 1 of .*pairs.txt must be '<path> <label>'"):
        datasets.LabeledImageDataset(str(pairs))


@pytest.fixture
def archive(tmp_path, images):
    path = tmp_path / "images.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("sub/", "")
        for name in images:
            z.write(tmp_path / "img" / name, f"sub/{name}")
    return str(path)


def test_zipped_image_dataset(archive, images):
    ds = datasets.ZippedImageDataset(archive)
    assert len(ds) == 3
    assert ds.paths() == [f"sub/{name}" for name in images]
    for i, name in enumerate(images):
        numpy.testing.assert_array_equal(ds[i], chw(images[name]))
    clone = pickle.loads(pickle.dumps(ds))
    numpy.testing.assert_array_equal(clone[0], ds[0])
    ds.close()
    numpy.testing.assert_array_equal(ds[2], chw(images["rgba.png"]))  # reopened on use
    ds.close()
    clone.close()


def test_multi_zipped_and_labeled_zipped(tmp_path, archive, images):
    ds = datasets.MultiZippedImageDataset([archive, archive])
    assert len(ds) == 6
    numpy.testing.assert_array_equal(ds[4], chw(images["gray.png"]))
    labels = tmp_path / "labels.txt"
    labels.write_text("sub/rgba.png 1\nsub/rgb.png 0\n")
    ds = datasets.LabeledZippedImageDataset(archive, str(labels))
    assert len(ds) == 2
    x, t = ds[0]
    numpy.testing.assert_array_equal(x, chw(images["rgba.png"]))
    assert int(t) == 1 and t.dtype == numpy.int32


def test_zipped_image_dataset_in_worker_processes(archive, images):
    ds = datasets.ZippedImageDataset(archive, dtype=numpy.uint8)
    it = chainer.iterators.MultiprocessIterator(ds, 3, repeat=False, shuffle=False, n_processes=2)
    try:
        (batch,) = list(it)
    finally:
        it.finalize()
    for x, name in zip(batch, images):
        numpy.testing.assert_array_equal(x, chw(images[name]))


def test_available_says_whether_pillow_is_installed(monkeypatch, tmp_path):
    import importlib.util

    assert image_dataset.available is (importlib.util.find_spec("PIL") is not None)
    monkeypatch.setattr(image_dataset, "available", False)
    with pytest.raises(ImportError, match="pip install pillow"):
        image_dataset._read_image_as_array(str(tmp_path / "x.png"), numpy.float32, "ImageDataset", "x.png")
