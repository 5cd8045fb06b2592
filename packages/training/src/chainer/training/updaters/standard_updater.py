"""``StandardUpdater``: one mini-batch, one forward/backward, one optimizer update."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import backend
from chainer.dataset import convert
from chainer.dataset import iterator as iterator_module
from chainer.training import _updater, _util


def _as_device(device: Any, where: str) -> backend.Device | None:
    if device is None or isinstance(device, backend.Device):
        return device
    return backend._get_device_compat(device)


def _check_optimizer(optimizer: Any, name: str, where: str) -> None:
    if not hasattr(optimizer, "update") or not hasattr(optimizer, "serialize"):
        raise TypeError(f"{where}: optimizer {name!r} must be a chainer.Optimizer, got {type(optimizer).__name__}")
    if getattr(optimizer, "target", None) is None:
        raise ValueError(
            f"{where}: optimizer {name!r} has no target link; call optimizer.setup(model) before creating the updater"
        )


def _check_iterator(iterator: Any, name: str, where: str) -> None:
    if not hasattr(iterator, "__next__") and not hasattr(iterator, "next"):
        raise TypeError(f"{where}: iterator {name!r} must be a chainer.dataset.Iterator, got {type(iterator).__name__}")


def next_batch(iterator: Any) -> Any:
    """The next mini-batch: ``iterator.next()`` (Chainer's iterators), or ``next(iterator)``
    for a plain Python iterator."""
    method = getattr(iterator, "next", None)
    return method() if method is not None else next(iterator)


def call_with_arrays(func: Callable[..., Any], in_arrays: Any) -> Any:
    """Call ``func`` the way updaters and evaluators do: a tuple is spread as positional
    arguments, a dict as keyword arguments, anything else is the one argument."""
    if isinstance(in_arrays, tuple):
        return func(*in_arrays)
    if isinstance(in_arrays, dict):
        return func(**in_arrays)
    return func(in_arrays)


class StandardUpdater(_updater.Updater):
    """Standard implementation of Updater.

    Each :meth:`update` takes the next mini-batch of the ``'main'`` iterator, converts it
    with ``converter`` (sending it to ``device``), and calls
    ``optimizer.update(loss_func, *in_arrays)`` on the ``'main'`` optimizer, so the
    loss function (by default the optimizer's target link) computes the loss and the
    optimizer backpropagates and updates the parameters.

    Args:
        iterator: The dataset iterator, or a dict ``{name: iterator}`` with a ``'main'``
            entry.
        optimizer: The optimizer, or a dict ``{name: optimizer}``. The default
            :meth:`update_core` uses the ``'main'`` one; an updater that overrides it may
            name them as it likes (``{'gen': opt_gen, 'dis': opt_dis}`` for a GAN).
        converter: Converts a mini-batch into the arguments of the loss function
            (:func:`chainer.dataset.concat_examples` by default).
        device: Where to send the model and the mini-batches: a device specifier
            (``'@numpy'``, ``'@cupy:0'``), a :class:`chainer.backend.Device`, or an
            integer of the older API (``-1``: the CPU, ``N``: GPU ``N``). ``None`` leaves
            both where they are.
        loss_func: The loss function; the target link of the main optimizer if ``None``.
        loss_scale: Loss scaling factor for mixed-precision training
            (``optimizer.set_loss_scale``).
        auto_new_epoch: Call ``optimizer.new_epoch(auto=True)`` when the main iterator
            completes an epoch.
        input_device: (keyword only) Where to send the mini-batches if different from
            ``device``.

    Attributes:
        converter, loss_func, iteration (number of completed updates), auto_new_epoch.

    Example:
        >>> from chainer import training
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> updater = training.StandardUpdater(train_iter, optimizer, device=-1)
        >>> trainer = training.Trainer(updater, (20, 'epoch'))
        >>> trainer.run()
        >>> updater.iteration
        40
    """

    def __init__(
        self,
        iterator: Any,
        optimizer: Any,
        converter: Callable[..., Any] = convert.concat_examples,
        device: Any = None,
        loss_func: Callable[..., Any] | None = None,
        loss_scale: float | None = None,
        auto_new_epoch: bool = True,
        **kwargs: Any,
    ) -> None:
        where = type(self).__name__
        input_device = kwargs.pop("input_device", None)
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"{where}() got unexpected keyword argument(s) {names}")
        device = _as_device(device, where)
        input_device = _as_device(input_device, where)
        if input_device is None:
            input_device = device

        if isinstance(iterator, iterator_module.Iterator) or not isinstance(iterator, dict):
            iterator = {"main": iterator}
        if "main" not in iterator:
            raise ValueError(f"{where}: the dict of iterators must have a 'main' entry, got keys {sorted(iterator)}")
        for name, it in iterator.items():
            _check_iterator(it, name, where)
        if not isinstance(optimizer, dict):
            optimizer = {"main": optimizer}
        for name, opt in optimizer.items():
            _check_optimizer(opt, name, where)
        if not callable(converter):
            raise TypeError(f"{where}: converter must be callable, got {type(converter).__name__}")
        if loss_func is not None and not callable(loss_func):
            raise TypeError(f"{where}: loss_func must be callable, got {type(loss_func).__name__}")

        self._iterators: dict[str, Any] = dict(iterator)
        self._optimizers: dict[str, Any] = dict(optimizer)
        if device is not None:
            for opt in self._optimizers.values():
                opt.target.to_device(device)
        self.converter = converter
        self.loss_func = loss_func
        self.iteration = 0
        self._device = device
        self._input_device = input_device
        self.loss_scale = loss_scale
        if loss_scale is not None:
            for opt in self._optimizers.values():
                opt.set_loss_scale(loss_scale)
        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for opt in self._optimizers.values():
                opt.use_auto_new_epoch = True

    @property
    def device(self) -> backend.Device | None:
        """The device of the model (``None``: not moved)."""
        return self._device

    @property
    def input_device(self) -> backend.Device | None:
        """The device the mini-batches are sent to (``None``: left where they are)."""
        return self._input_device

    @property
    def epoch(self) -> int:
        """The number of completed epochs of the main iterator."""
        return self._iterators["main"].epoch

    @property
    def epoch_detail(self) -> float:
        """The epoch as a float (``epoch + position / len(dataset)``)."""
        return self._iterators["main"].epoch_detail

    @property
    def previous_epoch_detail(self) -> float | None:
        """``epoch_detail`` before the last update (``None`` before the first one)."""
        return self._iterators["main"].previous_epoch_detail

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last update completed an epoch."""
        return self._iterators["main"].is_new_epoch

    def finalize(self) -> None:
        """Finalize the iterators (stops the workers of multiprocess iterators)."""
        for it in self._iterators.values():
            it.finalize()

    def get_optimizer(self, name: str) -> Any:
        """The optimizer of the given name (``'main'``...)."""
        try:
            return self._optimizers[name]
        except KeyError:
            raise KeyError(
                f"{type(self).__name__}.get_optimizer: no optimizer named {name!r} (it has {sorted(self._optimizers)})"
            ) from None

    def get_all_optimizers(self) -> dict[str, Any]:
        """``{name: optimizer}`` (a new dict)."""
        return dict(self._optimizers)

    def get_iterator(self, name: str) -> Any:
        """The iterator of the given name (``'main'``...)."""
        try:
            return self._iterators[name]
        except KeyError:
            raise KeyError(
                f"{type(self).__name__}.get_iterator: no iterator named {name!r} (it has {sorted(self._iterators)})"
            ) from None

    def update(self) -> None:
        """Run :meth:`update_core` and count the iteration."""
        self.update_core()
        self.iteration += 1

    def update_core(self) -> None:
        """One training step on the next mini-batch of the main iterator."""
        iterator = self._iterators["main"]
        batch = next_batch(iterator)
        in_arrays = convert._call_converter(self.converter, batch, self.input_device)
        optimizer = self.get_optimizer("main")
        loss_func = self.loss_func or optimizer.target
        if isinstance(in_arrays, tuple):
            optimizer.update(loss_func, *in_arrays)
        elif isinstance(in_arrays, dict):
            optimizer.update(loss_func, **in_arrays)
        else:
            optimizer.update(loss_func, in_arrays)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer: Any) -> None:
        """Save or load the iterators, optimizers, models and the iteration count
        (keys ``iterator:<name>``, ``optimizer:<name>``, ``model:<name>``,
        ``iteration``, as in Chainer 7)."""
        for name, it in self._iterators.items():
            it.serialize(serializer["iterator:" + name])
        for name, opt in self._optimizers.items():
            opt.serialize(serializer["optimizer:" + name])
            opt.target.serialize(serializer["model:" + name])
        iteration = serializer("iteration", self.iteration)
        if _util.is_loading(serializer) and not _util.is_validating(serializer):
            self.iteration = int(iteration)


__all__ = ["StandardUpdater"]
