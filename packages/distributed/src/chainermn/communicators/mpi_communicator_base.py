"""Everything a communicator does over an mpi4py communicator, except the gradient mean.

Arrays travel as raw bytes (``MPI.BYTE``) behind a small pickled header (shape, dtype,
device), so every dtype works, float16 and bool included; reductions run in a dtype MPI
can add (float16 is summed in float32). CuPy arrays go through host memory and come back
on the current GPU. Collectives first agree on shapes and dtypes with one small
all-gather, so a mismatch raises the same clear error on every process instead of
hanging or corrupting memory.
"""

from __future__ import annotations

import collections
import pickle
import zlib
from typing import Any

import numpy

import chainer
from chainermn._mpi import MPI
from chainermn.communicators import _communication_utility, communicator_base

#: Largest chunk of bytes one MPI call moves (MPI counts are 32-bit signed integers).
_MAX_CHUNK = _communication_utility.INT_MAX - 1


def _to_host(x: Any, where: str) -> tuple[numpy.ndarray, bool]:
    """Return ``(numpy array, came_from_gpu)``."""
    if isinstance(x, numpy.ndarray):
        return x, False
    if numpy.isscalar(x) and not isinstance(x, (str, bytes)):
        return numpy.asarray(x), False
    if type(x).__module__.startswith("cupy"):
        return x.get(), True
    raise TypeError(f"{where}: expected a numpy.ndarray or cupy.ndarray, got {type(x).__name__}")


def _check_array(x: Any, where: str) -> Any:
    """``x`` as a NumPy or CuPy array (a scalar becomes a 0-d NumPy array)."""
    if isinstance(x, numpy.ndarray) or type(x).__module__.startswith("cupy"):
        return x
    return _to_host(x, where)[0]


def _from_host(x: numpy.ndarray, gpu: bool) -> Any:
    if not gpu:
        return x
    import cupy

    return cupy.asarray(x)


def _bytes_view(x: numpy.ndarray) -> numpy.ndarray:
    return numpy.ascontiguousarray(x).reshape(-1).view(numpy.uint8)


def _reduction_dtype(dtype: numpy.dtype) -> numpy.dtype:
    # MPI has no float16 and summing booleans should count.
    if dtype == numpy.float16:
        return numpy.dtype(numpy.float32)
    if dtype == numpy.bool_:
        return numpy.dtype(numpy.int64)
    return dtype


class MpiCommunicatorBase(communicator_base.CommunicatorBase):
    """A communicator over an mpi4py communicator (``MPI.COMM_WORLD`` by default).

    Creating one is collective: the processes exchange their host names to learn which
    of them share a machine (:attr:`intra_rank`, :attr:`inter_rank`). Subclasses
    implement :meth:`multi_node_mean_grad`.

    Configurations (:meth:`~CommunicatorBase.set_config`): ``batched_copy`` (default
    ``True``), whether GPU gradients are packed into the communication buffer by one
    batched kernel; the CPU communicators accept it and pack the same way either way.
    """

    def __init__(self, mpi_comm: Any = None, **kwargs: Any) -> None:
        super().__init__()
        name = type(self).__name__
        if kwargs:
            nccl_only = sorted(set(kwargs) & {"allreduce_grad_dtype", "batched_copy"})
            if nccl_only:
                raise ValueError(f"{name}: {', '.join(nccl_only)} is only available with the 'pure_nccl' communicator")
            raise TypeError(f"{name}: unexpected keyword arguments {sorted(kwargs)}")
        if mpi_comm is None:
            mpi_comm = MPI.COMM_WORLD
        if not isinstance(mpi_comm, MPI.Comm):
            raise TypeError(
                f"{name}: mpi_comm must be an mpi4py communicator (MPI.Comm), got {type(mpi_comm).__name__}"
            )
        self._mpi_comm = mpi_comm
        self._owns_mpi_comm = False
        # What this process sent to itself, by tag, until it receives it.
        self._self_messages: dict[int, collections.deque[Any]] = {}
        _, *topology = _communication_utility.init_ranks(mpi_comm)
        self._topology: tuple[int, int, int, int] = tuple(topology)  # type: ignore[assignment]
        with self.config_scope():
            self.batched_copy = True

    # -- topology ------------------------------------------------------------------------

    @property
    def mpi_comm(self) -> Any:
        """The underlying mpi4py communicator, for direct MPI calls."""
        return self._mpi_comm

    @property
    def rank(self) -> int:
        return self._mpi_comm.rank

    @property
    def size(self) -> int:
        return self._mpi_comm.size

    @property
    def intra_rank(self) -> int:
        return self._topology[0]

    @property
    def intra_size(self) -> int:
        return self._topology[1]

    @property
    def inter_rank(self) -> int:
        return self._topology[2]

    @property
    def inter_size(self) -> int:
        return self._topology[3]

    def split(self, color: int, key: int) -> MpiCommunicatorBase:
        for arg, value in (("color", color), ("key", key)):
            if not isinstance(value, (int, numpy.integer)) or isinstance(value, bool):
                raise TypeError(f"{type(self).__name__}.split: {arg} must be an int, got {type(value).__name__}")
        new = self._mpi_comm.Split(int(color), int(key))
        comm = self._new_like(new)
        comm._owns_mpi_comm = True
        return comm

    def _new_like(self, mpi_comm: Any) -> MpiCommunicatorBase:
        comm = type(self).__new__(type(self))
        MpiCommunicatorBase.__init__(comm, mpi_comm)
        comm._configs = dict(self._configs)
        return comm

    def finalize(self) -> None:
        if self._owns_mpi_comm and self._mpi_comm != MPI.COMM_NULL:
            self._mpi_comm.Free()
        self._owns_mpi_comm = False

    # -- helpers -------------------------------------------------------------------------

    def _check_rank(self, rank: Any, arg: str, where: str) -> int:
        if not isinstance(rank, (int, numpy.integer)) or isinstance(rank, bool):
            raise TypeError(f"{where}: {arg} must be an int rank, got {type(rank).__name__}")
        if not 0 <= rank < self.size:
            raise ValueError(f"{where}: {arg} must be a rank in [0, {self.size}), got {rank}")
        return int(rank)

    def _agree(self, value: Any, where: str, what: str) -> list[Any]:
        """All-gather ``value``; raise on every process if the processes differ, or if
        some process passes a :class:`_Bad` (its argument could not be used)."""
        values = self._mpi_comm.allgather(value)
        bad = [f"rank {r}: {v.message}" for r, v in enumerate(values) if isinstance(v, _Bad)]
        if bad:
            raise TypeError(f"{where}: " + "; ".join(bad))
        if any(v != values[0] for v in values[1:]):
            detail = ", ".join(f"rank {r}: {v}" for r, v in enumerate(values))
            raise ValueError(f"{where}: the processes must agree on {what}, got {detail}")
        return values

    def _raise_if_any_failed(self, error: str | None, where: str) -> None:
        """Collective: raise on every process if any process reported an error."""
        errors = self._mpi_comm.allgather(error)
        failed = [(r, e) for r, e in enumerate(errors) if e is not None]
        if failed:
            raise ValueError(f"{where}: " + "; ".join(f"rank {r}: {e}" for r, e in failed))

    def _send_bytes(self, payload: numpy.ndarray, dest: int, tag: int) -> None:
        for start in range(0, max(payload.size, 1), _MAX_CHUNK):
            self._mpi_comm.Send([payload[start : start + _MAX_CHUNK], MPI.BYTE], dest=dest, tag=tag)

    def _recv_bytes(self, nbytes: int, source: int, tag: int) -> numpy.ndarray:
        payload = numpy.empty(nbytes, dtype=numpy.uint8)
        for start in range(0, max(nbytes, 1), _MAX_CHUNK):
            self._mpi_comm.Recv([payload[start : start + _MAX_CHUNK], MPI.BYTE], source=source, tag=tag)
        return payload

    # -- arrays --------------------------------------------------------------------------

    def _post_to_self(self, tag: int, kind: str, message: Any) -> None:
        self._self_messages.setdefault(tag, collections.deque()).append((kind, message))

    def _take_from_self(self, tag: int | None, kind: str, where: str) -> Any:
        # A message to oneself is kept here rather than sent through MPI, where a blocking
        # send to oneself of a large array would wait forever for its receive.
        queue = (
            self._self_messages.get(tag)
            if tag is not None
            else next((q for q in self._self_messages.values() if q), None)
        )
        if not queue:
            raise RuntimeError(
                f"{where}: nothing was sent by this process (rank {self.rank}) to itself"
                + ("" if tag is None else f" with tag {tag}")
                + "; send to oneself before receiving, or the receive would wait forever"
            )
        sent_kind, message = queue.popleft()
        if sent_kind != kind:
            raise TypeError(f"{where}: the message this process sent to itself is {sent_kind}, not {kind}")
        return message

    def send(self, data: Any, dest: int, tag: int) -> None:
        where = f"{type(self).__name__}.send"
        dest = self._check_rank(dest, "dest", where)
        is_tuple = isinstance(data, (tuple, list))
        if dest == self.rank:
            arrays = [_check_array(x, where) for x in (data if is_tuple else (data,))]
            # A copy, as a receiver through MPI gets (C-contiguous, on the same device).
            copies = [chainer.backend.get_array_module(x).array(x, copy=True, order="C") for x in arrays]
            self._post_to_self(tag, "arrays (send)", tuple(copies) if is_tuple else copies[0])
            return
        try:
            arrays = [_to_host(x, where) for x in (data if is_tuple else (data,))]
        except TypeError as exc:
            # Tell the receiver, which would otherwise wait for this message forever.
            self._mpi_comm.send(str(exc), dest=dest, tag=tag)
            raise
        header = (is_tuple, [(a.shape, a.dtype.str, gpu) for a, gpu in arrays])
        self._mpi_comm.send(header, dest=dest, tag=tag)
        for a, _ in arrays:
            self._send_bytes(_bytes_view(a), dest, tag)

    def recv(self, source: int, tag: int) -> Any:
        where = f"{type(self).__name__}.recv"
        source = self._check_rank(source, "source", where)
        if source == self.rank:
            return self._take_from_self(tag, "arrays (send)", where)
        header = self._mpi_comm.recv(source=source, tag=tag)
        if isinstance(header, str):
            raise TypeError(f"{header} (at the sender, rank {source})")
        is_tuple, specs = header
        out = []
        for shape, dtype, gpu in specs:
            dtype = numpy.dtype(dtype)
            nbytes = int(numpy.prod(shape, dtype=numpy.int64)) * dtype.itemsize
            out.append(_from_host(self._recv_bytes(nbytes, source, tag).view(dtype).reshape(shape), gpu))
        return tuple(out) if is_tuple else out[0]

    def bcast(self, data: Any, max_buf_len: int | None = None, root: int = 0) -> Any:
        where = f"{type(self).__name__}.bcast"
        root = self._check_rank(root, "root", where)
        chunk = _MAX_CHUNK if max_buf_len is None else _communication_utility.check_max_buf_len(max_buf_len, where)
        header = None
        if self.rank == root:
            # A bad ``data`` travels in the header, so that every process raises.
            try:
                array, gpu = _to_host(data, where)
            except TypeError as exc:
                header = (str(exc), None, None, None)
            else:
                header = (None, array.shape, array.dtype.str, gpu)
        error, shape, dtype, gpu = self._mpi_comm.bcast(header, root=root)
        if error is not None:
            raise TypeError(error if self.rank == root else f"{error} (at the root, rank {root})")
        dtype = numpy.dtype(dtype)
        if self.rank == root:
            payload = _bytes_view(array)
        else:
            payload = numpy.empty(int(numpy.prod(shape, dtype=numpy.int64)) * dtype.itemsize, dtype=numpy.uint8)
        _communication_utility.bcast_bytes(self._mpi_comm, payload, root, chunk)
        if self.rank == root:
            return data
        return _from_host(payload.view(dtype).reshape(shape), gpu)

    def gather(self, data: Any, root: int = 0) -> Any:
        where = f"{type(self).__name__}.gather"
        root = self._check_rank(root, "root", where)
        # Every process learns every header, so that a bad ``data`` on one process
        # raises on all of them instead of leaving them in Gatherv.
        try:
            array, gpu = _to_host(data, where)
        except TypeError as exc:
            header: Any = str(exc)
        else:
            header = (array.shape, array.dtype.str)
        headers = self._mpi_comm.allgather(header)
        failed = [f"rank {r}: {h}" for r, h in enumerate(headers) if isinstance(h, str)]
        if failed:
            raise TypeError(f"{where}: " + "; ".join(failed))
        if self.rank != root:
            self._mpi_comm.Gatherv([_bytes_view(array), MPI.BYTE], None, root=root)
            return None
        sizes = [int(numpy.prod(s, dtype=numpy.int64)) * numpy.dtype(d).itemsize for s, d in headers]
        payload = numpy.empty(sum(sizes), dtype=numpy.uint8)
        self._mpi_comm.Gatherv([_bytes_view(array), MPI.BYTE], [payload, sizes, MPI.BYTE], root=root)
        return tuple(_from_host(x, gpu) for x in _unpack(payload, headers, sizes))

    def allgather(self, x: Any) -> tuple[Any, ...]:
        """Every process receives the tuple of every process's array.

        The arrays may differ in shape and dtype between the processes (Chainer 7.8.1's
        needed the same shape; its differentiable ``functions.allgather`` did not).
        """
        where = f"{type(self).__name__}.allgather"
        try:
            array, gpu = _to_host(x, where)
        except TypeError as exc:
            header: Any = _Bad(str(exc))
        else:
            header = (array.shape, array.dtype.str)
        headers = self._mpi_comm.allgather(header)
        failed = [f"rank {r}: {h.message}" for r, h in enumerate(headers) if isinstance(h, _Bad)]
        if failed:
            raise TypeError(f"{where}: " + "; ".join(failed))
        sizes = [int(numpy.prod(s, dtype=numpy.int64)) * numpy.dtype(d).itemsize for s, d in headers]
        payload = numpy.empty(sum(sizes), dtype=numpy.uint8)
        self._mpi_comm.Allgatherv([_bytes_view(array), MPI.BYTE], [payload, sizes, MPI.BYTE])
        return tuple(_from_host(a, gpu) for a in _unpack(payload, headers, sizes))

    def allreduce(self, data: Any) -> Any:
        where = f"{type(self).__name__}.allreduce"
        try:
            array, gpu = _to_host(data, where)
        except TypeError as exc:
            self._agree(_Bad(str(exc)), where, "")  # raises on every process
        self._agree((array.shape, array.dtype.str), where, "the shape and dtype of data")
        reduce_dtype = _reduction_dtype(array.dtype)
        send = numpy.ascontiguousarray(array, dtype=reduce_dtype)
        out = numpy.empty_like(send)
        self._mpi_comm.Allreduce(send, out, op=MPI.SUM)
        return _from_host(out.astype(array.dtype, copy=False) if array.dtype != numpy.bool_ else out, gpu)

    def scatter(self, xs: Any, root: int = 0) -> Any:
        where = f"{type(self).__name__}.scatter"
        root = self._check_rank(root, "root", where)
        error = None
        headers = None
        if self.rank == root:
            if not isinstance(xs, (tuple, list)) or len(xs) != self.size:
                error = f"xs must be a tuple of {self.size} arrays (one per process) at the root, got {_describe(xs)}"
            else:
                try:
                    arrays = [_to_host(x, where) for x in xs]
                except TypeError as exc:
                    error = str(exc)
                else:
                    headers = [(a.shape, a.dtype.str, gpu) for a, gpu in arrays]
        error = self._mpi_comm.bcast(error, root=root)
        if error is not None:
            raise ValueError(f"{where}: {error}")
        shape, dtype, gpu = self._mpi_comm.scatter(headers, root=root)
        dtype = numpy.dtype(dtype)
        out = numpy.empty(shape, dtype=dtype)
        if self.rank == root:
            sizes = [a.nbytes for a, _ in arrays]
            payload = numpy.concatenate([_bytes_view(a) for a, _ in arrays]) if arrays else numpy.empty(0, numpy.uint8)
            send = [payload, sizes, MPI.BYTE]
        else:
            send = None
        self._mpi_comm.Scatterv(send, [out.reshape(-1).view(numpy.uint8), MPI.BYTE], root=root)
        return _from_host(out, gpu)

    def alltoall(self, xs: Any) -> tuple[Any, ...]:
        where = f"{type(self).__name__}.alltoall"
        error = None
        if not isinstance(xs, (tuple, list)) or len(xs) != self.size:
            error = f"xs must be a tuple of {self.size} arrays (one per process), got {_describe(xs)}"
        else:
            try:
                arrays = [_to_host(x, where) for x in xs]
            except TypeError as exc:
                error = str(exc)
        self._raise_if_any_failed(error, where)
        gpu = any(g for _, g in arrays)
        headers = self._mpi_comm.alltoall([(a.shape, a.dtype.str) for a, _ in arrays])
        send_sizes = [a.nbytes for a, _ in arrays]
        recv_sizes = [int(numpy.prod(s, dtype=numpy.int64)) * numpy.dtype(d).itemsize for s, d in headers]
        send = numpy.concatenate([_bytes_view(a) for a, _ in arrays])
        recv = numpy.empty(sum(recv_sizes), dtype=numpy.uint8)
        self._mpi_comm.Alltoallv([send, send_sizes, MPI.BYTE], [recv, recv_sizes, MPI.BYTE])
        return tuple(_from_host(x, gpu) for x in _unpack(recv, headers, recv_sizes))

    # -- Python objects ------------------------------------------------------------------

    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        dest = self._check_rank(dest, "dest", f"{type(self).__name__}.send_obj")
        pickled = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        if dest == self.rank:
            self._post_to_self(tag, "an object (send_obj)", pickled)
            return
        payload = numpy.frombuffer(pickled, dtype=numpy.uint8)
        self._mpi_comm.send(payload.size, dest=dest, tag=tag)
        self._send_bytes(payload, dest, tag)

    def recv_obj(self, source: int, tag: int | None = None, status: Any = None) -> Any:
        """Receive an object sent by :meth:`send_obj` from ``source``.

        Args:
            source: Rank of the sender.
            tag: The message tag; ``None`` takes the next message of any tag.
            status: An ``mpi4py.MPI.Status`` to fill with the message's source and tag.
        """
        where = f"{type(self).__name__}.recv_obj"
        source = self._check_rank(source, "source", where)
        if source == self.rank:
            return pickle.loads(self._take_from_self(tag, "an object (send_obj)", where))
        if status is None:
            status = MPI.Status()
        nbytes = self._mpi_comm.recv(source=source, tag=MPI.ANY_TAG if tag is None else tag, status=status)
        # The pickle follows under the tag of its header.
        return pickle.loads(self._recv_bytes(nbytes, source, status.Get_tag()).tobytes())

    def bcast_obj(self, obj: Any, max_buf_len: int | None = None, root: int = 0) -> Any:
        where = f"{type(self).__name__}.bcast_obj"
        root = self._check_rank(root, "root", where)
        chunk = _MAX_CHUNK if max_buf_len is None else _communication_utility.check_max_buf_len(max_buf_len, where)
        return _communication_utility.chunked_bcast_obj(obj, self._mpi_comm, chunk, root)

    def gather_obj(self, obj: Any, root: int = 0) -> list[Any] | None:
        root = self._check_rank(root, "root", f"{type(self).__name__}.gather_obj")
        return self._mpi_comm.gather(obj, root=root)

    def allreduce_obj(self, obj: Any) -> Any:
        objs = self._mpi_comm.allgather(obj)
        total = objs[0]
        for other in objs[1:]:
            total = total + other
        return total

    # -- models --------------------------------------------------------------------------

    def bcast_data(self, model: Any) -> None:
        where = f"{type(self).__name__}.bcast_data"
        params, root_specs = self._checked_against_root(model, where)
        for (_, param), (_, spec) in zip(params, root_specs):
            if spec is None:
                continue  # not initialized on rank 0: nothing to copy
            if param.array is None:
                param.initialize(spec[0])
            array, gpu = _to_host(param.array, where)
            buf = numpy.ascontiguousarray(array)
            self._mpi_comm.Bcast([_bytes_view(buf), MPI.BYTE], root=0)
            if self.rank != 0:
                param.array[...] = _from_host(buf, gpu)

    def _checked_against_root(self, model: Any, where: str) -> tuple[list[tuple[str, Any]], list[Any]]:
        """Collective: the model's ``(name, param)`` pairs sorted by name, and rank 0's
        ``(name, (shape, dtype) or None)`` for them, after checking on every process that
        the names match rank 0's and that the parameters both sides have initialized agree
        in shape and dtype (raising on all processes if any differs)."""
        params = sorted(model.namedparams(), key=lambda item: item[0])
        specs = [(name, None if p.array is None else (p.array.shape, p.array.dtype.str)) for name, p in params]
        root_specs = self._mpi_comm.bcast(specs if self.rank == 0 else None, root=0)
        error = None
        if [name for name, _ in root_specs] != [name for name, _ in specs]:
            error = "the model's parameter names differ from rank 0's"
        else:
            for (name, mine), (_, theirs) in zip(specs, root_specs):
                if mine is not None and theirs is not None and mine != theirs:
                    error = f"parameter {name!r} has shape/dtype {mine}, rank 0 has {theirs}"
                    break
        self._raise_if_any_failed(error, where)
        return params, root_specs

    def _grads_to_average(self, model: Any, zero_fill: bool, where: str) -> list[tuple[Any, Any]]:
        """``(param, gradient)`` for the gradients to average, each gradient on its
        parameter's device (zeros for a missing one with ``zero_fill``), after checking
        that every process averages the same list."""
        items = []
        for name, param in sorted(model.namedparams(), key=lambda item: item[0]):
            if param.array is None:
                continue
            grad = param.grad
            if grad is None:
                if not zero_fill:
                    continue
                grad = chainer.backend.get_array_module(param.array).zeros_like(param.array)
            if not isinstance(grad, numpy.ndarray) and not type(grad).__module__.startswith("cupy"):
                raise TypeError(
                    f"{where}: expected a numpy.ndarray or cupy.ndarray gradient, got {type(grad).__name__}"
                )
            items.append((name, param, grad))
        # A CRC, not hash(): string hashes differ between processes.
        signature = zlib.crc32(repr([(n, g.shape, g.dtype.str) for n, _, g in items]).encode())
        signatures = self._mpi_comm.allgather(signature)
        if any(s != signatures[0] for s in signatures):
            listing = [(n, tuple(g.shape), g.dtype.str) for n, _, g in items]
            raise ValueError(f"{where}: {_gradient_mismatch(self._mpi_comm.allgather(listing))}")
        return [(param, grad) for _, param, grad in items]

    def _check_not_diverged(self, params: list[Any], where: str) -> None:
        """In debug mode (``chainer.set_debug(True)``), raise if an averaged gradient holds
        NaN or infinity: training has diverged (the same on every process, since each
        holds the same means)."""
        if not chainer.is_debug():
            return
        bad = [
            repr(p.name) for p in params if not bool(chainer.backend.get_array_module(p.grad).isfinite(p.grad).all())
        ]
        if bad:
            raise ValueError(
                f"{where}: the gradients diverged after the all-reduce: {', '.join(bad)} hold NaN or infinity "
                "(checked because chainer.is_debug() is on)"
            )

    def _grad_arrays(self, model: Any, zero_fill: bool, where: str) -> list[tuple[Any, numpy.ndarray, bool]]:
        """``(param, host gradient, on_gpu)`` for the gradients to average (see
        :meth:`_grads_to_average`)."""
        return [(param, *_to_host(grad, where)) for param, grad in self._grads_to_average(model, zero_fill, where)]


def _gradient_mismatch(listings: list[list[tuple[str, tuple[int, ...], str]]]) -> str:
    """Why the processes' ``(name, shape, dtype)`` lists of gradients to average differ:
    the names one has and another lacks (a parameter unused on some process), else the
    parameters whose shape or dtype differ, with each process's."""
    names = [[name for name, _, _ in listing] for listing in listings]
    if any(ns != names[0] for ns in names):
        reference = set(names[0])
        parts = []
        for rank, ns in enumerate(names[1:], start=1):
            lacks, extra = sorted(reference - set(ns)), sorted(set(ns) - reference)
            if lacks:
                parts.append(f"rank {rank} lacks {lacks}")
            if extra:
                parts.append(f"rank {rank} has {extra} that rank 0 lacks")
        return (
            "the processes have different sets of gradients to average (a parameter unused on some process has no "
            f"gradient; pass zero_fill=True): compared with rank 0 ({len(names[0])} gradients), {'; '.join(parts)}"
        )
    parts = []
    for i, name in enumerate(names[0]):
        specs = [(tuple(listing[i][1]), numpy.dtype(listing[i][2]).name) for listing in listings]
        if any(spec != specs[0] for spec in specs):
            per_rank = ", ".join(f"rank {r} {shape} {dtype}" for r, (shape, dtype) in enumerate(specs))
            parts.append(f"{name!r}: {per_rank}")
    return (
        "the gradients to average differ in shape or dtype between the processes (do they build the same "
        f"model?): {'; '.join(parts)}"
    )


class _Bad:
    """What a process contributes to a header exchange when its argument is unusable."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Bad) and other.message == self.message

    __hash__ = None  # type: ignore[assignment]


def _unpack(payload: numpy.ndarray, headers: list[Any], sizes: list[int]) -> list[numpy.ndarray]:
    out = []
    offset = 0
    for (shape, dtype), nbytes in zip(headers, sizes):
        out.append(payload[offset : offset + nbytes].view(numpy.dtype(dtype)).reshape(shape))
        offset += nbytes
    return out


def _describe(xs: Any) -> str:
    if isinstance(xs, (tuple, list)):
        return f"a {type(xs).__name__} of length {len(xs)}"
    return type(xs).__name__


__all__ = ["MpiCommunicatorBase"]
