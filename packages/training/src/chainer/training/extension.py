"""The base class of trainer extensions and the ``make_extension`` decorator.

An extension is a callable ``extension(trainer)`` that the :class:`~chainer.training.Trainer`
invokes when its trigger fires. Extensions run in decreasing order of ``priority``:
writers (values reported into the observation) before editors (which change them)
before readers (which log, print or plot them); snapshots run last, so that they
capture the state every other extension has reached.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Priority of extensions that report values into the observation (e.g. Evaluator).
PRIORITY_WRITER = 300
#: Priority of extensions that edit values already reported (e.g. MicroAverage).
PRIORITY_EDITOR = 200
#: Priority of extensions that only read the observation (e.g. LogReport). The default.
PRIORITY_READER = 100
#: Priority of snapshots: after every other extension of the same iteration.
PRIORITY_SNAPSHOT = -100


class Extension:
    """Base class of trainer extensions.

    A subclass implements :meth:`__call__` and may override the class attributes and the
    hook methods below. An extension is registered with
    :meth:`Trainer.extend() <chainer.training.Trainer.extend>`.

    Attributes:
        trigger: The default trigger, ``(period, unit)`` or a callable; used when
            ``extend()`` is given none. Default: every iteration.
        priority: The default priority (:data:`PRIORITY_READER`).
        name: The name under which the trainer registered the extension (set by
            ``extend()``; ``None`` before).

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> class LrDecay(training.Extension):
        ...     trigger = 1, 'epoch'
        ...     def __call__(self, trainer):
        ...         trainer.updater.get_optimizer('main').lr *= 0.1
        >>> trainer.extend(LrDecay())
        >>> trainer.run()
        >>> round(optimizer.lr, 6)
        0.001
    """

    trigger: Any = 1, "iteration"
    priority: int = PRIORITY_READER
    name: str | None = None

    @property
    def default_name(self) -> str:
        """The name used when ``extend()`` is given none: the class name."""
        return type(self).__name__

    def __call__(self, trainer: Any) -> Any:
        """Run the extension; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(trainer)")

    def initialize(self, trainer: Any) -> None:
        """Called once before the training loop starts (also when it resumes)."""

    def finalize(self, trainer: Any = None) -> None:
        """Called once when the training loop ends, normally or by an exception."""

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Called when the training loop raises ``exc`` (with traceback ``tb``), before
        :meth:`finalize`. Exceptions raised here are printed and ignored."""

    def serialize(self, serializer: Any) -> None:
        """Save or load the state of the extension (none by default)."""


def make_extension(
    trigger: Any = None,
    default_name: str | None = None,
    priority: int | None = None,
    finalizer: Callable[..., Any] | None = None,
    initializer: Callable[[Any], Any] | None = None,
    on_error: Callable[[Any, BaseException, Any], Any] | None = None,
    **kwargs: Any,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator to make a function into a trainer extension.

    The function receives the trainer. The decorator sets the attributes the trainer
    reads (``trigger``, ``default_name``, ``priority``, ``finalize``, ``initialize``,
    ``on_error``) on the function itself and returns it.

    Args:
        trigger: Default trigger (``(period, unit)`` or a callable); every iteration
            if ``None``.
        default_name: Default name; the function's ``__name__`` if ``None``.
        priority: Default priority; :data:`PRIORITY_READER` if ``None``.
        finalizer: Called once at the end of training (with the trainer if it takes
            an argument).
        initializer: Called with the trainer once before the training loop.
        on_error: Called as ``on_error(trainer, exc, tb)`` when the loop raises.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> @training.make_extension(trigger=(1, 'epoch'))
        ... def lr_drop(trainer):
        ...     trainer.updater.get_optimizer('main').lr *= 0.1
        >>> trainer.extend(lr_drop)
        >>> trainer.run()
        >>> round(optimizer.lr, 6)
        0.001
    """
    if "invoke_before_training" in kwargs:
        raise ValueError(
            "make_extension: invoke_before_training was removed in Chainer v2; use "
            "trainer.extend(..., call_before_training=True) instead"
        )
    if kwargs:
        names = ", ".join(repr(k) for k in sorted(kwargs))
        raise TypeError(f"make_extension() got unexpected keyword argument(s) {names}")
    for arg_name, value in (("finalizer", finalizer), ("initializer", initializer), ("on_error", on_error)):
        if value is not None and not callable(value):
            raise TypeError(f"make_extension: {arg_name} must be callable, got {type(value).__name__}")
    if priority is not None and not isinstance(priority, int):
        raise TypeError(f"make_extension: priority must be an int, got {type(priority).__name__}")

    def decorator(ext: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(ext):
            raise TypeError(f"make_extension: the decorated object must be callable, got {type(ext).__name__}")
        ext.trigger = Extension.trigger if trigger is None else trigger  # type: ignore[attr-defined]
        ext.default_name = default_name or ext.__name__  # type: ignore[attr-defined]
        ext.priority = PRIORITY_READER if priority is None else priority  # type: ignore[attr-defined]
        ext.finalize = finalizer  # type: ignore[attr-defined]
        ext.initialize = initializer  # type: ignore[attr-defined]
        ext.on_error = on_error  # type: ignore[attr-defined]
        return ext

    return decorator


__all__ = [
    "PRIORITY_EDITOR",
    "PRIORITY_READER",
    "PRIORITY_SNAPSHOT",
    "PRIORITY_WRITER",
    "Extension",
    "make_extension",
]
