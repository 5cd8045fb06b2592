import itertools

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _reference_einsum(inputs_labels, out_labels, arrays):
    """Einstein summation from the definition: loop over every assignment of the labels.

    Labels are given per axis (``'...'`` already expanded by the test case), and size-1
    axes broadcast.
    """
    sizes = {}
    for labels, array in zip(inputs_labels, arrays):
        for label, size in zip(labels, array.shape):
            if size != 1 or label not in sizes:
                sizes[label] = size
    all_labels = sorted(sizes)
    out = numpy.zeros([sizes[label] for label in out_labels])
    for values in itertools.product(*[range(sizes[label]) for label in all_labels]):
        env = dict(zip(all_labels, values))
        term = 1.0
        for labels, array in zip(inputs_labels, arrays):
            index = tuple(0 if array.shape[axis] == 1 else env[label] for axis, label in enumerate(labels))
            term *= float(array[index])
        out[tuple(env[label] for label in out_labels)] += term
    return out


# (subscripts, operand shapes, labels per operand with '...' expanded, output labels)
CASES = [
    ("ij,jk->ik", [(2, 3), (3, 2)], ["ij", "jk"], "ik"),
    ("ij,jk", [(2, 3), (3, 2)], ["ij", "jk"], "ik"),
    ("ii->", [(3, 3)], ["ii"], ""),
    ("ii->i", [(3, 3)], ["ii"], "i"),
    ("ij->ji", [(2, 3)], ["ij"], "ji"),
    ("i,j->ij", [(3,), (2,)], ["i", "j"], "ij"),
    ("iij,jk->ik", [(2, 2, 3), (3, 2)], ["iij", "jk"], "ik"),
    ("ab,cd->", [(2, 3), (2, 2)], ["ab", "cd"], ""),
    ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)], ["ij", "jk", "kl"], "il"),
    ("...ij,...jk", [(2, 1, 2, 3), (3, 3, 2)], ["ABij", "Bjk"], "ABik"),
    ("i...->...", [(2, 3, 2)], ["iAB"], "AB"),
    ("ij,j->i", [(2, 3), (1,)], ["ij", "j"], "i"),
    ("bA,Ac", [(2, 3), (3, 2)], ["bA", "Ac"], "bc"),
]


@testing.parameterize(*testing.product({"case": CASES, "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestEinSum(testing.FunctionTestCase):
    def setUp(self):
        self.subscripts, self.shapes, self.labels, self.out_labels = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, shape).astype(self.dtype) for shape in self.shapes)

    def forward(self, inputs, device):
        return (F.einsum(self.subscripts, *inputs),)

    def forward_expected(self, inputs):
        return (numpy.asarray(_reference_einsum(self.labels, self.out_labels, inputs), self.dtype),)


def test_einsum_with_one_operand_twice():
    x = chainer.Variable(numpy.array([1.0, 2.0, 3.0]))
    F.einsum("i,i->", x, x).backward()
    numpy.testing.assert_allclose(x.grad, 2 * x.array)


def test_einsum_rejects_size_mismatch():
    with pytest.raises(
        type_check.InvalidType, match=r"EinSum \(Forward\)[\s\S]*size of the subscript 'j'[\s\S]*3 and 4"
    ):
        F.einsum("ij,jk", numpy.ones((2, 3), numpy.float32), numpy.ones((4, 2), numpy.float32))


def test_einsum_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"Expect: x0\.ndim == 2 \(subscripts ij\)[\s\S]*x0\.ndim is 3"):
        F.einsum("ij", numpy.ones((2, 3, 4), numpy.float32))


def test_einsum_rejects_unequal_diagonal():
    with pytest.raises(type_check.InvalidType, match=r"repeat a subscript have one size"):
        F.einsum("ii", numpy.ones((2, 3), numpy.float32))


def test_einsum_rejects_mixed_dtypes_and_integers():
    with pytest.raises(type_check.InvalidType, match=r"x1\.dtype == x0\.dtype"):
        F.einsum("i,i", numpy.ones(2, numpy.float32), numpy.ones(2, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=r"x0\.dtype\.kind == f"):
        F.einsum("i", numpy.ones(2, numpy.int32))


@pytest.mark.parametrize(
    "subscripts,shapes,message",
    [
        ("ij->k", [(2, 3)], r"the output subscript 'k' names no axis"),
        ("ij->ii", [(2, 2)], r"the output repeats the subscript 'i'"),
        ("i.j", [(2, 2)], r"subscripts must be letters or '\.\.\.', got '\.'"),
        ("i1", [(2, 2)], r"got '1'"),
        ("...i->i", [(2, 3)], r"the output subscripts need '\.\.\.' too"),
        ("i,j", [(2,)], r"name 2 operand\(s\) but 1 given"),
        ("i->i->i", [(2,)], r"'->' may appear once"),
        ("......i", [(2,)], r"'\.\.\.' may appear once"),
    ],
)
def test_einsum_rejects_bad_subscripts(subscripts, shapes, message):
    with pytest.raises(ValueError, match=message):
        F.einsum(subscripts, *[numpy.ones(s, numpy.float32) for s in shapes])


def test_einsum_needs_subscripts_first():
    with pytest.raises(TypeError, match=r"the first argument must be the subscripts string"):
        F.einsum(numpy.ones(2, numpy.float32), "i")
