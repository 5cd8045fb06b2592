import hashlib
import io
import sys

import numpy
import pytest

from chainer import dataset, datasets

scipy_io = pytest.importorskip("scipy.io")


def mat_file(rng, n):
    images = rng.integers(0, 256, (32, 32, 3, n), dtype=numpy.uint8)
    labels = rng.integers(1, 11, (n, 1)).astype(numpy.uint8)  # the publisher's 1..10, 10 meaning 0
    labels[0, 0] = 10
    buffer = io.BytesIO()
    scipy_io.savemat(buffer, {"X": images, "y": labels})
    return buffer.getvalue(), images, labels[:, 0]


@pytest.fixture
def served(file_server):
    rng = numpy.random.default_rng(0)
    files, arrays = {}, {}
    for split, n in (("train", 5), ("test", 3), ("extra", 2)):
        data, images, labels = mat_file(rng, n)
        files[f"{split}_32x32.mat"] = data
        arrays[split] = (images, labels)
    server = file_server({f"/s/{name}": data for name, data in files.items()})
    dataset.set_dataset_mirror("svhn", server.url + "/s")
    with dataset.override_checksums({f"svhn/{name}": hashlib.md5(d).hexdigest() for name, d in files.items()}):
        yield server, arrays


def test_end_to_end(served, dataset_root):
    server, arrays = served
    train, test = datasets.get_svhn()
    assert len(train) == 5 and len(test) == 3
    images, labels = arrays["train"]
    for i in range(5):
        x, t = train[i]
        assert x.shape == (3, 32, 32) and x.dtype == numpy.float32
        numpy.testing.assert_allclose(x, images[:, :, :, i].transpose(2, 0, 1) / 255.0, rtol=1e-6)
        assert int(t) == labels[i] % 10
    assert int(train[0][1]) == 0
    assert (dataset_root / "pfnet/chainer/svhn/test.npz").exists()
    assert not any("extra" in r for r in server.requests)

    train, test, extra = datasets.get_svhn(withlabel=False, scale=255.0, dtype=numpy.float64, add_extra=True)
    assert extra.shape == (2, 3, 32, 32)
    numpy.testing.assert_allclose(extra, arrays["extra"][0].transpose(3, 2, 0, 1), rtol=1e-12)
    _, test = datasets.get_svhn(label_dtype=numpy.int64)
    assert test[2][1].dtype == numpy.int64


def test_missing_scipy_is_explained(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy", None)
    with pytest.raises(RuntimeError, match=r"pip install 'chainer-datasets\[svhn\]'"):
        datasets.get_svhn()
