import pytest

from chainer import iterators


def test_not_provided():
    with pytest.raises(NotImplementedError, match="DaliIterator is not available"):
        iterators.DaliIterator(pipeline=None)
