"""Splitting a data set between the processes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

from chainer.datasets import sub_dataset
from chainermn._mpi import MPI


class DataSizeError(RuntimeError):
    """A buffer size outside what MPI can move in one message (1 to 2**31 - 1 bytes)."""


_MAX_BUF_LEN = 2**31 - 1


def _as_communicator(comm: Any, where: str) -> Any:
    from chainermn import communicators

    if isinstance(comm, communicators.CommunicatorBase):
        return comm
    if isinstance(comm, MPI.Comm):
        return communicators.NaiveCommunicator(mpi_comm=comm)
    raise TypeError(
        f"{where}: comm must be a ChainerMN communicator or an mpi4py communicator, got {type(comm).__name__}"
    )


def _scatter_index(n_total_samples: int, size: int, force_equal_length: bool) -> Iterator[tuple[int, int, int]]:
    """``(rank, begin, end)`` of each process's part of ``range(n_total_samples)``.

    With ``force_equal_length`` every part has ``ceil(n / size)`` indices and starts at
    ``n * rank // size`` (consecutive parts overlap where needed); otherwise the parts are
    disjoint, and the first ``n % size`` of them have one index more than the others.
    """
    if force_equal_length:
        n_sub = -(-n_total_samples // size)
        for rank in range(size):
            begin = n_total_samples * rank // size
            yield rank, begin, begin + n_sub
        return
    quotient, remainder = divmod(n_total_samples, size)
    for rank in range(size):
        begin = rank * quotient + min(rank, remainder)
        yield rank, begin, begin + quotient + (rank < remainder)


def _partition(n_total: int, size: int, force_equal_length: bool) -> list[tuple[int, int]]:
    return [(begin, end) for _, begin, end in _scatter_index(n_total, size, force_equal_length)]


def scatter_index(
    n_total_samples: int, comm: Any, root: int = 0, *, force_equal_length: bool = True
) -> tuple[int, int]:
    """Split ``range(n_total_samples)`` between the processes.

    Args:
        n_total_samples: Number of examples (read at ``root``).
        comm: ChainerMN communicator.
        root: Rank whose ``n_total_samples`` counts.
        force_equal_length: If ``True``, every process gets ``ceil(n / size)`` indices
            (some indices then go to two processes); otherwise the parts are disjoint
            and their lengths differ by at most one.

    Returns:
        ``(begin, end)`` of this process's part (``end`` excluded).

    Example:
        >>> b, e = chainermn.scatter_index(len(dataset), comm)  # doctest: +SKIP
    """
    where = "scatter_index"
    comm = _as_communicator(comm, where)
    error = None
    parts = None
    if comm.rank == root:
        if not isinstance(n_total_samples, (int, numpy.integer)) or isinstance(n_total_samples, bool):
            error = f"n_total_samples must be an int, got {type(n_total_samples).__name__}"
        elif n_total_samples < 0:
            error = f"n_total_samples must be non-negative, got {n_total_samples}"
        else:
            parts = _partition(int(n_total_samples), comm.size, force_equal_length)
    error, parts = comm.bcast_obj((error, parts), root=root)
    if error is not None:
        raise ValueError(f"{where}: {error}")
    return parts[comm.rank]


def scatter_dataset(
    dataset: Any,
    comm: Any,
    root: int = 0,
    shuffle: bool = False,
    seed: int | None = None,
    max_buf_len: int = 256 * 1024 * 1024,
    *,
    force_equal_length: bool = True,
) -> Any:
    """Scatter the data set of process ``root`` to all processes.

    Each process receives a :class:`chainer.datasets.SubDataset` over its share of the
    examples of ``root``'s data set (only the share is sent, pickled); the ``dataset``
    argument of the other processes is ignored.

    Args:
        dataset: The data set (at ``root``; anything with ``len`` and indexing).
        comm: ChainerMN communicator, or an mpi4py communicator.
        root: Rank that holds the data set.
        shuffle: Shuffle the examples before splitting.
        seed: Seed of the shuffle; with a fixed seed every example always goes to the
            same process.
        max_buf_len: Accepted for compatibility and checked (1 to 2**31 - 1); messages
            are split into pieces MPI can move automatically.
        force_equal_length: Keep all parts the same length (see :func:`scatter_index`);
            turn it off only for evaluation without duplicates.

    Returns:
        This process's part.

    Example:
        >>> train = chainermn.scatter_dataset(train if comm.rank == 0 else None, comm, shuffle=True)  # doctest: +SKIP
    """
    where = "scatter_dataset"
    comm = _as_communicator(comm, where)
    if not isinstance(max_buf_len, (int, numpy.integer)) or not 1 <= max_buf_len <= _MAX_BUF_LEN:
        raise DataSizeError(f"{where}: max_buf_len must be an int in [1, {_MAX_BUF_LEN}], got {max_buf_len!r}")
    error = None
    n_total = 0
    if comm.rank == root:
        try:
            n_total = len(dataset)
        except TypeError:
            error = f"the dataset at the root (rank {root}) must have a length, got {type(dataset).__name__}"
    error, n_total = comm.bcast_obj((error, n_total), root=root)
    if error is not None:
        raise ValueError(f"{where}: {error}")
    scatter_index(n_total, comm, root, force_equal_length=force_equal_length)  # validates, keeps the collective order
    if comm.rank != root:
        error, part = comm.recv_obj(root, tag=_TAG)
        if error is not None:
            raise ValueError(f"{where}: {error}")
        return part
    order = numpy.random.RandomState(seed).permutation(n_total) if shuffle else numpy.arange(n_total)
    mine, mine_error = None, None
    for rank, (begin, end) in enumerate(_partition(n_total, comm.size, force_equal_length)):
        try:
            part = sub_dataset.SubDataset(_take(dataset, order[begin:end]), 0, end - begin)
            error = None
        except Exception as exc:  # the other processes must learn about it, not wait forever
            part, error = None, f"could not take examples {begin}:{end} of the dataset: {type(exc).__name__}: {exc}"
        if rank == root:
            mine, mine_error = part, error or mine_error
        else:
            try:
                comm.send_obj((error, part), rank, tag=_TAG)
            except Exception as exc:  # e.g. an example that cannot be pickled
                mine_error = f"could not send examples {begin}:{end} to rank {rank}: {type(exc).__name__}: {exc}"
                comm.send_obj((mine_error, None), rank, tag=_TAG)
    if mine_error is not None:
        raise ValueError(f"{where}: {mine_error}")
    return mine


def _take(dataset: Any, indices: numpy.ndarray) -> Any:
    """Only the examples of one part, so that a process receives its share and not the
    whole data set (a SubDataset pickles its base data set)."""
    if isinstance(dataset, numpy.ndarray):
        return dataset[indices]
    return [dataset[int(i)] for i in indices]


_TAG = 7701


def get_n_iterations_for_one_epoch(dataset: Any, local_batch_size: int, comm: Any) -> int:
    """The number of iterations of one epoch over a scattered data set.

    Collective: rank 0's ``ceil(len(dataset) / local_batch_size)``, on every process (the
    parts of :func:`scatter_dataset` have the same length everywhere by default).

    Args:
        dataset: This process's part of the data set.
        local_batch_size: The batch size of one process.
        comm: ChainerMN communicator.

    Example:
        >>> n = get_n_iterations_for_one_epoch(train, 32, comm)  # doctest: +SKIP
    """
    where = "get_n_iterations_for_one_epoch"
    error, n_iterations = None, 0
    if comm.rank == 0:
        if isinstance(local_batch_size, bool) or not isinstance(local_batch_size, (int, numpy.integer)):
            error = f"local_batch_size must be an int, got {type(local_batch_size).__name__}"
        elif local_batch_size < 1:
            error = f"local_batch_size must be positive, got {local_batch_size}"
        else:
            n_iterations = -(-len(dataset) // int(local_batch_size))
    error, n_iterations = comm.bcast_obj((error, n_iterations), root=0)
    if error is not None:
        raise ValueError(f"{where}: {error} (at rank 0)")
    return n_iterations


def get_epoch_trigger(n_epochs: int, dataset: Any, local_batch_size: int, comm: Any) -> tuple[int, str]:
    """A trigger of ``n_epochs`` epochs over a scattered data set, in iterations.

    Collective. Every process gets the same ``(n_epochs * iterations per epoch,
    'iteration')``, so that all of them stop at the same iteration although an iterator
    over a part of uneven length would end its epochs at other times.

    Example:
        >>> trainer = training.Trainer(updater, get_epoch_trigger(20, train, 32, comm))  # doctest: +SKIP
    """
    return n_epochs * get_n_iterations_for_one_epoch(dataset, local_batch_size, comm), "iteration"


__all__ = [
    "DataSizeError",
    "get_epoch_trigger",
    "get_n_iterations_for_one_epoch",
    "scatter_dataset",
    "scatter_index",
]
