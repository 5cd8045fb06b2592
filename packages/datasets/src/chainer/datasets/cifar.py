"""CIFAR-10 and CIFAR-100: 60,000 32x32 colour images (50,000 training, 10,000 test).

The publisher distributes Python pickles inside a tar.gz archive. Unpickling can run
code, so the archive is checked against its published MD5 first, then every member
against its own published MD5, and only then is a member unpickled, by an unpickler
that accepts nothing but the NumPy array reconstruction the files use.
"""

from __future__ import annotations

import io
import os
import pickle
import tarfile
from typing import Any

import numpy

import chainer
from chainer.dataset import download
from chainer.datasets import tuple_dataset

# The globals a CIFAR batch may name: how NumPy pickles an array (old and new module paths).
_ALLOWED_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("_codecs", "encode"),
}


class _ArrayOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(f"a CIFAR batch must not reference {module}.{name}; refusing to load it")
        return super().find_class(module, name)


def _load_batch(archive: tarfile.TarFile, member: str, archive_name: str) -> dict[str, Any]:
    extracted = archive.extractfile(member)
    if extracted is None:
        raise download.DownloadError(f"{archive_name} has no file {member}")
    data = extracted.read()
    download.verify_member("cifar", member, data, archive_name)
    # The batches were pickled by Python 2: latin-1 maps their byte strings 1:1.
    batch = _ArrayOnlyUnpickler(io.BytesIO(data), encoding="latin1").load()
    return {key.decode("latin1") if isinstance(key, bytes) else key: value for key, value in batch.items()}


def _retrieve(name: str, caller: str) -> dict[str, numpy.ndarray]:
    path = os.path.join(download.get_dataset_directory("pfnet/chainer/cifar"), f"{name}.npz")
    archive_file = f"{name}-python.tar.gz"

    def creator(temp_path: str) -> dict[str, numpy.ndarray]:
        archive_path = download.fetch("cifar", archive_file, caller)
        with tarfile.open(archive_path, "r:gz") as archive:
            if name == "cifar-10":
                batches = [
                    _load_batch(archive, f"cifar-10-batches-py/data_batch_{i}", archive_file) for i in range(1, 6)
                ]
                test = _load_batch(archive, "cifar-10-batches-py/test_batch", archive_file)
                train_x = numpy.concatenate([numpy.asarray(b["data"], numpy.uint8) for b in batches])
                train_y = numpy.concatenate([numpy.asarray(b["labels"], numpy.uint8) for b in batches])
                test_y = numpy.asarray(test["labels"], numpy.uint8)
            else:
                train = _load_batch(archive, "cifar-100-python/train", archive_file)
                test = _load_batch(archive, "cifar-100-python/test", archive_file)
                train_x = numpy.asarray(train["data"], numpy.uint8)
                train_y = numpy.asarray(train["fine_labels"], numpy.uint8)
                test_y = numpy.asarray(test["fine_labels"], numpy.uint8)
            test_x = numpy.asarray(test["data"], numpy.uint8)
        raw = {
            "train_x": train_x.reshape(-1, 3072),
            "train_y": train_y.reshape(-1),
            "test_x": test_x.reshape(-1, 3072),
            "test_y": test_y.reshape(-1),
        }
        numpy.savez_compressed(temp_path, **raw)  # type: ignore[arg-type]
        return raw

    return download.cache_or_load_file(path, creator, download.load_npz)


def _preprocess(
    images: numpy.ndarray, labels: numpy.ndarray, withlabel: bool, ndim: int, scale: float, dtype: Any
) -> Any:
    images = images.reshape(-1, 3072) if ndim == 1 else images.reshape(-1, 3, 32, 32)
    images = images.astype(dtype)
    images *= scale / 255.0
    if withlabel:
        return tuple_dataset.TupleDataset(images, labels.astype(numpy.int32))
    return images


def _get(caller: str, name: str, withlabel: bool, ndim: int, scale: float, dtype: Any) -> tuple[Any, Any]:
    if ndim not in (1, 3):
        raise ValueError(f"{caller}: ndim must be 1 or 3, got {ndim!r}")
    dtype = chainer.get_dtype(dtype)
    raw = _retrieve(name, caller)
    train = _preprocess(raw["train_x"], raw["train_y"], withlabel, ndim, scale, dtype)
    test = _preprocess(raw["test_x"], raw["test_y"], withlabel, ndim, scale, dtype)
    return train, test


def get_cifar10(withlabel: bool = True, ndim: int = 3, scale: float = 1.0, dtype: Any = None) -> tuple[Any, Any]:
    """Gets the CIFAR-10 dataset.

    Downloaded on first use (verified against the published MD5s of the archive and of
    each batch) and cached under the dataset root as ``pfnet/chainer/cifar/cifar-10.npz``.

    Args:
        withlabel: Return ``(image, label)`` pairs (labels ``int32`` in ``0..9``) instead
            of images only.
        ndim: ``3``: images of shape ``(3, 32, 32)`` (RGB planes); ``1``: ``(3072,)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: The image dtype (default ``chainer.config.dtype``).

    Returns:
        ``(train, test)``: 50,000 and 10,000 examples.
    """
    return _get("get_cifar10", "cifar-10", withlabel, ndim, scale, dtype)


def get_cifar100(withlabel: bool = True, ndim: int = 3, scale: float = 1.0, dtype: Any = None) -> tuple[Any, Any]:
    """Gets the CIFAR-100 dataset.

    Like :func:`get_cifar10`, with the 100 fine labels; cached as
    ``pfnet/chainer/cifar/cifar-100.npz``.

    Args:
        withlabel: Return ``(image, label)`` pairs (labels ``int32`` in ``0..99``).
        ndim: ``3``: ``(3, 32, 32)``; ``1``: ``(3072,)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: The image dtype (default ``chainer.config.dtype``).

    Returns:
        ``(train, test)``: 50,000 and 10,000 examples.
    """
    return _get("get_cifar100", "cifar-100", withlabel, ndim, scale, dtype)
