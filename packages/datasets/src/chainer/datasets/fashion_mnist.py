"""Fashion-MNIST: 70,000 28x28 grayscale images of clothes in 10 classes (Zalando Research)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.datasets import _mnist_helper

_LABELS = (
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
)


def get_fashion_mnist_labels() -> list[str]:
    """Provide a list of the string value names of the labels.

    Returns:
        The class names, by label: ``['T-shirt/top', 'Trouser', ..., 'Ankle boot']``.
    """
    return list(_LABELS)


def get_fashion_mnist(
    withlabel: bool = True,
    ndim: int = 1,
    scale: float = 1.0,
    dtype: Any = None,
    label_dtype: Any = numpy.int32,
    rgb_format: bool = False,
) -> tuple[Any, Any]:
    """Gets the Fashion-MNIST dataset.

    Downloaded on first use, verified against the published MD5s, and cached under the
    dataset root (``pfnet/chainer/fashion-mnist/train.npz``, ``test.npz``). The arguments
    are those of :func:`get_mnist`.

    Returns:
        ``(train, test)``: 60,000 and 10,000 examples.
    """
    options = (withlabel, ndim, scale, dtype, label_dtype, rgb_format)
    return _mnist_helper.get("get_fashion_mnist", "fashion-mnist", "pfnet/chainer/fashion-mnist", *options)
