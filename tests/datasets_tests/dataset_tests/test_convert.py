import numpy
import pytest

import chainer
from chainer import backend
from chainer.dataset import ConcatWithAsyncTransfer, Converter, concat_examples, convert, converter, to_device


def test_arrays_are_stacked():
    batch = [numpy.full((2, 3), i, numpy.float32) for i in range(4)]
    x = concat_examples(batch)
    assert x.shape == (4, 2, 3) and x.dtype == numpy.float32
    for i in range(4):
        numpy.testing.assert_array_equal(x[i], batch[i])


def test_tuples_are_stacked_per_position_and_scalars_become_arrays():
    batch = [(numpy.array([i, i + 1.0]), i, numpy.int32(i)) for i in range(3)]
    x, t, u = concat_examples(batch)
    numpy.testing.assert_array_equal(x, [[0, 1], [1, 2], [2, 3]])
    numpy.testing.assert_array_equal(t, [0, 1, 2])
    assert u.dtype == numpy.int32
    assert isinstance(concat_examples(batch), tuple)


def test_dicts_are_stacked_per_key():
    batch = [{"x": numpy.array([i]), "t": i * 2} for i in range(3)]
    out = concat_examples(batch)
    assert set(out) == {"x", "t"}
    numpy.testing.assert_array_equal(out["x"], [[0], [1], [2]])
    numpy.testing.assert_array_equal(out["t"], [0, 2, 4])


def test_padding_scalar_tuple_and_dict():
    a, b = numpy.array([[1, 2, 3]]), numpy.array([[4], [5]])
    x = concat_examples([a, b], padding=-1)
    expected = numpy.array([[[1, 2, 3], [-1, -1, -1]], [[4, -1, -1], [5, -1, -1]]])
    numpy.testing.assert_array_equal(x, expected)
    assert x.dtype == a.dtype

    x, y = concat_examples(
        [(numpy.array([1]), numpy.array([7, 8])), (numpy.array([2, 3]), numpy.array([9]))], padding=(0, 5)
    )
    numpy.testing.assert_array_equal(x, [[1, 0], [2, 3]])
    numpy.testing.assert_array_equal(y, [[7, 8], [9, 5]])

    out = concat_examples([{"a": numpy.array([1])}, {"a": numpy.array([2, 3])}], padding={"a": 9})
    numpy.testing.assert_array_equal(out["a"], [[1, 9], [2, 3]])


def test_device_arguments_on_cpu():
    batch = [numpy.array([1, 2]), numpy.array([3, 4])]
    for device in (None, -1, "@numpy", chainer.get_device("@numpy")):
        x = concat_examples(batch, device)
        assert isinstance(x, numpy.ndarray)
        numpy.testing.assert_array_equal(x, [[1, 2], [3, 4]])


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="concat_examples: batch is empty"):
        concat_examples([])
    with pytest.raises(ValueError, match=r"different shapes \[\(2,\), \(3,\)\].*padding"):
        concat_examples([numpy.zeros(2), numpy.zeros(3)])
    with pytest.raises(ValueError, match="example 0 is a tuple of length 2 but example 1 is a tuple of length 1"):
        concat_examples([(1, 2), (3,)])
    with pytest.raises(ValueError, match="example 1 is a dict with keys"):
        concat_examples([{"a": 1}, {"b": 1}])
    with pytest.raises(ValueError, match="padding has 1 entries but the examples have 2"):
        concat_examples([(numpy.zeros(1), numpy.zeros(1))], padding=(0,))
    with pytest.raises(ValueError, match="different numbers of dimensions"):
        concat_examples([numpy.zeros(2), numpy.zeros((1, 2))], padding=0)


def test_to_device():
    x = numpy.arange(3)
    assert to_device(None, x) is x
    assert to_device(-1, x) is x
    assert to_device("@numpy", x) is x
    assert to_device(backend.CpuDevice(), None) is None
    with pytest.raises(ValueError, match="unknown backend"):
        to_device("@nowhere", x)


def test_concat_examples_is_a_converter():
    assert isinstance(concat_examples, Converter)
    assert concat_examples.__name__ == "concat_examples"
    # The plain function behind it, as Chainer 7 exposed it.
    assert concat_examples.base_callable is convert.concat_examples_func
    x, t = convert.concat_examples_func([(numpy.zeros(2), 1), (numpy.ones(2), 2)], None)
    numpy.testing.assert_array_equal(x, [[0, 0], [1, 1]])
    numpy.testing.assert_array_equal(t, [1, 2])


def test_conveyor_on_the_cpu_hands_over_what_was_put():
    conveyor = convert.Conveyor(-1)
    for value in (numpy.arange(3), numpy.zeros((2, 2), numpy.float32)):
        conveyor.put(value)
        out = conveyor.get()
        assert isinstance(out, numpy.ndarray)
        numpy.testing.assert_array_equal(out, value)
    with pytest.raises(RuntimeError, match="nothing was put"):
        conveyor.get()
    conveyor.put(numpy.arange(2))
    with pytest.raises(RuntimeError, match="has not been taken with get"):
        conveyor.put(numpy.arange(2))


def test_converter_decorator_turns_device_ids_into_devices():
    seen = []

    @converter()
    def my_converter(batch, device=None):
        seen.append(device)
        return len(batch)

    assert isinstance(my_converter, Converter)
    assert my_converter([1, 2], -1) == 2
    assert my_converter([1], device=-1) == 1
    assert my_converter([1]) == 1
    my_converter([1], "@numpy")
    assert isinstance(seen[0], backend.CpuDevice) and isinstance(seen[1], backend.CpuDevice)
    assert seen[2] is None and seen[3] == "@numpy"
    with pytest.raises(TypeError, match="must be callable"):
        converter()(42)


def test_converter_base_is_abstract():
    with pytest.raises(NotImplementedError):
        Converter()([], None)


def test_call_converter_passes_devices_or_legacy_ids():
    calls = []

    def old_style(batch, device=None):
        calls.append(device)

    class NewStyle(Converter):
        def __call__(self, batch, device):
            calls.append(device)

    def two_arguments(batch, device):
        calls.append(("two", device))

    cpu = chainer.get_device("@numpy")
    convert._call_converter(old_style, [], cpu)
    convert._call_converter(old_style, [], None)
    convert._call_converter(NewStyle(), [], cpu)
    # A plain function gets the device argument even when it is None (as in Chainer 7).
    convert._call_converter(two_arguments, [], None)
    assert calls == [-1, None, cpu, ("two", None)]


def test_async_transfer_on_cpu_is_concat_examples():
    batch = [(numpy.array([1.0, 2.0]), 3), (numpy.array([4.0, 5.0]), 6)]
    conv = ConcatWithAsyncTransfer()
    for device in (None, -1, "@numpy"):
        x, t = conv(batch, device)
        numpy.testing.assert_array_equal(x, [[1, 2], [4, 5]])
        numpy.testing.assert_array_equal(t, [3, 6])
    x = conv([numpy.array([1]), numpy.array([2, 3])], None, padding=0)
    numpy.testing.assert_array_equal(x, [[1, 0], [2, 3]])


@pytest.mark.gpu
def test_async_transfer_on_gpu():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device")
    rng = numpy.random.default_rng(0)
    conv = ConcatWithAsyncTransfer()
    for _ in range(3):
        batch = [(rng.standard_normal(5).astype(numpy.float32), numpy.int32(i)) for i in range(4)]
        x, t = conv(batch, 0)
        assert isinstance(x, cupy.ndarray)
        cupy.cuda.get_current_stream().synchronize()
        numpy.testing.assert_array_equal(x.get(), numpy.stack([b[0] for b in batch]))
        numpy.testing.assert_array_equal(t.get(), numpy.arange(4))
    x = concat_examples([numpy.ones(2), numpy.zeros(2)], "@cupy:0")
    assert isinstance(x, cupy.ndarray)
    conveyor = convert.Conveyor("@cupy:0")
    host = rng.standard_normal((3, 4)).astype(numpy.float32)
    conveyor.put(host)
    out = conveyor.get()
    assert isinstance(out, cupy.ndarray)
    numpy.testing.assert_array_equal(out.get(), host)
