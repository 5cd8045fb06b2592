import itertools

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.math import einsum as einsum_module
from chainer.utils import type_check


def _reference_einsum(inputs_labels, out_labels, arrays, out_sizes=None):
    """Einstein summation from the definition: loop over every assignment of the labels.

    Labels are given per axis (``'...'`` already expanded by the test case). The output
    may repeat a label (the value goes on the diagonal) or name a label no operand has
    (the value is repeated along it); ``out_sizes`` gives the sizes of such labels.
    """
    sizes = dict(out_sizes or {})
    for labels, array in zip(inputs_labels, arrays):
        sizes.update(zip(labels, array.shape))
    all_labels = sorted(sizes)
    out = numpy.zeros([sizes[label] for label in out_labels])
    for values in itertools.product(*[range(sizes[label]) for label in all_labels]):
        env = dict(zip(all_labels, values))
        term = 1.0
        for labels, array in zip(inputs_labels, arrays):
            term *= float(array[tuple(env[label] for label in labels)])
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
    ("...ij,...jk", [(2, 2, 3), (2, 3, 2)], ["Aij", "Ajk"], "Aik"),
    ("...ij,jk", [(2, 2, 2, 3), (3, 2)], ["ABij", "jk"], "ABik"),
    ("i...->...", [(2, 3, 2)], ["iAB"], "AB"),
    ("...i->i", [(3,)], ["i"], "i"),
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


@testing.parameterize(
    *testing.product(
        {
            "case": [
                # (input subscripts, output subscript, input shapes, output shape)
                (["i"], "ij", [(3,)], (3, 2)),
                ([""], "i", [()], (3,)),
                (["", "i"], "ij", [(), (2,)], (2, 3)),
                (["", "ij"], "i", [(), (3, 2)], (3,)),
                (["ij"], "ii", [(3, 2)], (3, 3)),
                (["i", "i"], "iij", [(3,), (3,)], (3, 3, 2)),
            ],
            "dtype": [numpy.float32, numpy.float64],
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestDiagEinSum(testing.FunctionTestCase):
    # The node whose output repeats a label (the sum goes on the diagonal, zeros elsewhere)
    # or names a label no operand has (the sum is repeated along it): the gradient of an
    # einsum, built as Chainer 7 did, DiagEinSum(in_subs=..., out_sub=..., out_shape=...).
    def setUp(self):
        self.in_subs, self.out_sub, self.shapes, self.out_shape = self.case
        self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
        self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.asarray(numpy.random.uniform(-1, 1, shape), self.dtype) for shape in self.shapes)

    def forward(self, inputs, device):
        node = einsum_module.DiagEinSum(in_subs=",".join(self.in_subs), out_sub=self.out_sub, out_shape=self.out_shape)
        return node.apply(inputs)

    def forward_expected(self, inputs):
        out_sizes = dict(zip(self.out_sub, self.out_shape))
        expected = _reference_einsum(self.in_subs, "".join(dict.fromkeys(self.out_sub)), inputs, out_sizes)
        out = numpy.zeros(self.out_shape)
        for index in numpy.ndindex(*self.out_shape):
            env = {}
            if all(env.setdefault(label, k) == k for label, k in zip(self.out_sub, index)):
                out[index] = expected[tuple(env[label] for label in dict.fromkeys(self.out_sub))]
        return (out.astype(self.dtype),)


@testing.parameterize(
    *testing.product(
        {"dtypes": [(numpy.float16, numpy.float32), (numpy.float32, numpy.float64), (numpy.float64, numpy.float16)]}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestEinSumMixedDtypes(testing.FunctionTestCase):
    # Chainer 7 sums operands of different floating dtypes: the result has the promoted
    # dtype and each gradient its operand's dtype (checked by the harness).
    def setUp(self):
        self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
        self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        a = numpy.random.uniform(-1, 1, (2, 3)).astype(self.dtypes[0])
        return a, numpy.random.uniform(-1, 1, (3, 2)).astype(self.dtypes[1])

    def forward(self, inputs, device):
        return (F.einsum("ij,jk->ik", *inputs),)

    def forward_expected(self, inputs):
        out = _reference_einsum(["ij", "jk"], "ik", inputs)
        return (out.astype(numpy.promote_types(*self.dtypes)),)


def test_einsum_integer_sublist_form():
    # NumPy's second form: arrays alternate with lists of integer labels (label k is the
    # k-th of 'A'..'Z', 'a'..'z'), Ellipsis standing for '...'; an optional last list is
    # the output.
    a = numpy.random.uniform(-1, 1, (2, 3))
    b = numpy.random.uniform(-1, 1, (3, 4))
    expected = _reference_einsum(["ij", "jk"], "ik", [a, b])
    numpy.testing.assert_allclose(F.einsum(a, [0, 1], b, [1, 2], [0, 2]).array, expected)
    numpy.testing.assert_allclose(F.einsum(a, [0, 1], b, [1, 2]).array, expected)
    c = numpy.random.uniform(-1, 1, (4, 2, 3))
    numpy.testing.assert_allclose(F.einsum(c, [Ellipsis, 1], [Ellipsis]).array, _reference_einsum(["ABi"], "AB", [c]))
    assert einsum_module.einsum_symbols[:3] == "ABC" and einsum_module.einsum_symbols[26] == "a"
    with pytest.raises(ValueError, match=r"ints in \[0, 52\) or Ellipsis, got 60 for operand 0"):
        F.einsum(a, [0, 60])


def test_einsum_does_not_broadcast():
    # As in Chainer 7: a letter has one size everywhere, and '...' the same axes in every
    # operand that has it.
    with pytest.raises(type_check.InvalidType, match=r"EinSum \(Forward\)[\s\S]*x0\.shape\[0\] == x1\.shape\[0\]"):
        F.einsum("i,i", numpy.ones(1, numpy.float32), numpy.ones(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"x0\.shape\[0\] == x1\.shape\[0\]"):
        F.einsum("...i,...i", numpy.ones((2, 2), numpy.float32), numpy.ones((1, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"as many axes under it[\s\S]*0 and 1"):
        F.einsum("...i,...i", numpy.ones((2,), numpy.float32), numpy.ones((1, 2), numpy.float32))


def test_einsum_with_one_operand_twice():
    x = chainer.Variable(numpy.array([1.0, 2.0, 3.0]))
    F.einsum("i,i->", x, x).backward()
    numpy.testing.assert_allclose(x.grad, 2 * x.array)


def test_einsum_rejects_size_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"EinSum \(Forward\)[\s\S]*x0\.shape\[1\] == x1\.shape\[0\]"):
        F.einsum("ij,jk", numpy.ones((2, 3), numpy.float32), numpy.ones((4, 2), numpy.float32))


def test_einsum_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"Expect: x0\.ndim == 2 \(subscripts ij\)[\s\S]*x0\.ndim is 3"):
        F.einsum("ij", numpy.ones((2, 3, 4), numpy.float32))


def test_einsum_rejects_unequal_diagonal():
    with pytest.raises(type_check.InvalidType, match=r"x0\.shape\[0\] == x0\.shape\[1\]"):
        F.einsum("ii", numpy.ones((2, 3), numpy.float32))


def test_einsum_rejects_integers():
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
        ("i,i->...", [(2,), (2,)], r"the output subscripts have '\.\.\.' but no operand's do"),
        ("i,j", [(2,)], r"name 2 operand\(s\) but 1 given"),
        ("i->i->i", [(2,)], r"'->' may appear once"),
        ("......i", [(2,)], r"'\.\.\.' may appear once"),
    ],
)
def test_einsum_rejects_bad_subscripts(subscripts, shapes, message):
    with pytest.raises(ValueError, match=message):
        F.einsum(subscripts, *[numpy.ones(s, numpy.float32) for s in shapes])


def test_einsum_needs_subscripts_first():
    with pytest.raises(TypeError, match=r"give the subscripts string first"):
        F.einsum(numpy.ones(2, numpy.float32), [0], "i", [0])
    with pytest.raises(ValueError, match=r"no operands given"):
        F.einsum()
