"""The MNIST family: IDX files (gzip) -> a cached ``.npz`` -> preprocessed datasets.

MNIST, Fashion-MNIST and Kuzushiji-MNIST share the format, the cache layout (Chainer 7's:
``<root>/pfnet/chainer/<set>/train.npz`` and ``test.npz``, each with ``x``: ``(N, 784)``
uint8 and ``y``: ``(N,)`` uint8) and the preprocessing options.
"""

from __future__ import annotations

import gzip
import os
from typing import Any

import numpy

import chainer
from chainer.dataset import download
from chainer.datasets import tuple_dataset

_SPLITS = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


def _read_idx(path: str, expected_magic: int, caller: str) -> numpy.ndarray:
    """Read a gzip-compressed IDX file of unsigned bytes into an array of its shape."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    if len(data) < 4:
        raise ValueError(f"{caller}: {path} is not an IDX file (too short)")
    magic = int.from_bytes(data[:4], "big")
    if magic != expected_magic:
        raise ValueError(f"{caller}: {path} has IDX magic number {magic:#010x}, expected {expected_magic:#010x}")
    ndim = magic & 0xFF
    header = 4 + 4 * ndim
    shape = tuple(int(n) for n in numpy.frombuffer(data, ">u4", ndim, 4))
    size = int(numpy.prod(shape))
    if len(data) != header + size:
        raise ValueError(f"{caller}: {path} holds {len(data) - header} bytes of data for the shape {shape}")
    return numpy.frombuffer(data, numpy.uint8, size, header).reshape(shape)


def _convert(image_path: str, label_path: str, caller: str) -> dict[str, numpy.ndarray]:
    images = _read_idx(image_path, 0x00000803, caller)
    labels = _read_idx(label_path, 0x00000801, caller)
    if len(images) != len(labels):
        raise ValueError(f"{caller}: {len(images)} images but {len(labels)} labels; the files do not belong together")
    return {"x": images.reshape(len(images), -1).copy(), "y": labels.copy()}


def make_npz(path: str, urls: tuple[str, str]) -> dict[str, numpy.ndarray]:
    """Download the gzipped IDX images and labels at ``urls`` (``(images, labels)``),
    save them to ``path`` as the ``.npz`` of the cache layout and return the arrays.

    Chainer 7's helper for MNIST-like data sets at other addresses; the data sets of
    ``chainer.datasets`` fetch through :func:`chainer.dataset.download.fetch`, which also
    verifies checksums.
    """
    image_url, label_url = urls
    caller = "make_npz"
    raw = _convert(download.cached_download(image_url), download.cached_download(label_url), caller)
    with open(path, "wb") as f:
        numpy.savez_compressed(f, **raw)  # type: ignore[arg-type]
    return raw


def retrieve(name: str, directory: str, split: str, caller: str) -> dict[str, numpy.ndarray]:
    """The raw arrays of one split (``'train'``/``'test'``), from the cache or downloaded."""
    path = os.path.join(download.get_dataset_directory(directory), f"{split}.npz")

    def creator(temp_path: str) -> dict[str, numpy.ndarray]:
        image_file, label_file = _SPLITS[split]
        raw = _convert(download.fetch(name, image_file, caller), download.fetch(name, label_file, caller), caller)
        numpy.savez_compressed(temp_path, **raw)  # type: ignore[arg-type]
        return raw

    return download.cache_or_load_file(path, creator, download.load_npz)


def check_options(caller: str, ndim: int, scale: Any) -> None:
    if ndim not in (1, 2, 3):
        raise ValueError(f"{caller}: ndim must be 1, 2 or 3, got {ndim!r}")
    if not isinstance(scale, (int, float, numpy.number)) or isinstance(scale, bool):
        raise TypeError(f"{caller}: scale must be a number, got {type(scale).__name__}")


def preprocess_mnist(
    raw: dict[str, numpy.ndarray],
    withlabel: bool,
    ndim: int,
    scale: float,
    image_dtype: Any,
    label_dtype: Any,
    rgb_format: bool,
) -> Any:
    """The dataset of one split from its raw arrays (``x``: ``(N, 784)`` uint8 images,
    ``y``: ``(N,)`` labels), with the options of :func:`~chainer.datasets.get_mnist`."""
    image_dtype = numpy.dtype(image_dtype)
    images = raw["x"]
    if ndim == 2:
        images = images.reshape(-1, 28, 28)
    elif ndim == 3:
        images = images.reshape(-1, 1, 28, 28)
        if rgb_format:
            images = numpy.broadcast_to(images, (len(images), 3, 28, 28))
    images = images.astype(image_dtype)
    images *= image_dtype.type(scale / 255.0)
    if withlabel:
        return tuple_dataset.TupleDataset(images, raw["y"].astype(label_dtype))
    return images


def get(
    caller: str,
    name: str,
    directory: str,
    withlabel: bool,
    ndim: int,
    scale: float,
    dtype: Any,
    label_dtype: Any,
    rgb_format: bool,
) -> tuple[Any, Any]:
    check_options(caller, ndim, scale)
    image_dtype = chainer.get_dtype(dtype)
    train = preprocess_mnist(
        retrieve(name, directory, "train", caller), withlabel, ndim, scale, image_dtype, label_dtype, rgb_format
    )
    test = preprocess_mnist(
        retrieve(name, directory, "test", caller), withlabel, ndim, scale, image_dtype, label_dtype, rgb_format
    )
    return train, test
