"""chainer.utils.argument: parsing and refusing keyword arguments."""

import pytest

from chainer.utils import argument


def _function(**kwargs):
    return argument.parse_kwargs(kwargs, ("a", 1), ("b", None), removed="removed is gone: use b")


class _Owner:
    def method(self, **kwargs):
        argument.assert_kwargs_empty(kwargs)


def test_parse_kwargs_returns_values_in_order_with_defaults():
    assert _function() == (1, None)
    assert _function(b=3) == (1, 3)
    assert _function(b=3, a=2) == (2, 3)


def test_parse_kwargs_pops_the_known_arguments():
    kwargs = {"a": 5}
    assert argument.parse_kwargs(kwargs, ("a", 0)) == (5,)
    assert kwargs == {}


def test_parse_kwargs_unknown_argument_names_the_caller():
    with pytest.raises(TypeError, match=r"^_function\(\) got unexpected keyword argument\(s\) 'c', 'z'$"):
        _function(z=1, c=2)


def test_parse_kwargs_removed_argument_has_its_message():
    with pytest.raises(ValueError, match="^removed is gone: use b$"):
        _function(removed=True)


def test_check_unexpected_kwargs():
    argument.check_unexpected_kwargs({"x": 1}, y="no y")
    with pytest.raises(ValueError, match="^no y$"):
        argument.check_unexpected_kwargs({"y": 1}, y="no y")


def test_assert_kwargs_empty():
    argument.assert_kwargs_empty({})
    _Owner().method()
    with pytest.raises(TypeError, match=r"^_Owner\.method\(\) got unexpected keyword argument\(s\) 'q'$"):
        _Owner().method(q=1)


def test_docstring_examples():
    import doctest

    import chainer

    for module in (argument, chainer.utils.experimental.__module__):
        module = __import__(module, fromlist=["_"]) if isinstance(module, str) else module
        result = doctest.testmod(module, extraglobs={"argument": argument, "chainer": chainer})
        assert result.failed == 0
