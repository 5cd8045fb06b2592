"""Sequential: a model whose forward pass feeds each layer's output to the next."""

from __future__ import annotations

import copy as copy_module
import inspect
import io
import tokenize
from collections.abc import Iterable, Iterator
from typing import Any

import numpy

from chainer import _chain_list
from chainer import link as _link


def _layer_type_name(layer: Any) -> str:
    if isinstance(layer, _link.Link):
        return type(layer).__name__
    name = getattr(layer, "__name__", None)
    return name if isinstance(name, str) else type(layer).__name__


def _is_lambda(layer: Any) -> bool:
    return inspect.isfunction(layer) and layer.__name__ == "<lambda>"


def _lambda_source(func: Any) -> str | None:
    """The text of the lambda expression that defined ``func``, or ``None`` where the source
    is not available."""
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return None
    text = "".join(lines)
    # The lambda keyword is the last one before the body (the code's first position), which
    # tells apart several lambdas on one line.
    body = next(
        (
            (line, col)
            for line, _, col, end_col in func.__code__.co_positions()
            if line and col is not None and end_col is not None and end_col > col
        ),
        None,
    )
    limit = len(text) if body is None else _offset(text, (body[0] - first_line + 1, body[1]))
    start = text.rfind("lambda", 0, limit)
    if start < 0:
        return None
    text = text[start:]
    depth = 0
    end = len(text)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                if depth == 0:
                    end = _offset(text, tok.start)
                    break
                depth -= 1
            elif depth == 0 and (
                (tok.type == tokenize.OP and tok.string in (",", ";"))
                or tok.type in (tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER)
            ):
                end = _offset(text, tok.start)
                break
    except (tokenize.TokenError, SyntaxError):
        # The text after the lambda is cut mid-expression; what was scanned is the lambda.
        pass
    return " ".join(text[:end].split())


def _offset(text: str, position: tuple[int, int]) -> int:
    row, col = position
    return sum(len(line) for line in text.splitlines(keepends=True)[: row - 1]) + col


def _describe(layer: Any) -> str:
    """How a layer is printed: a link's repr, a lambda's source text, a named function's
    name, else ``repr`` (a ``functools.partial``, a callable object)."""
    if isinstance(layer, _link.Link):
        return repr(layer)
    if _is_lambda(layer):
        source = _lambda_source(layer)
        if source:
            return source
    name = getattr(layer, "__name__", None)
    return name if isinstance(name, str) and name != "<lambda>" else repr(layer)


class _Described:
    """Wraps a layer so that :func:`_link._format_children` prints it readably."""

    def __init__(self, layer: Any) -> None:
        self._text = _describe(layer)

    def __repr__(self) -> str:
        return self._text


class Sequential(_chain_list.ChainList):
    """A model that applies its layers one after another.

    ``Sequential(*layers)``

    Layers are links or any callables (``F.relu``, a lambda, ``functools.partial``).
    ``model(x)`` computes ``layer_n(...layer_1(x))``; a layer that returns a tuple has
    it unpacked into the arguments of the next one. The links among the layers are the
    children of the model, named ``'0'``, ``'1'``, ... in their order (plain callables
    do not count), which are the keys serializers use.

    The model is a mutable list of layers: indexing, ``len``, iteration, ``append``,
    ``insert``, ``extend``, ``pop``, ``remove``, ``+`` (concatenation) and ``*``
    (repetition with re-initialized copies, like :meth:`~chainer.Link.repeat`).

    Args:
        layers: The initial layers.

    Example:
        >>> layer = chainer.Sequential(L.Linear(44), F.relu)
        >>> model = layer.repeat(2)
        >>> model.append(L.Linear(1))
        >>> y = model(np.ones((5, 3), np.float32))
        >>> y.shape
        (5, 1)
    """

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        object.__setattr__(self, "_layers", [])
        for layer in layers:
            self.append(layer)

    # -- the list interface -------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._layers)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._layers))

    def __getitem__(self, index: Any) -> Any:
        """The layer at ``index`` (a list of layers for a slice)."""
        return self._layers[index]

    def __setitem__(self, index: int, layer: Any) -> None:
        """Replace the layer at ``index``."""
        if isinstance(index, slice):
            raise TypeError("Sequential: slice assignment is not supported; assign one layer at a time")
        position = self._position(index, "__setitem__")
        self._check_callable(layer, "__setitem__")
        self._delete_at(position)
        self.insert(position, layer)

    def __delitem__(self, index: Any) -> None:
        """Remove the layer at ``index`` (or the layers of a slice)."""
        if isinstance(index, slice):
            for position in sorted(range(*index.indices(len(self._layers))), reverse=True):
                self._delete_at(position)
            return
        self._delete_at(self._position(index, "__delitem__"))

    def _position(self, index: Any, where: str) -> int:
        if not isinstance(index, (int, numpy.integer)) or isinstance(index, bool):
            raise TypeError(f"Sequential.{where}: index must be an int, got {type(index).__name__}")
        n = len(self._layers)
        position = int(index) + n if index < 0 else int(index)
        if not 0 <= position < n:
            raise IndexError(f"Sequential.{where}: index {index} is out of range for {n} layers")
        return position

    def _delete_at(self, position: int) -> None:
        layer = self._layers[position]
        if isinstance(layer, _link.Link):
            child_index = self._links_before(position)
            _chain_list.ChainList.__delitem__(self, child_index)
        del self._layers[position]

    def _links_before(self, position: int) -> int:
        return sum(1 for layer in self._layers[:position] if isinstance(layer, _link.Link))

    @staticmethod
    def _check_callable(layer: Any, where: str) -> None:
        if not callable(layer):
            raise ValueError(
                f"Sequential.{where}: every layer must be callable (a Link or a function), got "
                f"{type(layer).__name__}: {layer!r}"
            )

    def insert(self, index: int, layer: Any) -> None:
        """Insert ``layer`` before position ``index``.

        Unlike ``list.insert``, an index outside ``-len(self) <= index <= len(self)`` is an
        ``IndexError`` (as in Chainer 7), not a silent append.
        """
        self._check_callable(layer, "insert")
        if not isinstance(index, (int, numpy.integer)) or isinstance(index, bool):
            raise TypeError(f"Sequential.insert: index must be an int, got {type(index).__name__}")
        n = len(self._layers)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for {n} layers")
        position = int(index) + n if index < 0 else int(index)
        if isinstance(layer, _link.Link):
            _chain_list.ChainList.insert(self, self._links_before(position), layer)
        self._layers.insert(position, layer)

    def append(self, layer: Any) -> None:
        """Add ``layer`` at the end."""
        self.insert(len(self._layers), layer)

    def extend(self, sequential: Iterable[Any]) -> None:
        """Append every layer of ``sequential`` (a Sequential or any iterable of layers)."""
        for layer in list(sequential):
            self.append(layer)

    def pop(self, i: int = -1) -> Any:
        """Remove and return the layer at ``i`` (the last one by default)."""
        position = self._position(i, "pop")
        layer = self._layers[position]
        self._delete_at(position)
        return layer

    def remove(self, layer: Any) -> None:
        """Remove the first occurrence of ``layer``."""
        self._delete_at(self.index(layer))

    def clear(self) -> None:
        """Remove every layer."""
        for position in range(len(self._layers) - 1, -1, -1):
            self._delete_at(position)

    def index(self, layer: Any, start: int = 0, stop: int | None = None) -> int:
        """Position of the first occurrence of ``layer`` (the same object)."""
        n = len(self._layers)
        stop = n if stop is None else stop
        for position in range(*slice(start, stop).indices(n)):
            if self._layers[position] is layer:
                return position
        raise ValueError(f"Sequential.index: {_describe(layer)} is not a layer of this Sequential")

    def count(self, layer: Any) -> int:
        """Number of occurrences of ``layer`` (the same object)."""
        return sum(1 for x in self._layers if x is layer)

    def count_by_layer_type(self, type_name: str) -> int:
        """Number of layers of a type: the class name of a link (``'Linear'``) or the
        name of a function (``'relu'``)."""
        return sum(1 for layer in self._layers if _layer_type_name(layer) == type_name)

    def remove_by_layer_type(self, type_name: str) -> None:
        """Remove every layer of the given type (as in :meth:`count_by_layer_type`)."""
        for position in range(len(self._layers) - 1, -1, -1):
            if _layer_type_name(self._layers[position]) == type_name:
                self._delete_at(position)

    def flatten(self) -> Sequential:
        """A new Sequential with the layers of nested Sequentials spliced in (the layers
        themselves are shared, not copied)."""
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten())
            else:
                ret.append(layer)
        return ret

    # -- composition ---------------------------------------------------------------------

    def __add__(self, other: Any) -> Sequential:
        """A new Sequential: these layers, then ``other``'s (or ``other`` itself if it is
        a single layer). Layers are shared, not copied."""
        if isinstance(other, Sequential):
            return Sequential(*self._layers, *other._layers)
        if callable(other):
            return Sequential(*self._layers, other)
        raise _not_a_layer("+", other)

    def __radd__(self, other: Any) -> Sequential:
        if callable(other):
            return Sequential(other, *self._layers)
        raise _not_a_layer("+", other)

    def __iadd__(self, other: Any) -> Sequential:
        if isinstance(other, Sequential):
            self.extend(other)
        elif callable(other):
            self.append(other)
        else:
            raise _not_a_layer("+=", other)
        return self

    def __mul__(self, n_repeat: int) -> Sequential:
        """``n_repeat`` re-initialized copies of this model in a new Sequential
        (``self.repeat(n_repeat)``)."""
        if not isinstance(n_repeat, (int, numpy.integer)) or isinstance(n_repeat, bool):
            return NotImplemented
        return self.repeat(n_repeat)

    __rmul__ = __mul__

    # -- forward ---------------------------------------------------------------------------

    def forward(self, *x: Any) -> Any:
        """Apply the layers in order to the inputs ``x``."""
        if not self._layers:
            raise RuntimeError("Sequential.forward: the model has no layer; append() some first")
        h: Any = x
        for layer in self._layers:
            h = layer(*h) if isinstance(h, tuple) else layer(h)
        return h

    # -- copying ---------------------------------------------------------------------------

    def _share_copy_fixup(self) -> None:
        super()._share_copy_fixup()
        new_children = iter(self._children)
        layers = [next(new_children) if isinstance(layer, _link.Link) else layer for layer in self._layers]
        self.__dict__["_layers"] = layers

    def copy(self, mode: str = "share") -> Sequential:
        """Copy the model (see :meth:`chainer.Link.copy`). Plain callables are shared in
        ``'share'`` mode and deep-copied otherwise."""
        return super().copy(mode)  # type: ignore[return-value]

    def copyparams(self, link: _link.Link, copy_persistent: bool = True) -> None:
        """Copy the parameters of another Sequential with the same layers into this one."""
        if not isinstance(link, Sequential):
            raise TypeError(f"Sequential.copyparams: can only copy from a Sequential, got {type(link).__name__}")
        super().copyparams(link, copy_persistent)

    # -- pickling ---------------------------------------------------------------------------

    def __reduce_ex__(self, protocol: Any) -> Any:
        if any(_is_lambda(layer) for layer in self._layers):
            raise ValueError(
                "Sequential: cannot pickle a model with a lambda among its layers (pickle cannot store "
                "lambdas); use a def function or functools.partial instead, or the dill package"
            )
        return super().__reduce_ex__(protocol)

    def __deepcopy__(self, memo: dict[int, Any]) -> Sequential:
        # Deep copies do not pickle, so lambdas are fine here (functions are shared).
        cls = type(self)
        ret = cls.__new__(cls)
        memo[id(self)] = ret
        ret.__dict__.update(copy_module.deepcopy(self.__dict__, memo))
        return ret

    # -- printing ---------------------------------------------------------------------------

    def __repr__(self) -> str:
        return _link._format_children(self, [(str(i), _Described(layer)) for i, layer in enumerate(self._layers)])

    __str__ = __repr__


def _not_a_layer(operator: str, other: Any) -> ValueError:
    return ValueError(
        f"Sequential: the {operator} operator takes a Sequential or a callable layer, got {type(other).__name__}"
    )


__all__ = ["Sequential"]
