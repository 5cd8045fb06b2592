"""Splitting a data set between the processes."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.datasets import sub_dataset


class DataSizeError(RuntimeError):
    """A buffer size outside what MPI can move in one message (1 to 2**31 - 1 bytes)."""


_MAX_BUF_LEN = 2**31 - 1


def _as_communicator(comm: Any, where: str) -> Any:
    from chainermn import communicators

    if isinstance(comm, communicators.CommunicatorBase):
        return comm
    from mpi4py import MPI

    if isinstance(comm, MPI.Comm):
        return communicators.NaiveCommunicator(mpi_comm=comm)
    raise TypeError(
        f"{where}: comm must be a ChainerMN communicator or an mpi4py communicator, got {type(comm).__name__}"
    )


def _partition(n_total: int, size: int, force_equal_length: bool) -> list[tuple[int, int]]:
    if force_equal_length:
        # Every part has ceil(n / size) examples; consecutive parts overlap where needed.
        n_sub = -(-n_total // size)
        return [(n_total * i // size, n_total * i // size + n_sub) for i in range(size)]
    return [(n_total * i // size, n_total * (i + 1) // size) for i in range(size)]


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


def create_empty_dataset(dataset: Any) -> list[tuple[()]]:
    """A data set of ``len(dataset)`` empty tuples, for a model whose inputs come from
    other processes (it starts with :func:`chainermn.functions.recv`).

    Example:
        >>> train = chainermn.datasets.create_empty_dataset(train)  # doctest: +SKIP
    """
    try:
        n = len(dataset)
    except TypeError:
        raise TypeError(f"create_empty_dataset: dataset must have a length, got {type(dataset).__name__}") from None
    return [()] * n


__all__ = ["DataSizeError", "create_empty_dataset", "scatter_dataset", "scatter_index"]
