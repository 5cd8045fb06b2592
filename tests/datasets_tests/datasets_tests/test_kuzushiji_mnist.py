import hashlib

import numpy

from chainer import dataset, datasets


def test_labels_name_romaji_and_characters():
    labels = datasets.get_kuzushiji_mnist_labels()
    assert isinstance(labels, list) and len(labels) == 10
    # The classes of the data set's class map: U+304A (o) ... U+3092 (wo).
    assert labels[0] == ("o", chr(0x304A)) and labels[9] == ("wo", chr(0x3092))
    assert [character for _, character in labels] == list("おきすつなはまやれを")
    assert [romaji for romaji, _ in labels] == ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


def test_end_to_end(file_server, mnist_like, checksums_of, dataset_root):
    files, arrays = mnist_like(seed=2)
    server = file_server({f"/k/{name}": data for name, data in files.items()})
    dataset.set_dataset_mirror("kuzushiji-mnist", server.url + "/k")
    with dataset.override_checksums(checksums_of("kuzushiji-mnist", files)):
        train, _ = datasets.get_kuzushiji_mnist(ndim=3, label_dtype=numpy.uint8)
    x, t = train[4]
    assert x.shape == (1, 28, 28) and t.dtype == numpy.uint8
    numpy.testing.assert_allclose(x[0], arrays["train"][0][4] / 255.0, rtol=1e-6)
    assert (dataset_root / "pfnet/chainer/kuzushiji_mnist/test.npz").exists()
    canonical = "http://codh.rois.ac.jp/kmnist/dataset/kmnist/t10k-images-idx3-ubyte.gz"
    assert (dataset_root / "_dl_cache" / hashlib.md5(canonical.encode()).hexdigest()).exists()
