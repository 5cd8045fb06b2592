import hashlib

import numpy

from chainer import dataset, datasets


def test_labels():
    labels = datasets.get_fashion_mnist_labels()
    assert labels == [
        "T-shirt/top",
        "Trouser",
        "Pullover",
        "Dress",
        "Coat",
        "Sandal",
        "Shirt",
        "Sneaker",
        "Bag",
        "Ankle boot",
    ]
    labels.append("changed")
    assert len(datasets.get_fashion_mnist_labels()) == 10


def test_end_to_end(file_server, mnist_like, checksums_of, dataset_root):
    files, arrays = mnist_like(seed=1)
    server = file_server({f"/f/{name}": data for name, data in files.items()})
    dataset.set_dataset_mirror("fashion-mnist", server.url + "/f")
    with dataset.override_checksums(checksums_of("fashion-mnist", files)):
        train, test = datasets.get_fashion_mnist(ndim=2)
    x, t = test[1]
    numpy.testing.assert_allclose(x, arrays["test"][0][1] / 255.0, rtol=1e-6)
    assert int(t) == arrays["test"][1][1]
    assert (dataset_root / "pfnet/chainer/fashion-mnist/train.npz").exists()
    canonical = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/train-labels-idx1-ubyte.gz"
    assert (dataset_root / "_dl_cache" / hashlib.md5(canonical.encode()).hexdigest()).exists()
