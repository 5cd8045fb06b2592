"""A function node defined by a composite of differentiable functions.

Several nodes of Chainer's module tree (``chainer.functions.loss.hinge.Hinge``,
``chainer.functions.normalization.layer_normalization.LayerNormalization``, gradient
nodes such as ``PReLUFunctionGrad``) are, here, compositions of other functions. A
:class:`CompositeNode` gives such a composition the interface of one node: ``forward``
evaluates it on arrays without recording a graph, and ``backward`` evaluates it again on
the retained inputs with a graph and differentiates that, so gradients of every order
are exact. The backward pass pays for that second evaluation: a public function that
is a composition stays one (the node is for code that applies the class).
"""

from __future__ import annotations

from typing import Any

from chainer import function, function_node, utils, variable


class CompositeNode(function_node.FunctionNode):
    """A node computing :meth:`composite` of its inputs.

    Subclasses define :meth:`composite`, written with differentiable functions of the
    input variables; it returns one variable or a tuple of them.
    """

    def composite(self, *inputs: variable.Variable) -> Any:
        """The outputs as differentiable functions of the inputs."""
        raise NotImplementedError(f"{type(self).__name__}.composite: a composite node defines its computation")

    def _evaluate(self, inputs: tuple[Any, ...]) -> tuple[variable.Variable, ...]:
        outputs = self.composite(*inputs)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        # Float inputs require grad, so that a composite that differentiates (a gradient
        # node) can; no graph is recorded here otherwise.
        with function.no_backprop_mode():
            outputs = self._evaluate(tuple(variable.Variable(x, requires_grad=x.dtype.kind == "f") for x in inputs))
        return tuple(utils.force_array(y.array) for y in outputs)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        # The inputs are this node's own: the graph built here leads to them and stops.
        with function.force_backprop_mode():
            outputs = self._evaluate(inputs)
        pairs = [(y, gy) for y, gy in zip(outputs, grad_outputs) if gy is not None]
        targets = [inputs[i] for i in indexes]
        return tuple(
            function_node.grad(
                [y for y, _ in pairs], targets, grad_outputs=[gy for _, gy in pairs], enable_double_backprop=True
            )
        )


def gradients(fn: Any, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """The gradients of ``fn(*inputs)`` with respect to ``inputs`` for the output
    gradients ``grad_outputs``, as differentiable variables: the :meth:`composite` of a
    gradient node."""
    with function.force_backprop_mode():
        outputs = fn(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        return tuple(
            function_node.grad(
                list(outputs), list(inputs), grad_outputs=list(grad_outputs), enable_double_backprop=True
            )
        )
