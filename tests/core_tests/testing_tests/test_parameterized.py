"""product, product_dict, pairwise products and parameterize (with the other test case
generators, stacked in any order)."""

import itertools
import unittest

import pytest

from chainer import testing
from chainer.testing import parameterized


def test_product_of_a_dict_takes_every_combination_in_order():
    assert testing.product({"a": [1, 2], "b": [3, 4, 5]}) == [
        {"a": a, "b": b} for a, b in itertools.product([1, 2], [3, 4, 5])
    ]
    assert testing.product({"a": [1, 2], "b": []}) == []
    assert testing.product({}) == [{}]


def test_product_takes_the_keys_in_sorted_order():
    # The first key in sorted order varies slowest, whatever the order of the dict.
    assert testing.product({"b": [1, 2], "a": [3, 4]}) == [
        {"a": 3, "b": 1},
        {"a": 3, "b": 2},
        {"a": 4, "b": 1},
        {"a": 4, "b": 2},
    ]


def test_class_names_show_every_parameter_shortened_by_itself(scratch):
    import numpy

    class Case(unittest.TestCase):
        def test_a(self):
            pass

    params = {"f": test_product_takes_the_keys_in_sorted_order, "dtype": numpy.float32, "s": "y" * 300}
    (name,) = scratch.expand(testing.parameterize(params), Case)
    head, tail = "'" + "y" * 47, "y" * 48 + "'"
    assert name == f"Case_param_0_{{dtype=float32, f=test_product_takes_the_keys_in_sorted_order, s={head}...{tail}}}"


def test_a_key_naming_several_parameters_takes_tuples_of_them():
    assert testing.product({"x,y": [(1, 2), (3, 4)], "z": [0]}) == [
        {"x": 1, "y": 2, "z": 0},
        {"x": 3, "y": 4, "z": 0},
    ]
    with pytest.raises(ValueError, match="2 names"):
        testing.product({"x,y": [(1, 2, 3)]})


def test_product_dict_merges_one_dict_of_each_list():
    lists = [[{"a": 1, "b": 3}, {"a": 2, "b": 4}], [{"c": 5}, {"c": 6}]]
    assert testing.product_dict(*lists) == [
        {"a": 1, "b": 3, "c": 5},
        {"a": 1, "b": 3, "c": 6},
        {"a": 2, "b": 4, "c": 5},
        {"a": 2, "b": 4, "c": 6},
    ]
    assert testing.product(lists) == testing.product_dict(*lists)
    assert testing.product_dict() == [{}]
    assert testing.product_dict([{"a": 1}], []) == []


@pytest.mark.parametrize("sizes", [(3, 3, 3, 3), (2, 5, 3), (4, 1, 2, 2), (6,), (2, 3)])
def test_pairwise_product_covers_every_pair_of_choices(sizes):
    lists = [[{f"p{i}": v} for v in range(n)] for i, n in enumerate(sizes)]
    cases = parameterized._pairwise_product_dict(*lists)
    full = testing.product_dict(*lists)
    assert all(case in full for case in cases)
    for i, j in itertools.combinations(range(len(sizes)), 2):
        seen = {(case[f"p{i}"], case[f"p{j}"]) for case in cases}
        assert seen == set(itertools.product(range(sizes[i]), range(sizes[j])))
    if len(sizes) > 2:
        assert len(cases) < len(full)


def test_parameterize_makes_one_class_per_dict_with_its_items_as_attributes(scratch, run):
    def helper(x):
        return x + 1

    class Case(unittest.TestCase):
        def test_it(self):
            assert self.f(self.a) == self.a + 1

    generated = scratch.expand(testing.parameterize({"a": 1, "f": helper}, {"a": 2, "f": helper}), Case)
    assert sorted(name.split("{")[0] for name in generated) == ["Case_param_0_", "Case_param_1_"]
    assert all("a=" in name for name in generated)
    for klass in generated.values():
        assert issubclass(klass, Case) and klass.__module__ == scratch.module.__name__
        # A function stays a plain function, not a method bound to the test.
        assert klass("test_it").f is helper
        assert run(klass, "test_it").wasSuccessful()
    # The decorated class itself is taken out of the module.
    assert "Case" not in vars(scratch.module)


def test_the_decorated_name_binds_a_bundle_that_is_not_a_test_class():
    class Case(unittest.TestCase):
        pass

    Case.__module__ = __name__
    bundle = testing.parameterize({"a": 1})(Case)
    try:
        assert not isinstance(bundle, type)
        assert [c.klass.a for c in bundle.cases] == [1]
    finally:
        for case in bundle.cases:
            delattr(__import__("sys").modules[__name__], case.name)


@pytest.mark.parametrize("order", ["parameterize first", "backends first"])
def test_generators_stack_in_any_order(scratch, run, order):
    seen = []

    class Case(unittest.TestCase):
        def test_it(self, backend_config):
            seen.append((self.a, self.b, backend_config.xp.__name__))

    param_a = testing.parameterize({"a": 1}, {"a": 2})
    param_b = testing.parameterize_pytest("b", [10, 20, 30])
    backends = testing.inject_backend_tests(None, [{}])
    if order == "parameterize first":
        decorate = lambda c: backends(param_b(param_a(c)))
    else:
        decorate = lambda c: param_a(param_b(backends(c)))
    generated = scratch.expand(decorate, Case)
    assert len(generated) == 6
    for klass in generated.values():
        assert run(klass, "test_it").wasSuccessful()
    assert sorted(seen) == [(a, b, "numpy") for a in (1, 2) for b in (10, 20, 30)]


def test_parameterize_pytest_takes_pytest_style_names():
    assert parameterized.from_pytest_parameterize("x, y", [(1, 2), (3, 4)]) == [{"x": 1, "y": 2}, {"x": 3, "y": 4}]
    assert parameterized.from_pytest_parameterize(["x"], [5]) == [{"x": 5}]


def test_a_parameter_must_be_a_dict():
    with pytest.raises(TypeError, match="parameter 1 must be a dict"):
        testing.parameterize({"a": 1}, [("a", 2)])
    with pytest.raises(TypeError, match="expects a class"):
        testing.parameterize({"a": 1})(lambda: None)
