"""One backward step of one function, on a table of gradient lists.

:mod:`chainer._backprop` runs the whole traversal with one gradient per node; this
module exposes the single step in the form code written for Chainer drives by hand:
``grad_inputs`` maps each input node to a *list* of gradients that are summed lazily
(``chainer.config.lazy_grad_sum``) or kept summed in one element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import _backprop, configuration, variable


def _reduce(grad_list: Sequence[Any]) -> Any:
    """The sum of a gradient list (``None`` if it is empty)."""
    if not grad_list:
        return None
    total = grad_list[0]
    for g in grad_list[1:]:
        total = total + g
    return total


def backprop_step(
    func: Any,
    target_input_indexes: tuple[int, ...],
    grad_outputs: tuple[Any, ...],
    grad_inputs: dict[Any, list[Any]],
    is_debug: bool,
) -> None:
    """Run the backward of ``func`` and add its input gradients to ``grad_inputs``.

    Args:
        func: The :class:`~chainer.FunctionNode` (its ``inputs`` are nodes).
        target_input_indexes: Indexes of the inputs that need a gradient.
        grad_outputs: Gradients of the outputs (``None`` for none).
        grad_inputs: Input node -> list of the gradients accumulated so far; updated
            in place (one element unless ``lazy_grad_sum`` is on).
        is_debug: Check the returned gradients (number, type, shape, dtype, NaN).
    """
    inputs = func.inputs
    if inputs is None:
        raise RuntimeError(f"backprop_step: {func.label} has no inputs (it was never applied, or was unchained)")
    target = tuple(target_input_indexes)
    # Debug mode compares each new gradient's dtype with the gradient accumulated so far.
    dtypes = []
    for i in target:
        so_far = grad_inputs.get(inputs[i])
        dtypes.append(so_far[0].dtype if so_far else None)
    if func._has_custom_accumulate:
        # The function adds to the gradients so far itself: hand them over, summed,
        # once per input node (a node given twice gets its sum at the first position).
        seen: set[int] = set()
        accumulated = []
        for i in target:
            node = inputs[i]
            if id(node) in seen:
                accumulated.append(None)
                continue
            seen.add(id(node))
            grads = grad_inputs.get(node, [])
            accumulated.append(_reduce(grads))
            grads.clear()
        gxs = func.backward_accumulate(target, tuple(grad_outputs), tuple(accumulated))
    else:
        gxs = func.backward(target, tuple(grad_outputs))
        if len(gxs) != len(target):
            gxs = _backprop._select_targets(func, target, gxs)
    if is_debug:
        _backprop._check_grads_debug(func, target, tuple(gxs), dtypes)
    lazy = configuration.config.lazy_grad_sum
    for i, gx in zip(target, gxs):
        if gx is None:
            continue
        if not isinstance(gx, variable.Variable):
            gx = variable.Variable(gx, requires_grad=False)
        grads = grad_inputs.setdefault(inputs[i], [])
        if lazy or not grads:
            grads.append(gx)
        else:
            grads[0] = gx + grads[0]
