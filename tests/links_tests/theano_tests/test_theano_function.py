"""L.TheanoFunction cannot work without Theano: it says so clearly."""

import pytest

import chainer
import chainer.links as L


def test_construction_explains_that_theano_is_unavailable():
    with pytest.raises(NotImplementedError, match="Theano is unmaintained .* does not install"):
        L.TheanoFunction(inputs=[], outputs=[])
    assert issubclass(L.TheanoFunction, chainer.Link)
