"""``ParallelUpdater``: data parallelism over several devices in one process."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from chainer import function
from chainer.dataset import convert
from chainer.training import _util
from chainer.training.updaters import standard_updater


class ParallelUpdater(standard_updater.StandardUpdater):
    """Implementation of a parallel GPU Updater.

    The model of the main optimizer runs on the device ``devices['main']``; a copy of it
    is made for every other entry of ``devices`` and sent there. Each mini-batch is split
    in as many parts as there are models (example ``i`` goes to model ``i % n``), each
    model computes the loss of its part and backpropagates, the gradients are summed into
    the main model, the optimizer updates it, and the new parameters are copied back to
    the other models.

    Because the loss of each part is a mean over that part, the summed gradient is about
    ``n`` times the gradient of the whole mini-batch; adjust the learning rate (or the
    batch size) accordingly, as the Chainer documentation advises.

    The devices may be GPUs (``0``, ``'@cupy:1'``) or the CPU (``-1``, ``'@numpy'``).
    On GPUs the parts run asynchronously (CuPy kernels are queued per device); with CPU
    devices they simply run one after the other in this process, which gives the same
    result and is useful to test a data-parallel setup on a machine without GPUs.

    Args:
        iterator: The dataset iterator (or a dict with ``'main'``).
        optimizer: The optimizer (or a dict with ``'main'``).
        converter: Converts each part of the mini-batch for its device.
        models: ``{name: link}`` with ``'main'`` being the optimizer's target; made by
            copying the target if ``None``.
        devices: ``{name: device}`` with a ``'main'`` entry (required when ``models``
            is ``None``; otherwise defaults to each model's current device).
        loss_func: The loss function; each model itself if ``None``.
        loss_scale: Loss scaling factor passed to ``backward``.
        auto_new_epoch: Call ``optimizer.new_epoch(auto=True)`` at each epoch.

    Example:
        >>> from chainer import training
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> updater = training.updaters.ParallelUpdater(
        ...     train_iter, optimizer, devices={'main': '@numpy', 'second': '@numpy'})
        >>> updater.update()
        >>> updater.iteration
        1
    """

    def __init__(
        self,
        iterator: Any,
        optimizer: Any,
        converter: Callable[..., Any] = convert.concat_examples,
        models: dict[str, Any] | None = None,
        devices: dict[str, Any] | None = None,
        loss_func: Callable[..., Any] | None = None,
        loss_scale: float | None = None,
        auto_new_epoch: bool = True,
    ) -> None:
        super().__init__(
            iterator, optimizer, converter=converter, loss_func=loss_func, loss_scale=loss_scale,
            auto_new_epoch=auto_new_epoch,
        )  # fmt: skip
        where = "ParallelUpdater"
        main_model = self.get_optimizer("main").target
        if models is None:
            if devices is None:
                raise ValueError(f"{where}: give devices (a dict with a 'main' entry), or models")
            if not isinstance(devices, dict) or "main" not in devices:
                raise KeyError(f"{where}: devices must be a dict with a 'main' entry, got {devices!r}")
            resolved = {name: standard_updater._as_device(spec, where) for name, spec in devices.items()}
            models = {"main": main_model}
            for name, device in resolved.items():
                if name != "main":
                    models[name] = copy.deepcopy(main_model).to_device(device)
            main_model.to_device(resolved["main"])
        else:
            if not isinstance(models, dict) or models.get("main") is not main_model:
                raise ValueError(
                    f"{where}: models must be a dict whose 'main' entry is the target of the main optimizer"
                )
            if devices is None:
                resolved = {name: model.device for name, model in models.items()}
            else:
                if set(devices) != set(models):
                    raise ValueError(
                        f"{where}: devices and models must have the same names, got {sorted(devices)} and {sorted(models)}"
                    )
                resolved = {name: standard_updater._as_device(spec, where) for name, spec in devices.items()}
        # 'main' first: it gets the first example of each mini-batch.
        self._models: dict[str, Any] = {"main": main_model, **{k: v for k, v in models.items() if k != "main"}}
        self._devices: dict[str, Any] = {name: resolved[name] for name in self._models}

    def connect_trainer(self, trainer: Any) -> None:
        """Register the model copies as observers (``second/loss``...)."""
        for name, model in self._models.items():
            if name != "main":
                trainer.reporter.add_observer(name, model)
                trainer.reporter.add_observers(name, model.namedlinks(skipself=True))

    def update_core(self) -> None:
        optimizer = self.get_optimizer("main")
        model_main = optimizer.target
        iterator = self.get_iterator("main")
        batch = standard_updater.next_batch(iterator)
        n = len(self._models)
        if len(batch) < n:
            raise ValueError(
                f"ParallelUpdater: a mini-batch of {len(batch)} examples cannot be split over {n} models; "
                "use a larger batch size"
            )
        parts = {
            name: convert._call_converter(self.converter, batch[i::n], self._devices[name])
            for i, name in enumerate(self._models)
        }
        for model in self._models.values():
            model.cleargrads()
        losses = []
        for name, model in self._models.items():
            loss_func = self.loss_func or model
            with function.force_backprop_mode(), self._devices[name].create_context():
                losses.append(standard_updater.call_with_arrays(loss_func, parts[name]))
        for loss in losses:
            loss.backward(loss_scale=self.loss_scale)
        for name, model in self._models.items():
            if name != "main":
                model_main.addgrads(model)
        optimizer.update()
        for name, model in self._models.items():
            if name != "main":
                model.copyparams(model_main)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer: Any) -> None:
        """As :meth:`StandardUpdater.serialize`; after loading, the copies get the loaded
        parameters of the main model."""
        super().serialize(serializer)
        if _util.is_loading(serializer) and not _util.is_validating(serializer):
            main_model = self.get_optimizer("main").target
            for name, model in self._models.items():
                if name != "main":
                    model.copyparams(main_model)


__all__ = ["ParallelUpdater"]
