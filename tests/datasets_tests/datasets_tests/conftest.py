"""Stand-ins for the published files of the concrete data sets, in their real formats."""

from __future__ import annotations

import gzip
import hashlib
import struct

import numpy
import pytest


def idx_file(array: numpy.ndarray) -> bytes:
    """A gzip-compressed IDX file of unsigned bytes (magic 0x0000 08 <ndim>, big-endian sizes)."""
    header = struct.pack(">I", 0x0800 | array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    return gzip.compress(header + array.astype(numpy.uint8).tobytes())


@pytest.fixture
def mnist_like():
    """Factory: small MNIST-format files. Returns ``(files, arrays)``: file name -> bytes,
    and ``{'train': (images, labels), 'test': (...)}``."""

    def make(n_train: int = 7, n_test: int = 3, seed: int = 0):
        rng = numpy.random.default_rng(seed)
        arrays = {}
        files = {}
        for split, prefix, n in (("train", "train", n_train), ("test", "t10k", n_test)):
            images = rng.integers(0, 256, (n, 28, 28), dtype=numpy.uint8)
            labels = rng.integers(0, 10, n, dtype=numpy.uint8)
            arrays[split] = (images, labels)
            files[f"{prefix}-images-idx3-ubyte.gz"] = idx_file(images)
            files[f"{prefix}-labels-idx1-ubyte.gz"] = idx_file(labels)
        return files, arrays

    return make


@pytest.fixture
def checksums_of():
    """``checksums_of(name, files)``: the override_checksums mapping for served files."""
    return lambda name, files: {f"{name}/{f}": hashlib.md5(data).hexdigest() for f, data in files.items()}
