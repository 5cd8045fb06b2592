"""SVHN: 32x32 colour crops of house numbers from Google Street View, digits 0-9."""

from __future__ import annotations

import os
from typing import Any

import numpy

import chainer
from chainer.dataset import download
from chainer.datasets import tuple_dataset

_FILES = {"train": "train_32x32.mat", "test": "test_32x32.mat", "extra": "extra_32x32.mat"}


def _loadmat() -> Any:
    try:
        from scipy import io
    except ImportError as exc:
        raise RuntimeError(
            "get_svhn needs SciPy to read the MATLAB files SVHN is published in; install it with: "
            f"pip install 'chainer-datasets[svhn]' ({exc})"
        ) from exc
    return io.loadmat


def _retrieve(split: str, loadmat: Any) -> dict[str, numpy.ndarray]:
    path = os.path.join(download.get_dataset_directory("pfnet/chainer/svhn"), f"{split}.npz")

    def creator(temp_path: str) -> dict[str, numpy.ndarray]:
        mat = loadmat(download.fetch("svhn", _FILES[split], "get_svhn"))
        images, labels = mat.get("X"), mat.get("y")
        if images is None or labels is None or images.ndim != 4 or images.shape[:3] != (32, 32, 3):
            raise ValueError(f"get_svhn: {_FILES[split]} does not hold 'X' of shape (32, 32, 3, N) and 'y'")
        raw = {"x": images.astype(numpy.uint8), "y": labels.reshape(-1).astype(numpy.uint8)}
        if len(raw["y"]) != images.shape[3]:
            raise ValueError(f"get_svhn: {_FILES[split]} has {images.shape[3]} images but {len(raw['y'])} labels")
        numpy.savez_compressed(temp_path, **raw)
        return raw

    return download.cache_or_load_file(path, creator, download.load_npz)


def _preprocess(raw: dict[str, numpy.ndarray], withlabel: bool, scale: float, dtype: Any, label_dtype: Any) -> Any:
    # (height, width, channel, N) -> (N, channel, height, width)
    images = raw["x"].transpose(3, 2, 0, 1).astype(dtype)
    images *= scale / 255.0
    if not withlabel:
        return images
    labels = raw["y"].reshape(-1).astype(label_dtype)
    labels[labels == 10] = 0  # the publisher labels the digit 0 as 10
    return tuple_dataset.TupleDataset(images, labels)


def get_svhn(
    withlabel: bool = True,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    add_extra: bool = False,
) -> tuple[Any, ...]:
    """Gets the SVHN dataset.

    The cropped-digit format: images of shape ``(3, 32, 32)``. Downloaded on first use,
    verified against the published MD5s and cached under the dataset root as
    ``pfnet/chainer/svhn/{train,test,extra}.npz``. Reading the published ``.mat`` files
    needs SciPy (``pip install 'chainer-datasets[svhn]'``).

    Args:
        withlabel: Return ``(image, label)`` pairs (labels ``0..9``; the publisher's 10
            becomes 0) instead of images only.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: The image dtype (default ``chainer.config.dtype``).
        label_dtype: The label dtype.
        add_extra: Also return the 531,131 extra training examples.

    Returns:
        ``(train, test)`` (73,257 and 26,032 examples), or ``(train, test, extra)``.
    """
    loadmat = _loadmat()
    dtype = chainer.get_dtype(dtype)
    splits = ["train", "test", "extra"] if add_extra else ["train", "test"]
    return tuple(_preprocess(_retrieve(split, loadmat), withlabel, scale, dtype, label_dtype) for split in splits)
