"""Worker processes of ``MultiprocessIterator`` and the transport of examples.

Each worker has its own duplex pipe: the main process sends tasks (a chunk of one batch)
and receives results on it, and watches the workers' sentinels, so a worker that dies
is noticed at once (it never leaves the main process waiting). A worker that has had
``maxtasksperchild`` tasks is told to stop after them and is replaced.

Examples travel as pickles (protocol 5). Their large contiguous buffers (array data)
go through a shared-memory segment when one is given and they fit in the example's
slot; everything else goes through the pipe.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import pickle
import signal
import traceback
from multiprocessing import shared_memory

try:
    from multiprocessing import resource_tracker
except ImportError:  # Windows has no resource tracker
    resource_tracker = None  # type: ignore[assignment]
from typing import Any

import numpy


class WorkerDiedError(RuntimeError):
    """A worker process of ``MultiprocessIterator`` exited while it had examples to load."""


# --------------------------------------------------------------------------- in the worker


def _attach(segments: dict[str, shared_memory.SharedMemory], name: str | None) -> Any:
    if name is None:
        return None
    segment = segments.get(name)
    if segment is None:
        try:
            segment = shared_memory.SharedMemory(name=name)
        except (FileNotFoundError, OSError):
            return None  # already released by the main process: send through the pipe
        for old in segments.values():
            old.close()
        segments.clear()
        segments[name] = segment
    return segment


def _pack(examples: list[Any], segment: Any, offset: int, capacity: int) -> tuple[Any, ...]:
    """Pickle the examples of a chunk; their large buffers go to ``segment`` at ``offset``
    if they fit in ``capacity`` bytes. The last item is the size of those buffers per
    example (the main process sizes its shared memory from it)."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(examples, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    total = sum(r.nbytes for r in raws)
    per_example = -(-total // max(1, len(examples)))
    if segment is not None and total <= capacity:
        lengths = []
        position = offset
        for raw in raws:
            segment.buf[position : position + raw.nbytes] = raw
            position += raw.nbytes
            lengths.append(raw.nbytes)
        return ("shm", data, lengths, per_example)
    return ("pipe", pickle.dumps(examples, protocol=5), per_example)


def _error_payload(exc: BaseException, index: int) -> tuple[bytes, str, int]:
    text = traceback.format_exc()
    try:
        data = pickle.dumps(exc, protocol=5)
        pickle.loads(data)
    except Exception:
        data = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"), protocol=5)
    return data, text, index


def worker_main(dataset: Any, conn: Any) -> None:
    """Load the examples of each task; stop on ``None``, on EOF or when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's business
    numpy.random.seed()  # forked workers must not share the parent's random stream
    parent = multiprocessing.parent_process()
    segments: dict[str, shared_memory.SharedMemory] = {}
    try:
        while True:
            if not conn.poll(1.0):
                if parent is not None and not parent.is_alive():
                    return
                continue
            try:
                task = conn.recv()
            except EOFError:
                return
            if task is None:
                return
            batch_id, chunk_id, indices, first_slot, segment_name, slot_size = task
            segment = _attach(segments, segment_name)
            index = -1
            try:
                examples = []
                for index in indices:
                    examples.append(dataset[index])
                packed = _pack(examples, segment, first_slot * slot_size, len(indices) * slot_size)
                conn.send(("ok", batch_id, chunk_id, packed))
            except BaseException as exc:
                conn.send(("error", batch_id, chunk_id, _error_payload(exc, index)))
    except (BrokenPipeError, ConnectionResetError):
        return  # the main process went away
    finally:
        for segment in segments.values():
            segment.close()


# ------------------------------------------------------------------------- in the main process


class SharedSegment:
    """A shared-memory segment of ``n_slots`` slots of ``slot_size`` bytes."""

    def __init__(self, n_slots: int, slot_size: int) -> None:
        self.slot_size = slot_size
        self.memory = shared_memory.SharedMemory(create=True, size=max(1, n_slots * slot_size))
        self.name = self.memory.name

    def unpack(self, packed: tuple[Any, ...], first_slot: int) -> list[Any]:
        """The examples of a chunk whose buffers start at slot ``first_slot``."""
        if packed[0] == "pipe":
            return pickle.loads(packed[1])
        _, data, lengths, _ = packed
        start = first_slot * self.slot_size
        # One copy of the chunk's buffers: the slots are reused by a later batch, and the
        # arrays must be writable. The arrays of the chunk share this memory.
        arena = memoryview(bytearray(self.memory.buf[start : start + sum(lengths)]))  # type: ignore[index]
        buffers = []
        position = 0
        for n in lengths:
            buffers.append(arena[position : position + n])
            position += n
        return pickle.loads(data, buffers=buffers)

    def release(self) -> None:
        try:
            self.memory.close()
        finally:
            try:
                self.memory.unlink()
            except FileNotFoundError:
                pass


def unpack_without_segment(packed: tuple[Any, ...]) -> list[Any]:
    return pickle.loads(packed[1])


class _Worker:
    def __init__(self, process: Any, conn: Any) -> None:
        self.process = process
        self.conn = conn
        self.outstanding: dict[tuple[int, int], list[int]] = {}
        self.assigned = 0
        self.retiring = False  # told to stop after its tasks; already replaced
        self.broken = False  # its pipe failed: it is dead, poll() will clean up


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "exited"
    if code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class WorkerPool:
    """``n_processes`` workers that load chunks of batches from ``dataset``."""

    def __init__(self, dataset: Any, n_processes: int, maxtasksperchild: int | None) -> None:
        self._dataset = dataset
        self._n_processes = n_processes
        self._maxtasks = maxtasksperchild
        self._context = multiprocessing.get_context()
        self._workers: list[_Worker] = []
        if resource_tracker is not None:
            # Workers must share the main process's tracker of shared memory: one they
            # started themselves would report the segments the main process owns as leaked.
            resource_tracker.ensure_running()
        try:
            for _ in range(n_processes):
                self._start_worker()
        except BaseException:
            self.close()
            raise

    def _start_worker(self) -> None:
        parent_conn, child_conn = self._context.Pipe(duplex=True)
        process = self._context.Process(
            target=worker_main, args=(self._dataset, child_conn), daemon=True, name="MultiprocessIterator-worker"
        )
        try:
            process.start()
        except Exception as exc:
            parent_conn.close()
            child_conn.close()
            exc.add_note(
                "MultiprocessIterator could not start a worker process; with the 'spawn' or 'forkserver' start "
                "method the dataset must be picklable"
            )
            raise
        child_conn.close()
        self._workers.append(_Worker(process, parent_conn))

    def submit(self, batch_id: int, chunk_id: int, indices: list[int], first_slot: int, segment: Any) -> None:
        name, slot_size = (segment.name, segment.slot_size) if segment is not None else (None, 0)
        task = (batch_id, chunk_id, indices, first_slot, name, slot_size)
        while True:
            active = [w for w in self._workers if not (w.retiring or w.broken)]
            if not active:
                self._start_worker()
                continue
            worker = min(active, key=lambda w: len(w.outstanding))
            try:
                worker.conn.send(task)
                break
            except (BrokenPipeError, ConnectionResetError, OSError):
                # It died since the last poll: poll() reports its lost tasks and replaces it.
                worker.broken = True
        worker.outstanding[batch_id, chunk_id] = indices
        worker.assigned += 1
        if self._maxtasks is not None and worker.assigned >= self._maxtasks:
            worker.retiring = True
            worker.conn.send(None)
            self._start_worker()

    def forget(self, batch_ids: set[int]) -> None:
        """Stop expecting results of these batches (they were discarded)."""
        for worker in self._workers:
            for key in [k for k in worker.outstanding if k[0] in batch_ids]:
                # Keep waiting for the results, but do not deliver them.
                worker.outstanding[key] = []

    def poll(self, timeout: float | None) -> list[tuple[Any, ...]]:
        """Messages received within ``timeout``.

        A worker that died with tasks is replaced, and each task it lost comes back as a
        ``('died', batch_id, chunk_id, description)`` message, so the batch that needed
        it fails while the batches before it are still delivered.
        """
        conns = [w.conn for w in self._workers]
        sentinels = [w.process.sentinel for w in self._workers]
        ready = multiprocessing.connection.wait(conns + sentinels, timeout)
        messages: list[tuple[Any, ...]] = []
        exited = []
        for worker in list(self._workers):
            if worker.conn in ready:
                self._receive(worker, messages)
            if worker.process.sentinel in ready:
                exited.append(worker)
        for worker in exited:
            while worker.conn.poll(0):
                if not self._receive(worker, messages):
                    break
            worker.process.join(1.0)
            worker.conn.close()
            self._workers.remove(worker)
            if not worker.retiring:
                self._start_worker()
            for (batch_id, chunk_id), indices in worker.outstanding.items():
                if indices:
                    description = (
                        f"MultiprocessIterator: worker process {worker.process.pid} "
                        f"{_describe_exit(worker.process.exitcode)} while loading the examples {indices[:20]}"
                        f"{' ...' if len(indices) > 20 else ''} of the dataset"
                    )
                    messages.append(("died", batch_id, chunk_id, description))
        return messages

    def _receive(self, worker: _Worker, messages: list[tuple[Any, ...]]) -> bool:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            return False
        key = (message[1], message[2])
        expected = worker.outstanding.pop(key, None)
        if expected:
            messages.append(message)
        return True

    def close(self) -> None:
        for worker in self._workers:
            try:
                worker.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for worker in self._workers:
            worker.process.join(2.0)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(2.0)
            worker.conn.close()
        self._workers = []
