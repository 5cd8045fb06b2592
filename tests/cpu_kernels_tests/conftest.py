"""Shared by the direct kernel tests."""

import numpy
import pytest

DECLINED_CASES = ["float16", "mixed dtypes", "int32", "not contiguous", "read-only output", "not an array"]


@pytest.fixture(params=DECLINED_CASES)
def declined_arrays(request):
    """``make(strided_at, written_at)``: three six-element arrays that a kernel taking
    three float arrays of one dtype must decline, for one case of ``DECLINED_CASES``
    (the odd array of the "not contiguous" case at ``strided_at``, the read-only one
    where the kernel writes, ``written_at``)."""

    def make(strided_at, written_at):
        f32 = numpy.ones(6, numpy.float32)
        arrays = [f32.copy(), f32.copy(), f32.copy()]
        if request.param == "float16":
            arrays = [f32.astype(numpy.float16)] * 3
        elif request.param == "mixed dtypes":
            arrays[1] = f32.astype(numpy.float64)
        elif request.param == "int32":
            arrays = [numpy.ones(6, numpy.int32)] * 3
        elif request.param == "not contiguous":
            arrays[strided_at] = numpy.ones(12, numpy.float32)[::2]
        elif request.param == "read-only output":
            arrays[written_at] = numpy.frombuffer(bytes(24), numpy.float32)
        else:
            arrays[0] = [1.0] * 6
        return arrays

    return make
