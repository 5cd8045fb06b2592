"""PrintHook: prints each function and its inputs as it runs."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from chainer import backend, function_hook, variable


def _describe(array: Any) -> str:
    if array is None:
        # An input that the function did not retain for backward.
        return "(removed)"
    return variable.Variable(array, requires_grad=False).debug_print()


def _describe_gradient(grad: Any) -> str:
    if grad is None:
        return "None"
    # As Chainer prints it: a variable whose gradient is the one given.
    var = variable.Variable(backend.get_array_module(grad).zeros_like(grad), requires_grad=False)
    var.grad = grad
    return var.debug_print()


class PrintHook(function_hook.FunctionHook):
    """Prints the function name and a description of its inputs (and, in backward, the
    output gradients) before each call.

    Args:
        sep: Deprecated and ignored (kept for compatibility).
        end: Printed after each description.
        file: Where to print (``sys.stdout`` by default).
        flush: Flush ``file`` after each description.
    """

    name = "PrintHook"

    def __init__(self, sep: Any = None, end: str = "\n", file: TextIO | None = None, flush: bool = True) -> None:
        self.sep = sep
        self.end = end
        self.file = sys.stdout if file is None else file
        self.flush = flush

    def _print(self, text: str) -> None:
        self.file.write(text + self.end)
        if self.flush:
            self.file.flush()

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        lines = [f"function\t{function.label}", "input data"]
        lines += [_describe(x) for x in in_data]
        self._print("\n".join(lines))

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        lines = [f"function\t{function.label}", "input data"]
        lines += [_describe(x) for x in in_data]
        lines.append("output gradient")
        lines += [_describe_gradient(g) for g in out_grad]
        self._print("\n".join(lines))
