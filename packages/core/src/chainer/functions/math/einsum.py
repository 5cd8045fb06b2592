"""Einstein summation over any number of operands."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check

_WHERE = "chainer.functions.einsum"
_LETTERS = string.ascii_letters


class EinSum(function_node.FunctionNode):
    """``numpy.einsum`` on operands whose subscripts are explicit letters.

    The public :func:`einsum` resolves ``...``, the implicit output and size-1
    broadcasting first, so that here every label has one size in every operand. The
    gradient for an operand is again an einsum (of the other operands and the output
    gradient), broadcast over the labels only that operand has and put on the diagonal
    where the operand repeats a label.
    """

    def __init__(self, in_labels: Sequence[str], out_labels: str) -> None:
        self.in_labels = tuple(in_labels)
        self.out_labels = out_labels

    @property
    def label(self) -> str:
        return "EinSum"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, tuple(f"x{i}" for i in range(len(self.in_labels))))
        first = in_types[0]
        type_check.expect(first.dtype.kind == "f", *[t.dtype == first.dtype for t in in_types[1:]])
        for t, labels in zip(in_types, self.in_labels):
            type_check.expect(t.ndim == len(labels))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        spec = ",".join(self.in_labels) + "->" + self.out_labels
        y = xp.einsum(spec, *inputs, optimize=len(inputs) > 2)
        return (utils.force_array(y, inputs[0].dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast, reshape

        gy = grad_outputs[0]
        xs = self.get_retained_inputs()
        sizes: dict[str, int] = {}
        for x, labels in zip(xs, self.in_labels):
            sizes.update(zip(labels, x.shape))
        result = []
        for i in indexes:
            labels = self.in_labels[i]
            unique = "".join(dict.fromkeys(labels))
            others = [j for j in range(len(xs)) if j != i]
            available = set(self.out_labels).union(*(self.in_labels[j] for j in others))
            kept = "".join(label for label in unique if label in available)
            g = EinSum([self.in_labels[j] for j in others] + [self.out_labels], kept).apply(
                [xs[j] for j in others] + [gy]
            )[0]
            if kept != unique:
                # Labels only this operand has were summed out: the gradient is constant along them.
                g = reshape.reshape(g, tuple(sizes[label] if label in available else 1 for label in unique))
                g = broadcast.broadcast_to(g, tuple(sizes[label] for label in unique))
            if unique != labels:
                g = _DiagEmbed(unique, labels, xs[i].shape).apply((g,))[0]
            result.append(g)
        return tuple(result)


class _DiagEmbed(function_node.FunctionNode):
    """Place an array indexed by ``unique`` labels on the diagonal of an array indexed by
    ``labels`` (which repeat some of them), zeros elsewhere: the adjoint of taking a
    diagonal with einsum (``'ii->i'``)."""

    def __init__(self, unique: str, labels: str, shape: tuple[int, ...]) -> None:
        self.unique = unique
        self.labels = labels
        self.shape = shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        g = inputs[0]
        xp = backend.get_array_module(g)
        gx = xp.zeros(self.shape, g.dtype)
        n = len(self.unique)
        index = []
        for label, size in zip(self.labels, self.shape):
            axis_shape = [1] * n
            axis_shape[self.unique.index(label)] = size
            index.append(xp.arange(size).reshape(axis_shape))
        gx[tuple(index)] = g
        return (gx,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return EinSum([self.labels], self.unique).apply(grad_outputs)


def _split_term(term: str, position: str) -> tuple[str, str, bool]:
    """Split a subscript term into the labels before and after ``...``."""
    if term.count("...") > 1:
        raise ValueError(f"{_WHERE}: '...' may appear once per operand, got {term!r} for {position}")
    has_ellipsis = "..." in term
    head, _, tail = term.partition("...")
    for char in head + tail:
        if char not in _LETTERS:
            raise ValueError(f"{_WHERE}: subscripts must be letters or '...', got {char!r} in {term!r} for {position}")
    return head, tail, has_ellipsis


def _parse(subscripts: str, n_operands: int) -> tuple[list[tuple[str, str, bool]], tuple[str, str, bool] | None]:
    spec = subscripts.replace(" ", "")
    if spec.count("->") > 1:
        raise ValueError(f"{_WHERE}: '->' may appear once, got {subscripts!r}")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != n_operands:
        raise ValueError(f"{_WHERE}: the subscripts {subscripts!r} name {len(terms)} operand(s) but {n_operands} given")
    inputs = [_split_term(term, f"operand {i}") for i, term in enumerate(terms)]
    output = _split_term(rhs, "the output") if arrow else None
    return inputs, output


def _resolve(
    subscripts: str, shapes: Sequence[tuple[int, ...]]
) -> tuple[list[str], str, dict[str, int], list[tuple[int, ...]]]:
    """Turn the subscripts into explicit labels for operands of these shapes.

    Returns the labels of each operand, the output labels, the size of each label, and
    for each operand the axes to squeeze (size 1 where the label is larger elsewhere).

    Raises:
        ValueError: The subscripts are malformed.
        InvalidType: The shapes do not fit the subscripts.
    """
    inputs, output = _parse(subscripts, len(shapes))
    used = {c for head, tail, _ in inputs for c in head + tail}
    n_ellipsis = 0
    for i, ((head, tail, has_ellipsis), shape) in enumerate(zip(inputs, shapes)):
        n_named = len(head) + len(tail)
        if has_ellipsis:
            if len(shape) < n_named:
                raise type_check.InvalidType(
                    f"x{i}.ndim >= {n_named} (subscripts {head}...{tail})", f"x{i}.ndim is {len(shape)}"
                )
            n_ellipsis = max(n_ellipsis, len(shape) - n_named)
        elif len(shape) != n_named:
            raise type_check.InvalidType(
                f"x{i}.ndim == {n_named} (subscripts {head}{tail})", f"x{i}.ndim is {len(shape)}"
            )
    free = [c for c in _LETTERS if c not in used]
    if n_ellipsis > len(free):
        raise ValueError(f"{_WHERE}: too many axes under '...': no letters are left to name them")
    ellipsis = "".join(free[:n_ellipsis])

    in_labels = []
    for (head, tail, _), shape in zip(inputs, shapes):
        k = len(shape) - len(head) - len(tail)
        in_labels.append(head + ellipsis[n_ellipsis - k :] + tail)

    if output is None:
        counts: dict[str, int] = {}
        for head, tail, _ in inputs:
            for c in head + tail:
                counts[c] = counts.get(c, 0) + 1
        out_labels = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        head, tail, has_ellipsis = output
        if n_ellipsis and not has_ellipsis:
            raise ValueError(f"{_WHERE}: the operands have axes under '...', so the output subscripts need '...' too")
        out_labels = head + ellipsis + tail
        for c in out_labels:
            if out_labels.count(c) > 1:
                raise ValueError(f"{_WHERE}: the output repeats the subscript {c!r}")
            if c not in used and c not in ellipsis:
                raise ValueError(f"{_WHERE}: the output subscript {c!r} names no axis of an operand")

    sizes: dict[str, int] = {}
    for i, (labels, shape) in enumerate(zip(in_labels, shapes)):
        seen: dict[str, int] = {}
        for label, size in zip(labels, shape):
            if label in seen and seen[label] != size:
                raise type_check.InvalidType(
                    f"the axes of x{i} that repeat a subscript have one size", f"sizes {seen[label]} and {size}"
                )
            seen[label] = size
            known = sizes.get(label, 1)
            if size != 1 and known != 1 and size != known:
                name = "an axis under '...'" if label in ellipsis else f"the subscript {label!r}"
                raise type_check.InvalidType(
                    f"the operands agree on the size of {name} (or have size 1)", f"sizes {known} and {size}"
                )
            if size != 1:
                sizes[label] = size
            else:
                sizes.setdefault(label, 1)
    squeeze = [
        tuple(a for a, (label, s) in enumerate(zip(labels, shape)) if s == 1 and sizes[label] != 1)
        for labels, shape in zip(in_labels, shapes)
    ]
    return in_labels, out_labels, sizes, squeeze


def einsum(*operands: Any) -> variable.Variable:
    """Einstein summation, as ``numpy.einsum``: ``einsum(subscripts, *arrays)``.

    The subscripts name each axis of each operand with a letter: ``'ij,jk->ik'`` is a
    matrix product, ``'ii->'`` a trace, ``'ij->ji'`` a transpose, ``'...ij,...jk'`` a
    batched product. Axes named alike are multiplied together; axes missing from the
    output are summed. ``...`` stands for the remaining axes, broadcast across operands.
    Without ``->`` the output has the ``...`` axes followed by the letters that occur
    exactly once, in alphabetical order. Axes of size 1 broadcast against the same
    letter's size in other operands.

    Args:
        operands: The subscripts string, then the input variables (all of one floating
            dtype).

    Returns:
        The result.

    Example:
        >>> a = np.arange(6, dtype='f').reshape(2, 3)
        >>> F.einsum('ij,ij->i', a, a).array
        array([ 5., 50.], dtype=float32)
    """
    from chainer.functions.array import reshape

    if not operands or not isinstance(operands[0], str):
        raise TypeError(f"{_WHERE}: the first argument must be the subscripts string, e.g. einsum('ij,jk->ik', a, b)")
    subscripts = operands[0]
    xs = [variable.as_variable(x) for x in operands[1:]]
    if not xs:
        raise ValueError(f"{_WHERE}: at least one operand is required")
    arrays = tuple(x.array for x in xs)

    resolved: list[Any] = []

    def check(in_types: Any) -> None:
        type_check._argname(in_types, tuple(f"x{i}" for i in range(len(in_types))))
        first = in_types[0]
        type_check.expect(first.dtype.kind == "f", *[t.dtype == first.dtype for t in in_types[1:]])
        resolved[:] = [_resolve(subscripts, [type_check.eval(t.shape) for t in in_types])]

    type_check.run_check(check, arrays, "EinSum")
    in_labels, out_labels, _, squeeze = resolved[0]
    for i, axes in enumerate(squeeze):
        if axes:
            xs[i] = reshape.reshape(xs[i], tuple(s for a, s in enumerate(xs[i].shape) if a not in axes))
            in_labels[i] = "".join(c for a, c in enumerate(in_labels[i]) if a not in axes)
    return EinSum(in_labels, out_labels).apply(xs)[0]


__all__ = ["einsum"]
