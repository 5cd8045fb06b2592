"""get_mnist end to end against a local server (the MNIST family shares this code path;
see also test_fashion_mnist.py and test_kuzushiji_mnist.py)."""

import hashlib
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import chainer
from chainer import dataset, datasets

CANONICAL = "http://yann.lecun.com/exdb/mnist/"


@pytest.fixture
def served(file_server, mnist_like, checksums_of):
    files, arrays = mnist_like()
    server = file_server({f"/mnist/{name}": data for name, data in files.items()})
    dataset.set_dataset_mirror("mnist", server.url + "/mnist")
    with dataset.override_checksums(checksums_of("mnist", files)):
        yield server, files, arrays


def expected_images(images, ndim=1, scale=1.0, dtype=numpy.float32, rgb=False):
    x = images.astype(numpy.float64) * (scale / 255.0)
    x = {1: x.reshape(len(x), 784), 2: x, 3: x[:, numpy.newaxis]}[ndim]
    if rgb:
        x = numpy.repeat(x, 3, axis=1)
    return x.astype(dtype)


def test_download_convert_cache_and_reload_offline(served, dataset_root):
    server, files, arrays = served
    train, test = datasets.get_mnist()
    assert sorted(server.requests) == sorted(f"/mnist/{name}" for name in files)
    for ds, (images, labels) in ((train, arrays["train"]), (test, arrays["test"])):
        assert isinstance(ds, datasets.TupleDataset) and len(ds) == len(labels)
        x, t = ds[len(ds) - 1]
        assert x.shape == (784,) and x.dtype == numpy.float32
        assert t.dtype == numpy.int32 and int(t) == labels[-1]
        xs = numpy.stack([e[0] for e in ds[:]])
        numpy.testing.assert_allclose(xs, expected_images(images), rtol=1e-6)

    # Chainer 7's cache layout: npz files with x (N, 784) uint8 and y (N,) uint8, and the
    # raw downloads under _dl_cache/<md5 of the canonical URL>.
    for split in ("train", "test"):
        with numpy.load(dataset_root / "pfnet/chainer/mnist" / f"{split}.npz") as npz:
            assert sorted(npz.files) == ["x", "y"]
            assert npz["x"].dtype == numpy.uint8 and npz["x"].shape == (len(arrays[split][1]), 784)
            numpy.testing.assert_array_equal(npz["x"], arrays[split][0].reshape(-1, 784))
            numpy.testing.assert_array_equal(npz["y"], arrays[split][1])
    for name, data in files.items():
        cached = dataset_root / "_dl_cache" / hashlib.md5((CANONICAL + name).encode()).hexdigest()
        assert cached.read_bytes() == data

    server.stop()
    train2, _ = datasets.get_mnist()  # from the npz cache
    numpy.testing.assert_array_equal(train2[3][0], train[3][0])
    for split in ("train", "test"):
        os.remove(dataset_root / "pfnet/chainer/mnist" / f"{split}.npz")
    train3, _ = datasets.get_mnist()  # rebuilt from the verified raw downloads
    numpy.testing.assert_array_equal(train3[3][0], train[3][0])


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_preprocessing_options(served, ndim, dtype):
    _, _, arrays = served
    images, labels = arrays["test"]
    _, test = datasets.get_mnist(withlabel=False, ndim=ndim, scale=2.0, dtype=dtype)
    expected = expected_images(images, ndim, 2.0, dtype)
    assert test.shape == expected.shape and test.dtype == dtype
    tol = {numpy.float16: 1e-3, numpy.float32: 1e-6, numpy.float64: 1e-12}[dtype]
    numpy.testing.assert_allclose(test, expected, rtol=tol, atol=tol)


def test_rgb_format_label_dtype_and_config_dtype(served):
    _, _, arrays = served
    images, labels = arrays["train"]
    with chainer.using_config("dtype", numpy.float64):
        train, _ = datasets.get_mnist(ndim=3, rgb_format=True, label_dtype=numpy.int64)
    x, t = train[0]
    assert x.shape == (3, 28, 28) and x.dtype == numpy.float64 and t.dtype == numpy.int64
    numpy.testing.assert_allclose(x, expected_images(images[:1], 3, rgb=True, dtype=numpy.float64)[0])
    x_plain, _ = datasets.get_mnist(ndim=1, rgb_format=True)[0][0]
    assert x_plain.shape == (784,)  # rgb_format only matters for ndim=3


def test_bad_options():
    with pytest.raises(ValueError, match="get_mnist: ndim must be 1, 2 or 3, got 4"):
        datasets.get_mnist(ndim=4)
    with pytest.raises(TypeError, match="scale must be a number"):
        datasets.get_mnist(scale="1")


def test_file_with_wrong_checksum_is_refused_and_not_cached(file_server, mnist_like, checksums_of, dataset_root):
    files, _ = mnist_like()
    expected = checksums_of("mnist", files)
    tampered = dict(files)
    tampered["train-images-idx3-ubyte.gz"] = files["train-images-idx3-ubyte.gz"][:-1] + bytes(
        [files["train-images-idx3-ubyte.gz"][-1] ^ 0xFF]
    )
    server = file_server({f"/m/{name}": data for name, data in tampered.items()})
    dataset.set_dataset_mirror("mnist", server.url + "/m")
    with dataset.override_checksums(expected):
        with pytest.raises(dataset.ChecksumError, match=r"train-images-idx3-ubyte.gz.*has MD5 [0-9a-f]{32}, expected"):
            datasets.get_mnist()
    assert not (dataset_root / "pfnet/chainer/mnist/train.npz").exists()
    bad = dataset_root / "_dl_cache" / hashlib.md5((CANONICAL + "train-images-idx3-ubyte.gz").encode()).hexdigest()
    assert not bad.exists()
    leftovers = [p.name for p in (dataset_root / "_dl_cache").iterdir() if not p.name.endswith(".lock")]
    assert len(leftovers) <= 1  # at most the labels file, which was valid
    assert [p.name for p in (dataset_root / "pfnet/chainer/mnist").iterdir()] == [".train.npz.lock"]


def test_published_checksums_apply_without_override(file_server, mnist_like):
    files, _ = mnist_like()
    server = file_server({f"/m/{name}": data for name, data in files.items()})
    dataset.set_dataset_mirror("mnist", server.url + "/m")
    with pytest.raises(dataset.ChecksumError, match="expected f68b3c2dcbeaaa9fbdd348bbdeb94873"):
        datasets.get_mnist()


def test_offline_without_cache_names_url_and_override(file_server):
    server = file_server({})
    server.stop()
    dataset.set_dataset_mirror("mnist", server.url + "/gone")
    with pytest.raises(dataset.DownloadError) as info:
        datasets.get_mnist()
    message = str(info.value)
    assert not isinstance(info.value, dataset.ChecksumError)
    assert f"{server.url}/gone/train-images-idx3-ubyte.gz" in message
    assert "CHAINER_DATASET_MIRROR_MNIST" in message and "set_dataset_mirror('mnist'" in message
    assert "no cached copy" in message


def test_environment_variable_mirror(file_server, mnist_like, checksums_of, monkeypatch):
    files, arrays = mnist_like()
    server = file_server({f"/all/mnist/{name}": data for name, data in files.items()})
    monkeypatch.setenv("CHAINER_DATASET_MIRROR", server.url + "/all")
    with dataset.override_checksums(checksums_of("mnist", files)):
        _, test = datasets.get_mnist(withlabel=False, ndim=2, scale=255.0)
    numpy.testing.assert_allclose(test, arrays["test"][0], rtol=1e-6)


def test_two_processes_load_at_once_with_one_download(file_server, mnist_like, checksums_of, tmp_path, monkeypatch):
    files, arrays = mnist_like(n_train=20)
    server = file_server({f"/m/{name}": data for name, data in files.items()}, delay=0.3)
    monkeypatch.setenv("CHAINER_DATASET_MIRROR_MNIST", server.url + "/m")
    code = textwrap.dedent(
        f"""
        import sys
        import numpy
        from chainer import dataset, datasets
        with dataset.override_checksums({checksums_of("mnist", files)!r}):
            train, test = datasets.get_mnist(withlabel=False, scale=255.0)
        numpy.save(sys.argv[1], train)
        """
    )
    outputs = [str(tmp_path / f"out{i}.npy") for i in range(2)]
    procs = [subprocess.Popen([sys.executable, "-c", code, out], stderr=subprocess.PIPE) for out in outputs]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [r[1].decode() for r in results]
    assert sorted(server.requests) == sorted(f"/m/{name}" for name in files)
    for out in outputs:
        numpy.testing.assert_allclose(numpy.load(out), arrays["train"][0].reshape(20, 784), rtol=1e-6)


def test_corrupted_idx_content_is_reported(file_server, checksums_of):
    from chainer.datasets import _mnist_helper  # the IDX parser, given a file that passed its checksum

    bad = {
        "train-images-idx3-ubyte.gz": _mnist_helper.gzip.compress(b"\x00\x00\x08\x01" + b"\x00\x00\x00\x02" + b"ab"),
        "train-labels-idx1-ubyte.gz": _mnist_helper.gzip.compress(b"\x00\x00\x08\x01\x00\x00\x00\x02ab"),
    }
    server = file_server({f"/m/{n}": d for n, d in bad.items()})
    dataset.set_dataset_mirror("mnist", server.url + "/m")
    with dataset.override_checksums(checksums_of("mnist", bad)):
        with pytest.raises(ValueError, match="has IDX magic number 0x00000801, expected 0x00000803"):
            datasets.get_mnist()


def test_mnist_helper_make_npz_and_preprocess(file_server, mnist_like, dataset_root, tmp_path):
    # chainer.datasets._mnist_helper keeps Chainer 7's helpers for MNIST-format files
    # at other addresses: make_npz downloads and caches, preprocess_mnist builds a split.
    from chainer.datasets import _mnist_helper

    files, arrays = mnist_like(seed=5)
    server = file_server({f"/m/{name}": data for name, data in files.items()})
    path = str(tmp_path / "train.npz")
    urls = (server.url + "/m/train-images-idx3-ubyte.gz", server.url + "/m/train-labels-idx1-ubyte.gz")
    raw = _mnist_helper.make_npz(path, urls)
    images, labels = arrays["train"]
    with numpy.load(path) as npz:
        numpy.testing.assert_array_equal(npz["x"], images.reshape(-1, 784))
        numpy.testing.assert_array_equal(npz["y"], labels)
    ds = _mnist_helper.preprocess_mnist(raw, True, 3, 2.0, numpy.float64, numpy.int64, True)
    x, t = ds[1]
    assert x.shape == (3, 28, 28) and x.dtype == numpy.float64 and t.dtype == numpy.int64
    numpy.testing.assert_allclose(x, numpy.repeat(images[1][None] * (2.0 / 255.0), 3, axis=0))
    plain = _mnist_helper.preprocess_mnist(raw, False, 2, 1.0, "float32", numpy.int32, False)
    assert isinstance(plain, numpy.ndarray) and plain.shape == (len(labels), 28, 28)
    server.stop()
