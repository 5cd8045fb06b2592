"""Links: the building blocks of models.

A :class:`Link` owns :class:`~chainer.Parameter` objects (trained by optimizers) and
persistent values (saved by serializers, e.g. running statistics). A :class:`Chain`
also owns named child links, and a :class:`~chainer.ChainList` a list of them, so a
whole model is a tree of links whose parameters are reached by :meth:`Link.params` and
named by their path (``/predictor/l1/W``).

Registration happens by assignment inside ``with self.init_scope():``; outside that
block, assignment makes a plain attribute.
"""

from __future__ import annotations

import contextlib
import copy as copy_module
import warnings
from collections.abc import Iterator
from typing import Any

import numpy

from chainer import _parameter, backend, device_resident, initializers, link_hook, memory_layouts

_Parameter = _parameter.Parameter
_hook_state = link_hook._state
_active_global_hooks = link_hook._active_global_hooks
_COPY_MODES = ("share", "copy", "init")


def _is_array(value: Any) -> bool:
    return isinstance(value, numpy.ndarray) or (
        value is not None
        and not isinstance(value, (int, float, str, bool))
        and backend._entry_for_array_type(type(value)) is not None
    )


def _is_dtype_like(value: Any) -> bool:
    if isinstance(value, (str, numpy.dtype)) or (isinstance(value, type) and issubclass(value, numpy.generic)):
        try:
            numpy.dtype(value)
        except TypeError:
            return False
        return True
    return value in (float, int, bool, complex)


def _shape_and_dtype(name: str, value: Any) -> tuple[Any, Any]:
    """Interpret a keyword of the old ``Link(W=(3, 4))`` style: a shape, or ``(shape, dtype)``.

    The shape may be ``None`` (the parameter is created uninitialized), as in Chainer 7.
    """
    if value is None:
        return None, numpy.float32
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        return (int(value),), numpy.float32
    if isinstance(value, (tuple, list)):
        if len(value) == 2 and _is_dtype_like(value[1]) and not isinstance(value[1], (int, numpy.integer)):
            shape, dtype = value
            return _shape_and_dtype(name, shape)[0], numpy.dtype(dtype)
        if all(isinstance(s, (int, numpy.integer)) and not isinstance(s, bool) for s in value):
            return tuple(int(s) for s in value), numpy.float32
    raise TypeError(
        f"Link(): the keyword argument {name!r} must be a shape (None, an int or a tuple of ints) or a "
        f"(shape, dtype) pair, got {value!r}"
    )


class _MissingInit:
    """Class-level marker of a link whose ``Link.__init__`` has not run."""

    def __bool__(self) -> bool:
        # Truthy, so Link.__call__'s one hook test also catches the missing __init__ call.
        return True


_MISSING_INIT: Any = _MissingInit()
_MISSING_INIT_MESSAGE = "Link.__init__() has not been called."


class Link(device_resident.DeviceResident):
    """Building block of model definitions: a set of parameters and persistent values.

    ``Link(**params)``

    Register parameters by assigning :class:`~chainer.Parameter` objects inside
    :meth:`init_scope`; define the computation in ``forward`` — calling the link runs
    ``forward`` (and the active :class:`~chainer.LinkHook` objects).

    Args:
        params: The old (Chainer v1) way to create parameters: ``name=shape`` or
            ``name=(shape, dtype)`` creates an initialized (NaN-filled) parameter.

    Attributes:
        name: The name of this link in its parent chain (``None`` at the root).

    Example:
        >>> class EltwiseParamProduct(chainer.Link):
        ...     def __init__(self, shape):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(chainer.initializers.One(), shape)
        ...     def forward(self, x):
        ...         return self.W * x
    """

    _within_init_scope = False
    # Replaced by None in __init__; the class-level marker says __init__ was never called.
    _local_link_hooks: dict[str, link_hook.LinkHook] | None = _MISSING_INIT
    name: str | None = None

    def __init__(self, **params: Any) -> None:
        super().__init__()
        object.__setattr__(self, "_params", set())
        object.__setattr__(self, "_persistent", set())
        object.__setattr__(self, "_within_init_scope", False)
        object.__setattr__(self, "_local_link_hooks", None)
        object.__setattr__(self, "name", None)
        for name, value in params.items():
            shape, dtype = _shape_and_dtype(name, value)
            self.add_param(name, shape, dtype=dtype)

    # -- registration -------------------------------------------------------------------

    @property
    def within_init_scope(self) -> bool:
        """Whether the code runs inside ``with self.init_scope():``."""
        return self._within_init_scope

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Context manager in which assigned :class:`~chainer.Parameter` objects (and, in a
        :class:`Chain`, links) are registered to this link.

        Example:
            >>> class Affine(chainer.Link):
            ...     def __init__(self):
            ...         super().__init__()
            ...         with self.init_scope():
            ...             self.W = chainer.Parameter(0, (3, 4))
            >>> [name for name, _ in Affine().namedparams()]
            ['/W']
        """
        if "_params" not in self.__dict__:
            raise RuntimeError(_MISSING_INIT_MESSAGE)
        old = self._within_init_scope
        object.__setattr__(self, "_within_init_scope", True)
        try:
            yield
        finally:
            object.__setattr__(self, "_within_init_scope", old)

    def __setattr__(self, name: str, value: Any) -> None:
        registered = self.__dict__.get("_params")
        if isinstance(value, _Parameter):
            if self._within_init_scope or (registered is not None and name in registered):
                if registered is None:
                    raise RuntimeError(_MISSING_INIT_MESSAGE)
                value.name = name
                registered.add(name)
                self._persistent.discard(name)
        elif registered is not None and name in registered:
            # A registered parameter replaced by something else is no longer a parameter.
            registered.discard(name)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._params.discard(name)
        self._persistent.discard(name)
        object.__delattr__(self, name)

    def add_param(self, name: str, shape: Any = None, dtype: Any = numpy.float32, initializer: Any = None) -> None:
        """Register a new parameter (the old way; prefer assigning in :meth:`init_scope`).

        Args:
            name: Attribute name of the parameter.
            shape: Its shape; ``None`` leaves it uninitialized.
            dtype: dtype of the array.
            initializer: An initializer, scalar or array; ``None`` fills with NaN.
        """
        if name in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}.add_param: cannot register parameter {name!r}: attribute exists"
            )
        if initializer is None:
            initializer = initializers.NaN(dtype)
        param = _Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Register a persistent value: saved and loaded by serializers, moved with the link.

        Args:
            name: Attribute name.
            value: An array, a scalar, a string or ``None``.
        """
        if name in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}.add_persistent: cannot register persistent value {name!r}: attribute exists"
            )
        self._persistent.add(name)
        self._params.discard(name)
        object.__setattr__(self, name, value)

    def register_persistent(self, name: str) -> None:
        """Register an existing attribute as a persistent value."""
        if not hasattr(self, name):
            raise AttributeError(
                f"{type(self).__name__}.register_persistent: cannot register {name!r}: no such attribute"
            )
        self._persistent.add(name)
        self._params.discard(name)

    # -- traversal -------------------------------------------------------------------------

    def params(self, include_uninit: bool = True) -> Iterator[_Parameter]:
        """Yield the parameters of this link and of every link under it.

        Args:
            include_uninit: Also yield parameters whose array is not created yet.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            if include_uninit or param.raw_array is not None:
                yield param

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, _Parameter]]:
        """Yield ``(path, parameter)`` pairs, the path like ``'/l1/W'``."""
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            if include_uninit or param.raw_array is not None:
                yield "/" + name, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """Yield this link (unless ``skipself``) and every link under it, parents first."""
        if not skipself:
            yield self

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """Yield ``(path, link)`` pairs; this link is ``'/'``, its children ``'/name'``."""
        if not skipself:
            yield "/", self

    def children(self) -> Iterator[Link]:
        """Yield the direct child links (none for a plain :class:`Link`)."""
        return iter(())

    # -- copying -----------------------------------------------------------------------------

    def copy(self, mode: str = "share") -> Link:
        """Copy the link hierarchy rooted here.

        Args:
            mode: ``'share'`` — new link objects whose parameters share their arrays with
                this one (updates of one are seen by the other, including the arrays that
                lazily initialized parameters get later, until one of them is moved to
                another device); gradients are not shared and start as ``None``. ``'copy'`` — a deep copy:
                same values, independent arrays; ``'init'`` — a deep copy whose
                initialized parameters are filled again by their initializers.

        Returns:
            The copy. A share-mode copy has its :attr:`name` reset to ``None``; the deep
            copies keep it (as in Chainer 7).
        """
        if mode == "share":
            ret = copy_module.copy(self)
            ret._share_copy_fixup()
        elif mode in ("copy", "init"):
            # Devices are values: share them rather than deep-copying device handles.
            ret = copy_module.deepcopy(self, {id(self._device): self._device})
            if mode == "init":
                for param in ret.params(include_uninit=False):
                    dtype = param.raw_array.dtype
                    # A fresh parameter: new values and, as at construction, a NaN gradient.
                    param._grad_initializer = initializers.NaN()
                    param.initialize(param.shape)
                    if param.raw_array.dtype != dtype:
                        with memory_layouts._raw_access():  # (any memory layout: elementwise)
                            param.array = param.array.astype(dtype)
                            param.grad = param.grad.astype(dtype)
        else:
            raise ValueError(f"{type(self).__name__}.copy: mode must be one of {_COPY_MODES}, got {mode!r}")
        if mode == "share":
            # The deep copies keep their name, as in Chainer 7.
            object.__setattr__(ret, "name", None)
        return ret

    def _share_copy_fixup(self) -> None:
        """Called on a shallow copy: give it its own containers and parameter objects."""
        d = self.__dict__
        d["_params"] = set(self._params)
        d["_persistent"] = set(self._persistent)
        if self._local_link_hooks:
            d["_local_link_hooks"] = dict(self._local_link_hooks)
        for name in self._params:
            # A new parameter object on the same array, without a gradient.
            original = d[name]
            param = copy_module.copy(original)
            param.cleargrad()
            original._share_array_with(param)
            d[name] = param

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copy the parameter values (and persistent values) of ``link`` into this link.

        Both links must have the same structure. Values are copied into the existing
        arrays, across devices if needed.

        Args:
            link: The source link.
            copy_persistent: Also copy the persistent values.
        """
        if not isinstance(link, Link):
            raise TypeError(f"{type(self).__name__}.copyparams: expected a Link, got {type(link).__name__}")
        src = link.__dict__
        d = self.__dict__
        for name in sorted(self._params):
            if name not in src:
                raise ValueError(f"{type(self).__name__}.copyparams: the source link has no parameter {name!r}")
            dst_param, src_param = d[name], src[name]
            if src_param.raw_array is None:
                if dst_param.raw_array is not None:
                    raise ValueError(
                        f"{type(self).__name__}.copyparams: the source parameter {name!r} is not initialized"
                    )
                continue
            if dst_param.raw_array is not None and dst_param.shape != src_param.shape:
                raise ValueError(
                    f"{type(self).__name__}.copyparams: parameter {name!r} has shape {dst_param.shape} here "
                    f"but {src_param.shape} in the source"
                )
            dst_param.copydata(src_param)
        if not copy_persistent:
            return
        for name in sorted(self._persistent):
            if name not in src:
                raise ValueError(f"{type(self).__name__}.copyparams: the source link has no persistent value {name!r}")
            value, src_value = d[name], src[name]
            if _is_array(value) and _is_array(src_value) and value.shape == src_value.shape:
                backend.copyto(value, src_value)
            elif _is_array(src_value):
                d[name] = self.device.send(src_value.copy())
            else:
                d[name] = copy_module.deepcopy(src_value)

    def addgrads(self, link: Link) -> None:
        """Add the gradients of ``link`` (same structure) to the gradients of this link."""
        if not isinstance(link, Link):
            raise TypeError(f"{type(self).__name__}.addgrads: expected a Link, got {type(link).__name__}")
        src = link.__dict__
        d = self.__dict__
        for name in sorted(self._params):
            if name not in src:
                raise ValueError(f"{type(self).__name__}.addgrads: the source link has no parameter {name!r}")
            d[name].addgrad(src[name])

    def repeat(self, n_repeat: int, mode: str = "init") -> Any:
        """Return a :class:`~chainer.Sequential` of ``n_repeat`` copies of this link.

        Args:
            n_repeat: Number of copies (``0`` or less gives an empty Sequential).
            mode: Copy mode of each copy, as in :meth:`copy` (``'init'`` by default, so
                the copies start from different initial values).

        Example:
            >>> block = chainer.Sequential(L.Linear(10), F.relu)
            >>> model = block.repeat(3)   # three independent Linear+relu blocks
        """
        from chainer import sequential

        if not isinstance(n_repeat, (int, numpy.integer)) or isinstance(n_repeat, bool):
            raise TypeError(f"{type(self).__name__}.repeat: n_repeat must be an int, got {n_repeat!r}")
        if mode not in _COPY_MODES:
            raise ValueError(f"{type(self).__name__}.repeat: mode must be one of {_COPY_MODES}, got {mode!r}")
        ret = sequential.Sequential()
        for _ in range(int(n_repeat)):
            ret.append(self.copy(mode))
        return ret

    # -- gradients and updates -------------------------------------------------------------

    def cleargrads(self) -> None:
        """Set the gradient of every parameter to ``None``."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Fill the gradient of every parameter with zeros (deprecated as in Chainer 7: use
        :meth:`cleargrads`)."""
        # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
        warnings.warn("Link.zerograds is deprecated. Use Link.cleargrads instead.", DeprecationWarning)
        with warnings.catch_warnings():
            # One warning for the call, not one per parameter.
            warnings.simplefilter("ignore", DeprecationWarning)
            for param in self.params():
                param.zerograd()

    def count_params(self) -> int:
        """Total number of elements of the initialized parameters.

        Warns (``UserWarning``) for each parameter not initialized yet, which is not counted.
        """
        size = 0
        for path, param in self.namedparams():
            if param.raw_array is None:
                warnings.warn(
                    f"{type(self).__name__}.count_params: parameter {path!r} is not initialized; it is not counted",
                    stacklevel=2,
                )
                continue
            size += param.size
        return size

    def enable_update(self) -> None:
        """Let the optimizer update every parameter under this link again.

        This sets ``enabled`` of each parameter's update rule, so it acts on the
        parameters an optimizer has already been set up with.
        """
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = True

    def disable_update(self) -> None:
        """Freeze every parameter under this link: the optimizer skips them.

        This clears ``enabled`` of each parameter's update rule, so call it after
        ``optimizer.setup(model)`` (the update rules are created there).
        """
        for param in self.params():
            rule = param.update_rule
            if rule is not None:
                rule.enabled = False

    @property
    def update_enabled(self) -> bool:
        """Whether at least one parameter under this link has an enabled update rule."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None and rule.enabled:
                return True
        return False

    # -- devices -----------------------------------------------------------------------------

    def device_resident_accept(self, visitor: device_resident.DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        d = self.__dict__
        for name in sorted(self._params):
            visitor.visit_variable(d[name])
        for name in sorted(self._persistent):
            value = d[name]
            if _is_array(value):
                d[name] = visitor.visit_array(value)

    # -- serialization -------------------------------------------------------------------------

    def serialize(self, serializer: Any) -> None:
        """Save or load the parameters and persistent values with ``serializer``.

        Keys are the attribute names; a :class:`Chain` adds one level per child, so a
        file holds keys like ``predictor/l1/W``. Loading into an uninitialized
        parameter initializes it with the saved shape.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            # By meaning: a parameter stored in a non-standard memory layout is saved and
            # loaded channel-first (through a view of its array), so files fit any layout.
            data = serializer(name, memory_layouts._semantic_view(param))
            if param.raw_array is None and data is not None:
                param.initialize(data.shape)
                backend.copyto(memory_layouts._semantic_view(param), data)
        device = self.device
        # The validation pass of load_npz/load_hdf5 checks values but must change nothing.
        validating = getattr(serializer, "_validating", False) is True
        for name in sorted(self._persistent):
            value = serializer(name, d[name])
            if validating:
                continue
            if isinstance(value, numpy.ndarray) and not isinstance(device, backend.CpuDevice):
                value = device.send(value)
            d[name] = value

    # -- calling ---------------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _active_global_hooks[0] or self._local_link_hooks:
            return self._call_with_hooks(args, kwargs)
        try:
            forward = self.forward  # type: ignore[attr-defined]
        except AttributeError:
            forward = self._forward_fallback()
        return forward(*args, **kwargs)

    def _forward_fallback(self) -> Any:
        """Without ``forward``, a ``__call__`` later in the MRO (a mixin's) is the computation."""
        try:
            return super().__call__  # type: ignore[misc]
        except AttributeError:
            raise AttributeError(
                f"{type(self).__name__} is not callable: it defines no forward() (nor __call__) method"
            ) from None

    def _call_with_hooks(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self._local_link_hooks is _MISSING_INIT:
            raise RuntimeError(_MISSING_INIT_MESSAGE)
        try:
            forward = self.forward  # type: ignore[attr-defined]
        except AttributeError:
            forward = self._forward_fallback()
        hooks = [*_hook_state.link_hooks.values(), *(self._local_link_hooks or {}).values()]
        if not hooks:
            return forward(*args, **kwargs)
        pre = link_hook._ForwardPreprocessCallbackArgs(self, "forward", args, kwargs)
        for hook in hooks:
            hook.forward_preprocess(pre)
        try:
            out = forward(*args, **kwargs)
        except BaseException:
            # Let hooks that rewrote the link (e.g. its weight) put it back.
            for hook in reversed(hooks):
                hook._forward_aborted(pre)
            raise
        post = link_hook._ForwardPostprocessCallbackArgs(self, "forward", args, kwargs, out)
        for hook in hooks:
            hook.forward_postprocess(post)
        return out

    @property
    def local_link_hooks(self) -> dict[str, link_hook.LinkHook]:
        """The hooks registered to this link only, by name (in registration order)."""
        hooks = self._local_link_hooks
        if hooks is _MISSING_INIT:
            raise RuntimeError(_MISSING_INIT_MESSAGE)
        if hooks is None:
            hooks = {}
            object.__setattr__(self, "_local_link_hooks", hooks)
        return hooks

    def add_hook(self, hook: link_hook.LinkHook, name: str | None = None) -> Link:
        """Register ``hook`` to this link only; returns ``self``."""
        if not isinstance(hook, link_hook.LinkHook):
            raise TypeError(f"{type(self).__name__}.add_hook: expected a LinkHook, got {type(hook).__name__}")
        name = hook.name if name is None else name
        hooks = self.local_link_hooks
        if name in hooks:
            raise KeyError(f"{type(self).__name__}.add_hook: a hook named {name!r} is already registered")
        hooks[name] = hook
        hook.added(self)
        return self

    def delete_hook(self, name: str) -> None:
        """Unregister the hook called ``name`` from this link."""
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError(f"{type(self).__name__}.delete_hook: no hook named {name!r} is registered")
        hooks[name].deleted(self)
        del hooks[name]

    # -- printing ---------------------------------------------------------------------------------

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs shown by ``repr`` — typically the constructor arguments.

        Subclasses override this property (as a generator) to describe themselves.
        """
        return iter(())

    def __repr__(self) -> str:
        # str() of each value, as Chainer 7.8.1 formats them (dtype=float32, name=abc).
        specs = ", ".join(f"{key}={value}" for key, value in self.printable_specs)
        return f"{type(self).__name__}({specs})"

    __str__ = __repr__


def _format_children(owner: Link, items: list[tuple[str, Any]]) -> str:
    """``Owner(\\n  (name): child,\\n  ...)``, each child's own lines indented."""
    if not items:
        return f"{type(owner).__name__}()"
    lines = []
    for name, child in items:
        text = f"({name}): {child!r},"
        lines.extend("  " + line for line in text.splitlines())
    return f"{type(owner).__name__}(\n" + "\n".join(lines) + "\n)"


from chainer import _chain, _chain_list  # noqa: E402  (they build on Link)

Chain = _chain.Chain
ChainList = _chain_list.ChainList
# Their public home is chainer.link, as in Chainer 7 (pickles and docs name it).
Chain.__module__ = ChainList.__module__ = __name__

__all__ = ["Chain", "ChainList", "Link"]
