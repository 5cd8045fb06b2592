import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _gather(x, index_fn, out_shape):
    """out[o] = x[index_fn(o)], one element at a time."""
    out = numpy.empty(out_shape, x.dtype)
    for o in numpy.ndindex(*out_shape):
        out[o] = x[index_fn(o)]
    return out


# Each case: the index, the output shape and where output element o comes from in x.
CASES = [
    {"name": "int", "slices": 1, "out": (4, 2), "src": lambda o: (1, o[0], o[1])},
    {"name": "slice", "slices": slice(1, 3), "out": (2, 4, 2), "src": lambda o: (o[0] + 1, o[1], o[2])},
    {"name": "tuple", "slices": (0, slice(None), 1), "out": (4,), "src": lambda o: (0, o[0], 1)},
    {
        "name": "negative_step",
        "slices": (slice(None, None, -1), slice(3, 0, -2)),
        "out": (3, 2, 2),
        "src": lambda o: (2 - o[0], 3 - 2 * o[1], o[2]),
    },
    {"name": "none_ellipsis", "slices": (None, Ellipsis, 0), "out": (1, 3, 4), "src": lambda o: (o[1], o[2], 0)},
    {"name": "ellipsis_middle", "slices": (1, Ellipsis, None, 1), "out": (4, 1), "src": lambda o: (1, o[0], 1)},
    {"name": "int_array", "slices": numpy.array([2, 0]), "out": (2, 4, 2), "src": lambda o: ((2, 0)[o[0]], o[1], o[2])},
    {
        "name": "repeated",
        "slices": numpy.array([1, 1, 0, 1]),
        "out": (4, 4, 2),
        "src": lambda o: ((1, 1, 0, 1)[o[0]], o[1], o[2]),
    },
    {
        "name": "int_arrays_2",
        "slices": (numpy.array([0, 2, 2]), slice(None), numpy.array([1, 0, 1])),
        "out": (3, 4),
        "src": lambda o: ((0, 2, 2)[o[0]], o[1], (1, 0, 1)[o[0]]),
    },
    {
        "name": "bool_mask",
        "slices": numpy.array([True, False, True]),
        "out": (2, 4, 2),
        "src": lambda o: ((0, 2)[o[0]], o[1], o[2]),
    },
    {
        "name": "bool_mask_2d",
        "slices": (slice(None), numpy.array([False, True, True, False])),
        "out": (3, 2, 2),
        "src": lambda o: (o[0], (1, 2)[o[1]], o[2]),
    },
    {"name": "list", "slices": [2, 2, 1], "out": (3, 4, 2), "src": lambda o: ((2, 2, 1)[o[0]], o[1], o[2])},
    {"name": "list_of_slices", "slices": [slice(None), 1], "out": (3, 2), "src": lambda o: (o[0], 1, o[1])},
    {"name": "empty_list", "slices": [], "out": (0, 4, 2), "src": None},
]


# Parameters must have a stable repr (pytest-xdist compares test ids): pass case names.
CASES_BY_NAME = {case["name"]: case for case in CASES}


@testing.parameterize(*testing.product({"name": list(CASES_BY_NAME), "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestGetItem(testing.FunctionTestCase):
    def setUp(self):
        self.case = CASES_BY_NAME[self.name]
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (3, 4, 2)).astype(self.dtype),)

    def forward(self, inputs, device):
        slices = self.case["slices"]
        if isinstance(slices, numpy.ndarray):
            slices = device.send(slices)
        elif isinstance(slices, tuple):
            slices = tuple(device.send(s) if isinstance(s, numpy.ndarray) else s for s in slices)
        return (F.get_item(inputs[0], slices),)

    def forward_expected(self, inputs):
        if self.case["src"] is None:
            return (numpy.empty(self.case["out"], self.dtype),)
        return (_gather(inputs[0], self.case["src"], self.case["out"]),)


def test_repeated_indices_accumulate_gradients():
    x = chainer.Variable(numpy.zeros((3, 2), "f"))
    y = x[[0, 2, 0, 0]]
    y.grad = numpy.arange(8, dtype="f").reshape(4, 2)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0 + 4 + 6, 1 + 5 + 7], [0, 0], [2, 3]])


def test_repeated_pairs_accumulate_gradients():
    x = chainer.Variable(numpy.zeros((2, 2), "f"))
    y = x[numpy.array([1, 1, 0]), numpy.array([0, 0, 1])]
    y.grad = numpy.array([1.0, 2.0, 3.0], "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 3], [3, 0]])


def test_basic_slice_gradient_is_zero_elsewhere():
    x = chainer.Variable(numpy.ones((2, 3), "f"))
    y = x[:, 1:]
    y.grad = numpy.full((2, 2), 5.0, "f")
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 5, 5], [0, 5, 5]])


def test_operator_and_variable_index():
    x = chainer.Variable(numpy.arange(6, dtype="f").reshape(2, 3))
    index = chainer.Variable(numpy.array([2, 0]))
    numpy.testing.assert_array_equal(x[:, index].array, [[2, 0], [5, 3]])
    numpy.testing.assert_array_equal(F.get_item(x, (1, index)).array, [5, 3])


def test_list_with_none_is_a_tuple_of_indices():
    x = numpy.arange(6, dtype="f").reshape(2, 3)
    y = F.get_item(x, [None, 1])
    assert y.shape == (1, 3)
    numpy.testing.assert_array_equal(y.array, [[3, 4, 5]])


def test_list_of_lists_is_a_tuple_of_index_arrays():
    # As in Chainer 7.8.1: only a list of ints is one index array; a list holding lists
    # indexes one axis per element (x[[0, 1], [2, 0]] in NumPy terms).
    x = numpy.arange(24, dtype="f").reshape(2, 3, 4)
    numpy.testing.assert_array_equal(F.get_item(x, [[0, 1], [2, 0]]).array, x[(0, 1), (2, 0), :])
    numpy.testing.assert_array_equal(F.get_item(x, [0, [0, 1], [2, 3]]).array, [x[0, 0, 2], x[0, 1, 3]])
    numpy.testing.assert_array_equal(F.get_item(x, [1, 0]).array, x[numpy.array([1, 0])])


def test_scalar_result_is_an_array():
    y = F.get_item(numpy.arange(6, dtype="f").reshape(2, 3), (1, 2))
    assert isinstance(y.array, numpy.ndarray)
    assert y.shape == ()
    assert y.array == 5


@pytest.mark.parametrize(
    ("slices", "error", "message"),
    [
        (5, IndexError, "out of bounds"),
        (numpy.array([0.5]), IndexError, "arrays used as indices must be of integer"),
    ],
)
def test_get_item_invalid_index_names_the_function(slices, error, message):
    with pytest.raises(error, match=message) as info:
        F.get_item(numpy.zeros((2, 3), "f"), slices)
    assert any("GetItem" in note for note in getattr(info.value, "__notes__", []))


def test_get_item_index_errors_of_chainer_7():
    # More indexed axes than x has is an InvalidType, two Ellipses a ValueError (as in
    # Chainer 7); a boolean mask indexes as many axes as it has.
    x = numpy.zeros((2, 3), "f")
    with pytest.raises(type_check.InvalidType, match=r"GetItem \(Forward\)[\s\S]*x.ndim >= the number of indexed axes"):
        F.get_item(x, (0, 0, 0))
    with pytest.raises(type_check.InvalidType, match=r"Actual: 2 < 3"):
        F.get_item(x, (numpy.ones((2, 3), bool), 0))
    with pytest.raises(ValueError, match=r"get_item: an index can have only one Ellipsis \('\.\.\.'\), got 2"):
        F.get_item(x, (Ellipsis, Ellipsis))
    assert F.get_item(x, (None, Ellipsis, 0, None)).shape == (1, 2, 1)


def test_install_variable_get_item_reinstalls_indexing():
    from chainer.functions.array import get_item as module

    saved = chainer.Variable.__getitem__
    try:
        chainer.Variable.__getitem__ = None
        module.install_variable_get_item()
        x = chainer.Variable(numpy.arange(3.0))
        numpy.testing.assert_array_equal(x[1:].array, [1.0, 2.0])
    finally:
        chainer.Variable.__getitem__ = saved
