"""A third-party backend for tests: '@fakedev:N' devices hold FakeArray (a NumPy subclass).

It exercises the public plugin API exactly as an outside distribution would.
"""

import numpy

import chainer
from chainer import backend


class FakeArray(numpy.ndarray):
    """A NumPy array that remembers which fake device it lives on."""

    device_index = 0

    def __array_finalize__(self, obj):
        self.device_index = getattr(obj, "device_index", 0)


class FakeDevice(backend.Device):
    xp = numpy
    supported_array_types = (FakeArray,)

    def __init__(self, index=0):
        self.index = index

    @property
    def name(self):
        return f"@fakedev:{self.index}"

    @staticmethod
    def from_array(array):
        if isinstance(array, FakeArray):
            return FakeDevice(array.device_index)
        return None

    def is_array_supported(self, array):
        return isinstance(array, FakeArray) and array.device_index == self.index

    def send_array(self, array):
        out = numpy.array(array, copy=True).view(FakeArray)
        out.device_index = self.index
        return out


@chainer.hookimpl
def chainer_register_backends(register):
    register(
        "fakedev",
        FakeDevice,
        array_types=(FakeArray,),
        factory=lambda index: FakeDevice(0 if index is None else index),
        check_available=lambda: None,
    )
