"""A function node whose forward and backward are given as callables on arrays.

Chainer 7 used it to run compiled Theano graphs (``chainer.links.TheanoFunction``).
Theano is unmaintained and does not install on the Pythons this Chainer supports, but
the node needs nothing of Theano: any pair of callables on NumPy (or CuPy) arrays works.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import backend, function_node, utils, variable


def _as_arrays(values: Any, xp: Any) -> tuple[Any, ...]:
    if not isinstance(values, (list, tuple)):
        values = (values,)
    return tuple(None if v is None else utils.force_array(xp.asarray(v)) for v in values)


class TheanoFunction(function_node.FunctionNode):
    """Outputs ``forward_func(*inputs)`` with gradients ``backward_func(*inputs, *gys)``.

    Args:
        forward_func: Callable taking the input arrays and returning an array or a
            sequence of arrays.
        backward_func: Callable taking the input arrays followed by one gradient array per
            output (zeros for outputs without a gradient) and returning one gradient per
            input (``None`` for none).

    The gradients are not differentiable again (the callables are opaque).
    """

    def __init__(self, forward_func: Callable[..., Any], backward_func: Callable[..., Any]) -> None:
        self.forward_func = forward_func
        self.backward_func = backward_func

    @property
    def label(self) -> str:
        return "TheanoFunction"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        outputs = _as_arrays(self.forward_func(*inputs), xp)
        self._output_templates = [(y.shape, y.dtype) for y in outputs]
        return outputs

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        xp = backend.get_array_module(inputs[0].array)
        # Outputs without a gradient get zeros: backward_func takes one per output.
        gys = tuple(
            xp.zeros(shape, dtype) if gy is None else gy
            for gy, (shape, dtype) in zip(grad_outputs, self._output_templates)
        )
        grads = _TheanoGrad(self.backward_func, len(inputs)).apply(inputs + gys)
        return tuple(grads[i] for i in indexes)


class _TheanoGrad(function_node.FunctionNode):
    """``backward_func`` of a :class:`TheanoFunction` as a node (first order only)."""

    def __init__(self, backward_func: Callable[..., Any], n_inputs: int) -> None:
        self._backward_func = backward_func
        self._n_inputs = n_inputs

    @property
    def label(self) -> str:
        return "TheanoFunctionGrad"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xs = inputs[: self._n_inputs]
        xp = backend.get_array_module(*inputs)
        grads = _as_arrays(self._backward_func(*inputs), xp)
        if len(grads) != len(xs):
            raise ValueError(f"TheanoFunction: backward_func returned {len(grads)} gradients for {len(xs)} inputs")
        return tuple(xp.zeros_like(x) if g is None else g.astype(x.dtype, copy=False) for g, x in zip(grads, xs))

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            "TheanoFunction: its gradient cannot be differentiated again, as backward_func is an opaque callable"
        )


def theano_function(
    forward_func: Callable[..., Any], backward_func: Callable[..., Any], *inputs: Any
) -> tuple[variable.Variable, ...]:
    """Applies a :class:`TheanoFunction` of ``forward_func`` and ``backward_func``.

    Args:
        forward_func: Callable on the input arrays returning the output array(s).
        backward_func: Callable on the input arrays and the output gradients returning
            the input gradients.
        inputs: The input variables or arrays.

    Returns:
        The tuple of output variables.

    Example:
        >>> square = lambda x: x * x
        >>> square_grad = lambda x, gy: (2 * x * gy,)
        >>> from chainer.functions.theano import theano_function as T
        >>> T.theano_function(square, square_grad, np.array([3.0]))[0].array
        array([9.])
    """
    return TheanoFunction(forward_func, backward_func).apply(inputs)
