"""PrintHook: prints each function and its inputs as it runs."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from chainer import function_hook, variable


def _describe(array: Any) -> str:
    if array is None:
        return "None"
    return variable.Variable(array, requires_grad=False).debug_print()


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
        lines += [_describe(g) for g in out_grad]
        self._print("\n".join(lines))
