"""Einstein summation over any number of operands."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check

_WHERE = "chainer.functions.einsum"

# The labels of the integer form ``einsum(x, [0, 1], y, [1, 2])``: label ``k`` is the k-th
# symbol, as in NumPy.
einsum_symbols = string.ascii_uppercase + string.ascii_lowercase


def _as_terms(in_subs: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(in_subs.split(",")) if isinstance(in_subs, str) else tuple(in_subs)


def _check_labels(in_types: Any, in_terms: Sequence[str]) -> None:
    """Each operand has one axis per label, and a label has one size wherever it occurs."""
    type_check._argname(in_types, tuple(f"x{i}" for i in range(len(in_terms))))
    for t in in_types:
        type_check.expect(t.dtype.kind == "f")
    for t, labels in zip(in_types, in_terms):
        type_check.expect(t.ndim == len(labels))
    first: dict[str, Any] = {}
    for t, labels in zip(in_types, in_terms):
        for axis, label in enumerate(labels):
            if label in first:
                type_check.expect(first[label] == t.shape[axis])
            else:
                first[label] = t.shape[axis]


def _result_dtype(inputs: Sequence[Any]) -> Any:
    # Operands of different floating dtypes (as Chainer 7 allowed) give the promoted dtype.
    dtype = inputs[0].dtype
    for x in inputs[1:]:
        if x.dtype != dtype:
            dtype = numpy.promote_types(dtype, x.dtype)
    return dtype


class EinSum(function_node.FunctionNode):
    """``numpy.einsum`` on operands whose subscripts are explicit letters.

    Args:
        in_subs: The subscripts of the operands, joined by commas (``'ij,jk'``) or as a
            sequence; every axis has a letter (no ``...``).
        out_sub: The subscripts of the output, each letter once.

    The gradient for an operand is a :class:`DiagEinSum` of the other operands and the
    output gradient: broadcast over the labels only that operand has and put on the
    diagonal where the operand repeats a label. Operands may differ in floating dtype; the
    output has the promoted dtype and each gradient its operand's dtype.
    """

    def __init__(self, in_subs: str | Sequence[str], out_sub: str) -> None:
        self._in_terms = _as_terms(in_subs)
        self.in_subs = ",".join(self._in_terms)
        self.out_sub = out_sub

    @property
    def label(self) -> str:
        return "EinSum"

    def check_type_forward(self, in_types: Any) -> None:
        _check_labels(in_types, self._in_terms)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        y = xp.einsum(f"{self.in_subs}->{self.out_sub}", *inputs, optimize=len(inputs) > 2)
        return (utils.force_array(y, _result_dtype(inputs)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import cast

        gy = grad_outputs[0]
        xs = self.get_retained_inputs()
        terms = self._in_terms
        result = []
        for i in indexes:
            others = [j for j in range(len(xs)) if j != i]
            node = DiagEinSum([terms[j] for j in others] + [self.out_sub], terms[i], xs[i].shape)
            g = node.apply([xs[j] for j in others] + [gy])[0]
            result.append(g if g.dtype == xs[i].dtype else cast.cast(g, xs[i].dtype))
        return tuple(result)


class DiagEinSum(EinSum):
    """Einstein summation whose output may repeat a label or name labels no operand has.

    The sum over the labels missing from ``out_sub`` is taken as by :class:`EinSum`; the
    result is then broadcast along the output labels no operand has, and placed on the
    diagonal where ``out_sub`` repeats a label (zeros elsewhere). ``out_shape`` gives the
    sizes of the output axes. This is the adjoint of an einsum that takes a diagonal or
    sums an axis out, hence the gradient of :class:`EinSum`.

    Args:
        in_subs: The subscripts of the operands, as for :class:`EinSum`.
        out_sub: The subscripts of the output.
        out_shape: The shape of the output.
    """

    def __init__(self, in_subs: str | Sequence[str], out_sub: str, out_shape: Sequence[int]) -> None:
        super().__init__(in_subs, out_sub)
        self.out_shape = tuple(out_shape)

    @property
    def label(self) -> str:
        return "DiagEinSum"

    def check_type_forward(self, in_types: Any) -> None:
        _check_labels(in_types, self._in_terms)
        if len(self.out_shape) != len(self.out_sub):
            raise type_check.InvalidType(
                f"len(out_shape) == {len(self.out_sub)} (subscripts {self.out_sub})", f"out_shape is {self.out_shape}"
            )
        sizes: dict[str, int] = {}
        for label, size in zip(self.out_sub, self.out_shape):
            if sizes.setdefault(label, size) != size:
                raise type_check.InvalidType(
                    f"the output axes that repeat the subscript {label!r} have one size",
                    f"out_shape is {self.out_shape}",
                )
        for t, labels in zip(in_types, self._in_terms):
            for axis, label in enumerate(labels):
                if label in sizes:
                    type_check.expect(t.shape[axis] == type_check.make_variable(sizes[label], f"out_shape[{label!r}]"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        dtype = _result_dtype(inputs)
        sizes = dict(zip(self.out_sub, self.out_shape))
        unique = "".join(dict.fromkeys(self.out_sub))
        present = set("".join(self._in_terms))
        known = "".join(label for label in unique if label in present)
        z = xp.einsum(f"{self.in_subs}->{known}", *inputs, optimize=len(inputs) > 2)
        z = utils.force_array(z, dtype)
        if known != unique:
            z = z.reshape(tuple(sizes[label] if label in present else 1 for label in unique))
            z = xp.broadcast_to(z, tuple(sizes[label] for label in unique))
        if unique == self.out_sub:
            # A broadcast view is read-only and shares memory across its axes: copy it.
            return (z.copy() if known != unique else z,)
        y = xp.zeros(self.out_shape, dtype)
        # Axis a of the output takes its index from the unique label it names.
        index = []
        for label, size in zip(self.out_sub, self.out_shape):
            axis_shape = [1] * len(unique)
            axis_shape[unique.index(label)] = size
            index.append(xp.arange(size).reshape(axis_shape))
        y[tuple(index)] = z
        return (y,)


def _term_from_sublist(sublist: Any, position: str) -> str:
    term = []
    for item in sublist:
        if item is Ellipsis:
            term.append("...")
        elif isinstance(item, (int, numpy.integer)) and not isinstance(item, bool) and 0 <= item < len(einsum_symbols):
            term.append(einsum_symbols[item])
        else:
            raise ValueError(
                f"{_WHERE}: a subscript list holds ints in [0, {len(einsum_symbols)}) or Ellipsis, got {item!r} "
                f"for {position}"
            )
    return "".join(term)


def _split_operands(operands: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """The subscripts string and the arrays, from either of NumPy's two call forms."""
    if not operands:
        raise ValueError(f"{_WHERE}: no operands given")
    if isinstance(operands[0], str):
        return operands[0], operands[1:]
    # einsum(x0, sublist0, x1, sublist1, ..., [sublist_out])
    n = len(operands) // 2
    arrays = operands[0 : 2 * n : 2]
    terms = [_term_from_sublist(sublist, f"operand {i}") for i, sublist in enumerate(operands[1 : 2 * n : 2])]
    for i, x in enumerate(arrays):
        if isinstance(x, (str, list, tuple)):
            raise TypeError(
                f"{_WHERE}: give the subscripts string first (einsum('ij,jk->ik', a, b)) or alternate arrays and "
                f"subscript lists (einsum(a, [0, 1], b, [1, 2])); got a {type(x).__name__} as operand {i}"
            )
    subscripts = ",".join(terms)
    if len(operands) % 2:
        subscripts += "->" + _term_from_sublist(operands[-1], "the output")
    return subscripts, arrays


def _split_term(term: str, position: str) -> tuple[str, str, bool]:
    """Split a subscript term into the labels before and after ``...``."""
    if term.count("...") > 1:
        raise ValueError(f"{_WHERE}: '...' may appear once per operand, got {term!r} for {position}")
    has_ellipsis = "..." in term
    head, _, tail = term.partition("...")
    for char in head + tail:
        if char not in einsum_symbols:
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
    inputs: list[tuple[str, str, bool]], output: tuple[str, str, bool] | None, shapes: Sequence[tuple[int, ...]]
) -> tuple[list[str], str]:
    """Explicit letters for each operand's axes and for the output, ``...`` spelled out.

    Raises:
        ValueError: The subscripts are malformed, or ``...`` would be summed over.
        InvalidType: An operand has the wrong number of axes, or the operands with ``...``
            have different numbers of axes under it (there is no broadcasting, as in
            Chainer 7).
    """
    used = {c for head, tail, _ in inputs for c in head + tail}
    n_ellipsis: int | None = None
    for i, ((head, tail, has_ellipsis), shape) in enumerate(zip(inputs, shapes)):
        n_named = len(head) + len(tail)
        if not has_ellipsis:
            if len(shape) != n_named:
                raise type_check.InvalidType(
                    f"x{i}.ndim == {n_named} (subscripts {head}{tail})", f"x{i}.ndim is {len(shape)}"
                )
            continue
        if len(shape) < n_named:
            raise type_check.InvalidType(
                f"x{i}.ndim >= {n_named} (subscripts {head}...{tail})", f"x{i}.ndim is {len(shape)}"
            )
        n = len(shape) - n_named
        if n_ellipsis is not None and n != n_ellipsis:
            raise type_check.InvalidType(
                "the operands with '...' have as many axes under it",
                f"{n_ellipsis} and {n} (x{i}.ndim is {len(shape)})",
            )
        n_ellipsis = n
    n_ellipsis = n_ellipsis or 0
    free = [c for c in einsum_symbols if c not in used]
    if n_ellipsis > len(free):
        raise ValueError(f"{_WHERE}: too many axes under '...': no letters are left to name them")
    ellipsis = "".join(free[:n_ellipsis])
    in_labels = [head + (ellipsis if has_ellipsis else "") + tail for head, tail, has_ellipsis in inputs]

    if output is None:
        counts: dict[str, int] = {}
        for head, tail, _ in inputs:
            for c in head + tail:
                counts[c] = counts.get(c, 0) + 1
        return in_labels, ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    head, tail, has_ellipsis = output
    if has_ellipsis and not any(e for _, _, e in inputs):
        raise ValueError(f"{_WHERE}: the output subscripts have '...' but no operand's do")
    if n_ellipsis and not has_ellipsis:
        raise ValueError(f"{_WHERE}: the operands have axes under '...', so the output subscripts need '...' too")
    out_labels = head + ellipsis + tail
    for c in out_labels:
        if out_labels.count(c) > 1:
            raise ValueError(f"{_WHERE}: the output repeats the subscript {c!r}")
        if c not in used and c not in ellipsis:
            raise ValueError(f"{_WHERE}: the output subscript {c!r} names no axis of an operand")
    return in_labels, out_labels


def einsum(*operands: Any) -> variable.Variable:
    """Einstein summation, as ``numpy.einsum``.

    Called as ``einsum(subscripts, *arrays)`` or, in NumPy's second form, with arrays and
    lists of integer labels alternating: ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is
    ``einsum('AB,BC->AC', a, b)`` (label ``k`` is ``einsum_symbols[k]``; ``Ellipsis``
    stands for ``...``).

    The subscripts name each axis of each operand with a letter: ``'ij,jk->ik'`` is a
    matrix product, ``'ii->'`` a trace, ``'ij->ji'`` a transpose, ``'...ij,...jk'`` a
    batched product. Axes named alike are multiplied together; axes missing from the
    output are summed. ``...`` stands for the remaining axes; every operand that has it
    must have the same axes under it. Without ``->`` the output has the ``...`` axes
    followed by the letters that occur exactly once, in alphabetical order (capitals
    first). Unlike NumPy, sizes do not broadcast: a letter has one size everywhere.

    Args:
        operands: The subscripts string, then the input variables (of floating dtypes;
            mixed dtypes give the promoted one); or NumPy's alternating form.

    Returns:
        The result.

    Example:
        >>> a = np.arange(6, dtype='f').reshape(2, 3)
        >>> F.einsum('ij,ij->i', a, a).array
        array([ 5., 50.], dtype=float32)
        >>> F.einsum(a, [0, 1], a, [0, 1], [0]).array
        array([ 5., 50.], dtype=float32)
    """
    subscripts, arrays = _split_operands(operands)
    xs = [variable.as_variable(x) for x in arrays]
    terms, output = _parse(subscripts, len(xs))
    resolved: list[Any] = []

    def check(in_types: Any) -> None:
        resolved[:] = [_resolve(terms, output, [type_check.eval(t.shape) for t in in_types])]

    type_check.run_check(check, tuple(x.array for x in xs), "EinSum")
    in_labels, out_labels = resolved[0]
    return EinSum(in_labels, out_labels).apply(xs)[0]


__all__ = ["einsum"]
