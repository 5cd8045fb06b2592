"""Arrays as MPI buffers.

mpi4py's buffer-based calls (``Bcast``, ``Allreduce``, ...) take ``[buffer, datatype]``;
these helpers build it for NumPy arrays and for CuPy arrays (device memory, for a
CUDA-aware MPI).
"""

from __future__ import annotations

from typing import Any

import numpy

from chainermn._mpi import MPI


def _is_cupy_array(array: Any) -> bool:
    return type(array).__module__.split(".")[0] == "cupy"


def get_device_memory_pointer(array: Any) -> int:
    """The address of a CuPy array's device memory."""
    if not _is_cupy_array(array):
        raise TypeError(f"get_device_memory_pointer: expected a cupy.ndarray, got {type(array).__name__}")
    return int(array.data.ptr)


def array_to_buffer_object(array: Any, mpi_dtype: Any = None) -> list[Any]:
    """``[buffer, mpi_dtype]`` over the memory of a C-contiguous array, for mpi4py.

    Args:
        array: A C-contiguous ``numpy.ndarray``, or a ``cupy.ndarray`` (its device memory:
            the MPI library must be CUDA-aware).
        mpi_dtype: The MPI datatype of the elements (default ``MPI.FLOAT``).
    """
    if mpi_dtype is None:
        mpi_dtype = MPI.FLOAT
    if _is_cupy_array(array):
        if not array.flags.c_contiguous:
            raise ValueError("array_to_buffer_object: the array must be C-contiguous")
        return [MPI.buffer.fromaddress(get_device_memory_pointer(array), array.nbytes), mpi_dtype]
    if not isinstance(array, numpy.ndarray):
        raise TypeError(f"array_to_buffer_object: expected a numpy.ndarray or cupy.ndarray, got {type(array).__name__}")
    if not array.flags.c_contiguous:
        raise ValueError("array_to_buffer_object: the array must be C-contiguous")
    return [array, mpi_dtype]


__all__ = ["array_to_buffer_object", "get_device_memory_pointer"]
