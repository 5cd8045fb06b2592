"""Batch conversion: turn a list of examples into arrays on a device.

``concat_examples`` is the default converter of the updaters and evaluators; ``to_device``
sends one array; ``Converter`` and the ``converter()`` decorator mark converters that accept
:class:`chainer.backend.Device` objects; ``ConcatWithAsyncTransfer`` overlaps the
host-to-GPU copy of the next batch with computation.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend

_INTEGER_TYPES = (int, numpy.integer)


class Converter:
    """Base class of converters.

    A converter is a callable ``converter(batch, device)`` that turns a mini-batch (the
    list of examples an iterator returns) into the inputs of a model, placed on
    ``device``. Updaters and evaluators pass ``device`` as a
    :class:`chainer.backend.Device` (or ``None``: leave arrays where they are) to
    instances of this class; plain functions receive the older integer device IDs.
    """

    def __call__(self, batch: list[Any], device: Any) -> Any:
        """Convert ``batch`` and send it to ``device``; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(batch, device)")


class _ArbitraryCallableConverter(Converter):
    """A :class:`Converter` made from a function by :func:`converter`."""

    def __init__(self, base_callable: Callable[..., Any]) -> None:
        if not callable(base_callable):
            raise TypeError(
                f"chainer.dataset.converter: the decorated object must be callable, got {type(base_callable).__name__}"
            )
        self.base_callable = base_callable
        self.__name__ = getattr(base_callable, "__name__", type(self).__name__)
        self.__qualname__ = getattr(base_callable, "__qualname__", self.__name__)
        self.__doc__ = getattr(base_callable, "__doc__", None)
        self.__module__ = getattr(base_callable, "__module__", __name__)
        self.__wrapped__ = base_callable

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Older code calls converters with an integer device ID (-1: CPU, N: GPU N).
        if len(args) >= 2 and _is_device_id(args[1]):
            args = (args[0], backend._get_device_compat(args[1]), *args[2:])
        elif _is_device_id(kwargs.get("device")):
            kwargs["device"] = backend._get_device_compat(kwargs["device"])
        return self.base_callable(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<converter {self.__qualname__}>"

    def __reduce__(self) -> Any:
        return (_ArbitraryCallableConverter, (self.base_callable,))


def _is_device_id(value: Any) -> bool:
    return isinstance(value, _INTEGER_TYPES) and not isinstance(value, bool)


def converter() -> Callable[[Callable[..., Any]], Converter]:
    """Decorator to make a converter.

    Turns a function ``f(batch, device=None, ...)`` into a :class:`Converter`, so that
    updaters and evaluators pass it :class:`chainer.backend.Device` objects. When it is
    called with an integer device ID (the older API), the ID is turned into a ``Device``
    first (``-1``: the CPU, ``N``: GPU ``N``), so the function only sees devices.

    Example:
        >>> @chainer.dataset.converter()
        ... def stack_inputs(batch, device=None):
        ...     x = np.stack([x for x, _ in batch])
        ...     return chainer.dataset.to_device(device, x)
        >>> stack_inputs([(np.zeros(2, 'f'), 0), (np.ones(2, 'f'), 1)])
        array([[0., 0.],
               [1., 1.]], dtype=float32)
    """

    def wrap(func: Callable[..., Any]) -> Converter:
        return _ArbitraryCallableConverter(func)

    return wrap


def _call_converter(converter: Any, batch: list[Any], device: Any) -> Any:
    """Call ``converter`` as updaters do: :class:`Converter` instances get the ``Device``,
    plain functions get the older integer ID (``-1`` for the CPU, the GPU number)."""
    if device is not None and not isinstance(device, backend.Device):
        device = backend._get_device_compat(device)
    if isinstance(converter, Converter):
        return converter(batch, device)
    if device is None:
        # Chainer 7 passed None explicitly: converters written as f(batch, device) need it.
        return converter(batch, None)
    if device.xp is numpy:
        return converter(batch, -1)
    gpu = getattr(device, "device", None)
    if isinstance(device, backend.GpuDevice) and gpu is not None:
        return converter(batch, gpu.id)
    raise RuntimeError(
        f"The converter {converter!r} is a plain function, which receives integer device IDs and cannot "
        f"send data to {device}; decorate it with @chainer.dataset.converter() so that it receives Device objects"
    )


def to_device(device: Any, x: Any) -> Any:
    """Send an array to a given device.

    Args:
        device: ``None`` (leave ``x`` where it is), a device specifier such as
            ``'@numpy'`` or ``'@cupy:0'``, a :class:`chainer.backend.Device`, or an
            integer of the older API (negative: the CPU, ``N >= 0``: GPU ``N``).
        x: An array (or ``None``).

    Returns:
        ``x`` on ``device`` (the same object when it is already there).
    """
    if device is None or x is None:
        return x
    return backend._get_device_compat(device).send(x)


def _is_array(x: Any) -> bool:
    if isinstance(x, numpy.ndarray):
        return True
    return backend.get_array_module(x) is not numpy


def _concat_arrays(arrays: list[Any], padding: Any, where: str) -> Any:
    first = arrays[0]
    if not _is_array(first):
        # Scalars and lists: one NumPy array (already of a common shape, nothing to pad).
        try:
            return numpy.asarray(arrays)
        except ValueError as exc:
            raise ValueError(f"concat_examples: cannot make one array of the {where}: {exc}") from None
    if padding is not None:
        return _concat_arrays_with_padding(arrays, padding, where)
    try:
        if isinstance(first, numpy.ndarray):
            return numpy.stack(arrays)
        with backend.get_device_from_array(first).create_context():
            return backend.get_array_module(first).stack(arrays)
    except ValueError:
        shapes = {tuple(a.shape) for a in arrays}
        if len(shapes) > 1:
            raise ValueError(
                f"concat_examples: the {where} have different shapes {sorted(shapes)}; "
                "pass padding=<value> to pad them to a common shape"
            ) from None
        raise


def _concat_arrays_with_padding(arrays: list[Any], padding: Any, where: str) -> Any:
    ndims = {a.ndim for a in arrays}
    if len(ndims) > 1:
        raise ValueError(
            f"concat_examples: the {where} have different numbers of dimensions {sorted(ndims)}; padding "
            "pads each axis but cannot add axes"
        )
    shape = tuple(max(sizes) for sizes in zip(*(a.shape for a in arrays)))
    first = arrays[0]
    xp = backend.get_array_module(first)
    with backend.get_device_from_array(first).create_context():
        result = xp.full((len(arrays), *shape), padding, dtype=first.dtype)
        for i, array in enumerate(arrays):
            result[(i, *(slice(n) for n in array.shape))] = array
    return result


def concat_examples_func(batch: list[Any], device: Any = None, padding: Any = None) -> Any:
    """Concatenate a list of examples into arrays (the function behind :data:`concat_examples`).

    :data:`concat_examples`, the default converter, is this function made a
    :class:`Converter`; call this one directly where the older integer device IDs should
    not be translated.

    Each example is an array, a tuple of arrays or a dict of arrays (scalars and lists
    become NumPy arrays first). The arrays at the same position (or key) of all examples
    are stacked along a new first axis and sent to ``device``.

    Args:
        batch: A non-empty list of examples.
        device: ``None`` (keep the arrays on their device), a device specifier,
            a :class:`chainer.backend.Device`, or an integer of the older API
            (negative: the CPU, ``N >= 0``: GPU ``N``).
        padding: ``None`` (all arrays at one position must have the same shape), or a
            scalar: arrays are padded with it up to the largest shape along each axis. A
            tuple or dict gives one padding value per position or key.

    Returns:
        An array, a tuple of arrays or a dict of arrays, following the examples.

    Example:
        >>> from chainer.dataset import concat_examples
        >>> batch = [(np.array([1, 2]), 0), (np.array([3]), 1)]
        >>> x, t = concat_examples(batch, padding=-1)
        >>> x
        array([[ 1,  2],
               [ 3, -1]])
        >>> t
        array([0, 1])
    """
    if not isinstance(batch, (list, tuple)) and not hasattr(batch, "__getitem__"):
        raise TypeError(f"concat_examples: batch must be a list of examples, got {type(batch).__name__}")
    if len(batch) == 0:
        raise ValueError("concat_examples: batch is empty")
    first = batch[0]
    if isinstance(first, tuple):
        n = len(first)
        for j, example in enumerate(batch):
            if not isinstance(example, tuple) or len(example) != n:
                raise ValueError(
                    f"concat_examples: example 0 is a tuple of length {n} but example {j} is {_describe(example)}"
                )
        if not isinstance(padding, tuple):
            padding = (padding,) * n
        elif len(padding) != n:
            raise ValueError(f"concat_examples: padding has {len(padding)} entries but the examples have {n} elements")
        return tuple(
            to_device(device, _concat_arrays([e[i] for e in batch], padding[i], f"elements at position {i}"))
            for i in range(n)
        )
    if isinstance(first, dict):
        keys = first.keys()
        for j, example in enumerate(batch):
            if not isinstance(example, dict) or example.keys() != keys:
                raise ValueError(
                    f"concat_examples: example 0 is a dict with keys {sorted(keys)} but example {j} is "
                    f"{_describe(example)}"
                )
        if not isinstance(padding, dict):
            padding = dict.fromkeys(keys, padding)
        return {
            key: to_device(device, _concat_arrays([e[key] for e in batch], padding.get(key), f"values of key {key!r}"))
            for key in keys
        }
    return to_device(device, _concat_arrays(list(batch), padding, "examples"))


def _describe(example: Any) -> str:
    if isinstance(example, tuple):
        return f"a tuple of length {len(example)}"
    if isinstance(example, dict):
        return f"a dict with keys {sorted(example)}"
    return f"a {type(example).__name__}"


concat_examples = _ArbitraryCallableConverter(concat_examples_func)
concat_examples.__name__ = concat_examples.__qualname__ = "concat_examples"


def _copy_to_gpu_async(x: numpy.ndarray, stream: Any, cupy: Any) -> tuple[Any, Any]:
    """Start copying ``x`` to the current GPU on ``stream`` through pinned host memory.

    Returns the GPU array and the pinned memory, which must live until the copy is done.
    """
    out = cupy.empty(x.shape, x.dtype)
    if x.nbytes == 0:
        return out, None
    memory = cupy.cuda.alloc_pinned_memory(x.nbytes)
    staging = numpy.frombuffer(memory, x.dtype, x.size).reshape(x.shape)
    staging[...] = x
    out.set(staging, stream=stream)
    return out, memory


class Conveyor:
    """Interface to handle asynchronous data transfer using double buffering.

    :meth:`put` starts sending an array to ``device`` and returns at once; :meth:`get`
    returns it there, ready for kernels on the current stream. On a GPU the copy runs on
    ``stream`` through pinned host memory, so a batch travels while the previous one is
    computed; on the CPU :meth:`get` simply sends the array.

    Args:
        device: The destination: a :class:`chainer.backend.Device`, a device specifier
            or an integer of the older API.
        stream: The ``cupy.cuda.Stream`` of the copies; ``None`` creates one at the first
            GPU transfer.

    Example:
        >>> from chainer.dataset.convert import Conveyor
        >>> conveyor = Conveyor('@numpy', None)
        >>> conveyor.put(np.arange(3))
        >>> conveyor.get()
        array([0, 1, 2])
    """

    def __init__(self, device: Any, stream: Any = None) -> None:
        self.device = backend._get_device_compat(device)
        self.stream = stream
        self._in_flight: Any = None

    def put(self, array: Any) -> None:
        """Start sending ``array`` (a host array) to the device."""
        if self._in_flight is not None:
            raise RuntimeError("Conveyor.put: the previous array has not been taken with get() yet")
        if not isinstance(self.device, backend.GpuDevice) or not isinstance(array, numpy.ndarray):
            self._in_flight = ("ready", array)
            return
        cupy = sys.modules["cupy"]
        with self.device.device:
            if self.stream is None:
                self.stream = cupy.cuda.Stream(non_blocking=True)
            out, memory = _copy_to_gpu_async(array, self.stream, cupy)
            self._in_flight = ("copying", (out, memory, self.stream.record()))

    def get(self) -> Any:
        """The array given to the last :meth:`put`, on the device."""
        if self._in_flight is None:
            raise RuntimeError("Conveyor.get: nothing was put")
        state, value = self._in_flight
        self._in_flight = None
        if state == "ready":
            return to_device(self.device, value)
        out, _memory, event = value
        sys.modules["cupy"].cuda.get_current_stream().wait_event(event)
        # The pinned memory is released only after the copy has finished.
        event.synchronize()
        return out


class ConcatWithAsyncTransfer(Converter):
    """Interface to concatenate data and transfer them to GPU asynchronously.

    It works like :func:`concat_examples`, but copies the concatenated arrays to the GPU
    through pinned host memory on a separate CUDA stream, so the copy of the next batch
    overlaps the kernels of the current one. On the CPU (``device`` ``None`` or a CPU
    device) it is exactly :func:`concat_examples`.

    Args:
        stream: The ``cupy.cuda.Stream`` the copies run on; ``None`` creates one on the
            first GPU call.
        compute_stream: The ``cupy.cuda.Stream`` the model computes on. The returned
            arrays are ready for kernels on this stream (it waits for the copy on the GPU
            side). ``None`` means the current stream at the time of the call.

    Example:
        >>> from chainer.dataset import ConcatWithAsyncTransfer
        >>> converter = ConcatWithAsyncTransfer()
        >>> x, t = converter([(np.ones(2, 'f'), 0), (np.zeros(2, 'f'), 1)])  # CPU: concat_examples
        >>> x
        array([[1., 1.],
               [0., 0.]], dtype=float32)

        On a GPU, give it to the updater (this line needs CuPy and a GPU, so the doc tests
        skip it):

        >>> updater = chainer.training.updaters.StandardUpdater(  # doctest: +SKIP
        ...     train_iter, optimizer, converter=converter, device='@cupy:0')
    """

    def __init__(self, stream: Any = None, compute_stream: Any = None) -> None:
        self._stream = stream
        self.compute_stream = compute_stream
        self._event: Any = None
        self._staging: list[Any] = []

    def __call__(self, batch: list[Any], device: Any = None, padding: Any = None) -> Any:
        if device is None:
            return concat_examples_func(batch, None, padding)
        target = backend._get_device_compat(device)
        if not isinstance(target, backend.GpuDevice):
            return concat_examples_func(batch, target, padding)
        host = concat_examples_func(batch, None, padding)
        cupy = sys.modules["cupy"]
        with target.device:
            if self._stream is None:
                self._stream = cupy.cuda.Stream(non_blocking=True)
            if self._event is not None:
                # The staging buffers of the previous batch may be reused only after its copy.
                self._event.synchronize()
            self._staging = []
            result = self._send(host, cupy)
            self._event = self._stream.record()
            consumer = self.compute_stream if self.compute_stream is not None else cupy.cuda.get_current_stream()
            consumer.wait_event(self._event)
        return result

    def _send(self, x: Any, cupy: Any) -> Any:
        if isinstance(x, tuple):
            return tuple(self._send(a, cupy) for a in x)
        if isinstance(x, dict):
            return {k: self._send(v, cupy) for k, v in x.items()}
        if not isinstance(x, numpy.ndarray):
            return x
        out, memory = _copy_to_gpu_async(x, self._stream, cupy)
        if memory is not None:
            self._staging.append(memory)
        return out
