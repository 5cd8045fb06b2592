"""The ``Iterator`` interface every dataset iterator implements."""

from __future__ import annotations

from typing import Any


class Iterator:
    """Base class of all dataset iterators.

    An iterator walks over a dataset and returns one mini-batch (a list of examples) per
    :meth:`__next__` call. Iterators are stateful: they know where to read next, so a
    training run saves and restores them through :meth:`serialize`.

    A subclass implements :meth:`__next__` and usually keeps these attributes (plain
    attributes or properties, as it likes):

    - ``epoch``: the number of completed sweeps over the dataset;
    - ``epoch_detail``: ``epoch`` as a float including the fraction of the current sweep;
    - ``previous_epoch_detail``: ``epoch_detail`` before the last ``__next__`` call
      (``None`` before the first call);
    - ``is_new_epoch``: whether the last ``__next__`` call finished a sweep;
    - ``batch_size`` and ``repeat``.

    It may also override :meth:`finalize` (release workers, files) and :meth:`serialize`.
    An iterator is a context manager that finalizes itself on exit.
    """

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Any:
        """Return the next mini-batch; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement __next__")

    def next(self) -> Any:
        """Return the next mini-batch (the same as ``next(iterator)``)."""
        return self.__next__()

    def finalize(self) -> None:
        """Release the resources the iterator holds (worker processes, threads, files).

        The base implementation does nothing. An iterator must not be used after it is
        finalized.
        """

    def __enter__(self) -> Iterator:
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        self.finalize()

    def serialize(self, serializer: Any) -> None:
        """Save or load the state of the iterator through ``serializer``.

        ``serializer(key, value)`` stores ``value`` when saving and returns the stored value
        when loading. The base implementation keeps no state.
        """
