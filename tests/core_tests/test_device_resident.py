"""Tests of chainer.DeviceResident and the device moves of links."""

import warnings

import numpy
import pytest

import chainer
from chainer import backend, device_resident
from chainer.backends import _chainerx
from chainer.testing import attr


class FakeArray:
    """An array of the fake backend: a NumPy array in a box."""

    def __init__(self, data):
        self.data = numpy.asarray(data)

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)
    size = property(lambda self: self.data.size)

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)


class FakeDevice(backend.Device):
    xp = numpy
    supported_array_types = (FakeArray,)

    @property
    def name(self):
        return "@fake"

    def send_array(self, array):
        if isinstance(array, FakeArray):
            return array
        return FakeArray(backend.cpu().send_array(array))


class _FakePlugin:
    @chainer.hookimpl
    def chainer_register_backends(self, register):
        register("fake", FakeDevice, array_types=(FakeArray,))


@pytest.fixture
def fake_device():
    chainer.plugins.register(_FakePlugin(), name="test-fake-backend")
    try:
        yield chainer.get_device("@fake")
    finally:
        chainer.plugins.unregister(name="test-fake-backend")


class Child(chainer.Link):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(numpy.ones((2, 3), numpy.float32))
            self.u = chainer.Parameter(None)
        self.add_persistent("mean", numpy.zeros(3, numpy.float32))
        self.add_persistent("count", 3)


class Parent(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.child = Child()
            self.p = chainer.Parameter(numpy.zeros(2, numpy.float32))


def test_default_device_is_cpu():
    model = Parent()
    assert model.device == backend.CpuDevice()
    assert model.xp is numpy
    assert device_resident.DeviceResident().device == backend.CpuDevice()


def test_to_device_moves_everything_and_back(fake_device):
    model = Parent()
    model.child.W.grad = numpy.full((2, 3), 2.0, numpy.float32)
    assert model.to_device("@fake") is model
    for link in model.links():
        assert link.device == fake_device
    assert isinstance(model.p.array, FakeArray)
    assert isinstance(model.child.W.array, FakeArray)
    assert isinstance(model.child.W.grad, FakeArray)
    assert isinstance(model.child.mean, FakeArray)
    assert model.child.count == 3  # scalars stay as they are
    assert model.child.u.device == fake_device  # uninitialized: remembered for initialize()
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        assert model.to_cpu() is model
    assert type(model.child.W.array) is numpy.ndarray
    numpy.testing.assert_array_equal(model.child.W.array, numpy.ones((2, 3)))
    numpy.testing.assert_array_equal(model.child.W.grad, numpy.full((2, 3), 2.0))
    assert type(model.child.mean) is numpy.ndarray
    assert model.child.device == backend.CpuDevice()


def test_to_device_accepts_legacy_integers():
    model = Parent()
    assert model.to_device(-1) is model
    assert model.device == backend.CpuDevice()


def test_legacy_moves_warn_as_chainer_7_did():
    """to_cpu/to_gpu/to_intel64 of links are deprecated (DeprecationWarning, as in
    Chainer 7), attributed to Chainer and not to the caller, so that Python's default
    filters show nothing for an unchanged Chainer 7 script; to_device does not warn, nor
    do the to_cpu of variables and parameters (which Chainer 7 kept silent)."""
    with pytest.warns(DeprecationWarning) as record:
        Parent().to_cpu()
    assert len(record) == 1 and record[0].filename.endswith("device_resident.py")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Parent().to_device("@numpy")
        chainer.Variable(numpy.ones(2, numpy.float32)).to_cpu()
        chainer.Parameter(numpy.ones(2, numpy.float32)).to_cpu()


def test_unavailable_devices_raise_clear_errors(without_intel64_plugin):
    model = Parent()
    with pytest.raises(RuntimeError, match="CUDA environment is not available|CuPy"):
        model.to_device("@cupy:0")
    with pytest.raises(RuntimeError, match="install chainer-intel64"):
        model.to_device("@intel64")
    with pytest.raises(_chainerx.ChainerxNotAvailableError, match="ChainerX is not part"):
        model.to_chx()
    assert model.from_chx() is model
    assert model.device == backend.CpuDevice()


class RecordingVisitor(chainer.device_resident.DeviceResidentsVisitor):
    def __init__(self):
        self.residents, self.arrays, self.variables = [], [], []

    def visit_device_resident(self, device_resident):
        self.residents.append(device_resident)

    def visit_array(self, arr):
        self.arrays.append(arr)
        return arr

    def visit_variable(self, param):
        self.variables.append(param)


def test_visitor_sees_the_whole_hierarchy():
    model = Parent()
    visitor = RecordingVisitor()
    model.device_resident_accept(visitor)
    assert visitor.residents == [model, model.child]
    assert [id(v) for v in visitor.variables] == [id(model.p), id(model.child.W), id(model.child.u)]
    assert len(visitor.arrays) == 1 and visitor.arrays[0] is model.child.mean


def test_user_device_resident_shares_the_mechanism(fake_device):
    class Holder(device_resident.DeviceResident):
        def __init__(self):
            super().__init__()
            self.buffer = numpy.arange(3.0)
            self.model = Parent()

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.buffer = visitor.visit_array(self.buffer)
            self.model.device_resident_accept(visitor)

    holder = Holder()
    holder.to_device(fake_device)
    assert holder.device == fake_device and holder.model.child.device == fake_device
    assert isinstance(holder.buffer, FakeArray)
    assert isinstance(holder.model.child.W.array, FakeArray)


def test_legacy_to_cpu_override_is_called_once():
    calls = []

    # Overriding a legacy method is deprecated (at class creation), but it still runs.
    with pytest.warns(DeprecationWarning, match="Legacy overrides DeviceResident.to_cpu"):

        class Legacy(Child):
            def to_cpu(self):
                calls.append(self)
                with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
                    super().to_cpu()
                self.extra = "moved"
                return self

    class Root(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.a = Legacy()
                self.b = Child()

    root = Root()
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        root.to_cpu()
    assert calls == [root.a] and root.a.extra == "moved"
    root.to_device("@numpy")
    assert calls == [root.a, root.a]
    root.a.to_cpu()  # called directly: the override runs once, no recursion
    assert len(calls) == 3


@attr.gpu
def test_to_gpu_and_back():
    import cupy

    model = Parent()
    model.child.W.grad = numpy.full((2, 3), 2.0, numpy.float32)
    with pytest.warns(DeprecationWarning, match="to_gpu is deprecated"):
        assert model.to_gpu() is model
    assert isinstance(model.device, backend.GpuDevice) and model.xp is cupy
    assert isinstance(model.child.W.array, cupy.ndarray) and isinstance(model.child.W.grad, cupy.ndarray)
    assert isinstance(model.child.mean, cupy.ndarray)
    model.child.u.initialize((4,))
    assert isinstance(model.child.u.array, cupy.ndarray)
    model.to_device("@numpy")
    assert type(model.child.W.array) is numpy.ndarray and type(model.child.mean) is numpy.ndarray
    numpy.testing.assert_array_equal(model.child.W.grad, numpy.full((2, 3), 2.0))
    with pytest.warns(DeprecationWarning, match="to_gpu is deprecated"):
        model.to_gpu(0)
    assert model.device == chainer.get_device("@cupy:0")
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        model.to_cpu()
    assert model.device == backend.CpuDevice()
