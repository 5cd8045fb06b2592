"""Empty data sets, for the processes of a model-parallel job that receive their inputs
from other processes."""

from __future__ import annotations

from typing import Any


def create_empty_dataset(dataset: Any) -> list[tuple[()]]:
    """Creates an empty dataset for models with no inputs and outputs.

    Returns a data set of ``len(dataset)`` empty tuples, so that an iterator over it
    runs as many iterations as one over ``dataset``, for a model whose ``forward()``
    starts with :func:`chainermn.functions.recv` and ends with
    :func:`chainermn.functions.send`.

    Args:
        dataset: The data set whose length to copy.

    Returns:
        A list of empty tuples.

    Example:
        >>> train = chainermn.datasets.create_empty_dataset(train)  # doctest: +SKIP
    """
    try:
        n = len(dataset)
    except TypeError:
        raise TypeError(f"create_empty_dataset: dataset must have a length, got {type(dataset).__name__}") from None
    return [()] * n


__all__ = ["create_empty_dataset"]
