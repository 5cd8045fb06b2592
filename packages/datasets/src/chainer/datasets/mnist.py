"""MNIST: 70,000 handwritten digits (60,000 training, 10,000 test), 28x28 grayscale."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.datasets import _mnist_helper


def get_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Gets the MNIST dataset.

    The files are downloaded on first use from the publisher (or the mirror set with
    :func:`chainer.dataset.set_dataset_mirror`), verified against their published MD5
    and cached under the dataset root (``pfnet/chainer/mnist/train.npz``, ``test.npz``).

    Args:
        withlabel: Return ``(image, label)`` pairs (a :class:`TupleDataset`) instead of
            an array of images.
        ndim: The shape of an image: ``1``: ``(784,)``, ``2``: ``(28, 28)``, ``3``:
            ``(1, 28, 28)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: The image dtype (default ``chainer.config.dtype``).
        label_dtype: The label dtype.
        rgb_format: With ``ndim=3``, repeat the channel to make ``(3, 28, 28)`` images.

    Returns:
        ``(train, test)``: 60,000 and 10,000 examples.

    Example:
        The first call downloads the data set (so the doc tests skip this example):

        >>> train, test = chainer.datasets.get_mnist()  # doctest: +SKIP
        >>> x, t = train[0]  # doctest: +SKIP
        >>> x.shape, x.dtype, int(t)  # doctest: +SKIP
        ((784,), dtype('float32'), 5)
    """
    return _mnist_helper.get(
        "get_mnist", "mnist", "pfnet/chainer/mnist", withlabel, ndim, scale, dtype, label_dtype, rgb_format
    )
