import hashlib
import io
import pickle
import tarfile

import numpy
import pytest

from chainer import dataset, datasets


def tar_gz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def batch(rng, n, label_keys):
    data = rng.integers(0, 256, (n, 3072), dtype=numpy.uint8)
    content = {"batch_label": "stand-in", "data": data, "filenames": [f"{i}.png" for i in range(n)]}
    labels = {key: [int(v) for v in rng.integers(0, high, n)] for key, high in label_keys}
    content.update(labels)
    return content, pickle.dumps(content, protocol=2)


@pytest.fixture
def cifar10():
    """A cifar-10-python.tar.gz of the published layout (2 examples per batch)."""
    rng = numpy.random.default_rng(0)
    contents, members = {}, {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        contents[name], members[f"cifar-10-batches-py/{name}"] = batch(rng, 2, [("labels", 10)])
    members["cifar-10-batches-py/batches.meta"] = pickle.dumps({"label_names": ["airplane"]}, protocol=2)
    return contents, members


def serve(file_server, archive_name, archive, members):
    server = file_server({f"/c/{archive_name}": archive})
    dataset.set_dataset_mirror("cifar", server.url + "/c")
    sums = {f"cifar/{archive_name}": hashlib.md5(archive).hexdigest()}
    sums.update(
        {f"cifar/{name}": hashlib.md5(data).hexdigest() for name, data in members.items() if "meta" not in name}
    )
    return server, sums


def test_cifar10_end_to_end(file_server, cifar10, dataset_root):
    contents, members = cifar10
    archive = tar_gz(members)
    server, sums = serve(file_server, "cifar-10-python.tar.gz", archive, members)
    with dataset.override_checksums(sums):
        train, test = datasets.get_cifar10()
    assert len(train) == 10 and len(test) == 2
    train_x = numpy.concatenate([contents[f"data_batch_{i}"]["data"] for i in range(1, 6)])
    train_y = sum((contents[f"data_batch_{i}"]["labels"] for i in range(1, 6)), [])
    for i in (0, 3, 9):
        x, t = train[i]
        assert x.shape == (3, 32, 32) and x.dtype == numpy.float32 and t.dtype == numpy.int32
        # The rows are 1024 red, 1024 green, then 1024 blue values, each plane row-major.
        numpy.testing.assert_allclose(x, train_x[i].reshape(3, 32, 32) / 255.0, rtol=1e-6)
        assert int(t) == train_y[i]
    with numpy.load(dataset_root / "pfnet/chainer/cifar/cifar-10.npz") as npz:
        assert sorted(npz.files) == ["test_x", "test_y", "train_x", "train_y"]
        assert npz["train_x"].shape == (10, 3072) and npz["train_x"].dtype == numpy.uint8
        numpy.testing.assert_array_equal(npz["test_y"], contents["test_batch"]["labels"])

    server.stop()
    flat, _ = datasets.get_cifar10(withlabel=False, ndim=1, scale=255.0, dtype=numpy.float64)
    numpy.testing.assert_allclose(flat, train_x, rtol=1e-12)
    with pytest.raises(ValueError, match="get_cifar10: ndim must be 1 or 3, got 2"):
        datasets.get_cifar10(ndim=2)


def test_cifar100_uses_fine_labels(file_server, dataset_root):
    rng = numpy.random.default_rng(1)
    contents, members = {}, {}
    for name, n in (("train", 4), ("test", 2)):
        contents[name], members[f"cifar-100-python/{name}"] = batch(
            rng, n, [("fine_labels", 100), ("coarse_labels", 20)]
        )
    archive = tar_gz(members)
    _, sums = serve(file_server, "cifar-100-python.tar.gz", archive, members)
    with dataset.override_checksums(sums):
        train, test = datasets.get_cifar100(ndim=1)
    assert [int(t) for _, t in train[:]] == contents["train"]["fine_labels"]
    numpy.testing.assert_allclose(test[1][0], contents["test"]["data"][1] / 255.0, rtol=1e-6)
    assert (dataset_root / "pfnet/chainer/cifar/cifar-100.npz").exists()


def test_a_member_that_fails_its_checksum_is_never_unpickled(file_server, cifar10, tmp_path, dataset_root):
    contents, members = cifar10
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    members = dict(members)
    members["cifar-10-batches-py/data_batch_1"] = pickle.dumps({"data": Exploit()}, protocol=2)
    archive = tar_gz(members)
    server = file_server({"/c/cifar-10-python.tar.gz": archive})
    dataset.set_dataset_mirror("cifar", server.url + "/c")
    # The archive is "trusted" here; its member still has to match the published MD5.
    with dataset.override_checksums({"cifar/cifar-10-python.tar.gz": hashlib.md5(archive).hexdigest()}):
        with pytest.raises(
            dataset.ChecksumError, match="cifar-10-batches-py/data_batch_1 .* has MD5 .*expected c99cafc1"
        ):
            datasets.get_cifar10()
    assert not marker.exists()
    assert not (dataset_root / "pfnet/chainer/cifar/cifar-10.npz").exists()


def test_the_unpickler_refuses_anything_but_arrays(file_server, cifar10, tmp_path):
    contents, members = cifar10
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    members = dict(members)
    members["cifar-10-batches-py/data_batch_1"] = pickle.dumps({"data": Exploit()}, protocol=2)
    archive = tar_gz(members)
    _, sums = serve(file_server, "cifar-10-python.tar.gz", archive, members)
    with dataset.override_checksums(sums):  # even with every checksum overridden
        with pytest.raises(pickle.UnpicklingError, match="must not reference io.open"):
            datasets.get_cifar10()
    assert not marker.exists()


def test_archive_with_wrong_checksum_is_refused(file_server, cifar10, dataset_root):
    _, members = cifar10
    server = file_server({"/c/cifar-10-python.tar.gz": tar_gz(members)})
    dataset.set_dataset_mirror("cifar", server.url + "/c")
    with pytest.raises(dataset.ChecksumError, match="expected c58f30108f718f92721af3b95e74349a"):
        datasets.get_cifar10()
    assert [p.name for p in (dataset_root / "_dl_cache").iterdir() if not p.name.endswith(".lock")] == []
