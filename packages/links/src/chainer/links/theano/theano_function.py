"""The Theano function wrapper of Chainer 7, which cannot work any more."""

from __future__ import annotations

from typing import Any

from chainer import link

_MESSAGE = (
    "TheanoFunction is not available: Theano is unmaintained (its last release predates Python 3.11 "
    "and NumPy 2) and does not install on the Python versions this Chainer supports, so there is no "
    "Theano function to wrap. Port the computation to chainer.functions (or wrap another library with "
    "a chainer.FunctionNode)."
)


class TheanoFunction(link.Link):
    """Theano function wrapper (not available).

    ``TheanoFunction(inputs, outputs)``

    Chainer 7 wrapped a compiled Theano graph as a link. Theano is unmaintained and does
    not install on Python 3.11+, so constructing this link raises
    :class:`NotImplementedError` explaining that.

    Args:
        inputs: Theano input variables (unused).
        outputs: Theano output variables (unused).

    Raises:
        NotImplementedError: Always.
    """

    def __init__(self, inputs: Any, outputs: Any) -> None:
        raise NotImplementedError(_MESSAGE)

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(_MESSAGE)


__all__ = ["TheanoFunction"]
