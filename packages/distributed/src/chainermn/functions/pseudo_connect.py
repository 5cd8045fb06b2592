"""``pseudo_connect``: tie a delegate variable to the variables a model returns."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import backend, function_node


class PseudoConnect(function_node.FunctionNode):
    """Identity on the actual variables; the delegate gets a zero gradient."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        delegate = inputs[0]
        self._delegate_spec = (delegate.shape, delegate.dtype)
        self._specs = [(x.shape, x.dtype) for x in inputs[1:]]
        return tuple(inputs[1:])

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        present = [g for g in grad_outputs if g is not None]
        xp = backend.get_array_module(*present) if present else backend.get_array_module(None)
        shape, dtype = self._delegate_spec
        grads = [chainer.Variable(xp.zeros(shape, dtype=dtype))]
        for g, (shape, dtype) in zip(grad_outputs, self._specs):
            grads.append(chainer.Variable(xp.zeros(shape, dtype=dtype)) if g is None else g)
        return tuple(grads)


def pseudo_connect(delegate_variable: Any, *actual_variables: Any) -> tuple[chainer.Variable, ...]:
    """Connect independent connected graph components.

    Returns variables equal to ``actual_variables`` whose backprop also reaches
    ``delegate_variable`` (with a zero gradient), so that the communication recorded
    behind the delegate (a :func:`~chainermn.functions.send`) runs in backward.

    Args:
        delegate_variable: The variable to keep reachable (``None``: nothing to connect).
        *actual_variables: The variables (or arrays) to return.

    Returns:
        A tuple of variables, one per actual variable (also for a single one, as in
        Chainer 7.8.1).

    Example:
        >>> phi1 = chainermn.functions.send(z1, comm, rank=1)  # doctest: +SKIP
        >>> phi2 = chainermn.functions.send(z2, comm, rank=1)  # doctest: +SKIP
        >>> (psi,) = chainermn.functions.pseudo_connect(phi1, phi2)  # doctest: +SKIP
    """
    if not actual_variables:
        raise ValueError("chainermn.functions.pseudo_connect: give at least one actual variable")
    if delegate_variable is None:
        return tuple(chainer.as_variable(v) for v in actual_variables)
    if not isinstance(delegate_variable, chainer.Variable):
        raise TypeError(
            "chainermn.functions.pseudo_connect: delegate_variable must be a chainer.Variable, "
            f"got {type(delegate_variable).__name__}"
        )
    actual = [chainer.as_variable(v) for v in actual_variables]
    return PseudoConnect().apply((delegate_variable, *actual))


__all__ = ["pseudo_connect"]
