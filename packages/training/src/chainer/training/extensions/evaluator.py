"""``Evaluator``: evaluates models on a validation set and reports the mean values."""

from __future__ import annotations

import copy
import datetime
import warnings
from collections.abc import Callable
from typing import Any

from chainer import backend, configuration, function, link
from chainer import reporter as reporter_module
from chainer.dataset import convert
from chainer.dataset import iterator as iterator_module
from chainer.training import extension as extension_module
from chainer.training.extensions import util
from chainer.training.updaters import standard_updater


class _IteratorProgressBar(util.ProgressBar):
    """The display of an evaluation sweep (``progress_bar=True``), on a terminal only.

    Three lines, as Chainer 7 draws them: the bar, the examples swept so far out of the
    data set's, and the speed (examples per second) with the time to finish.
    """

    def __init__(self, iterator: Any, out: Any = None, bar_length: int = 50) -> None:
        super().__init__(out, plain_lines=False)
        self.iterator = iterator
        self.bar_length = bar_length
        self.count = 0

    def update(self) -> None:
        self.count += 1
        super().update()

    def get_lines(self) -> list[str]:
        detail = getattr(self.iterator, "epoch_detail", None)
        try:
            size = len(self.iterator.dataset)
        except (AttributeError, TypeError):
            size = 0
        if not size or detail is None:
            speed, _ = self.update_speed(self.count, 0.0)
            return [f"{self.count:10} iterations", f"{speed:10.5g} iters/sec."]
        # The examples swept so far (Chainer 7 showed the iterator's position, which
        # falls back to 0 when the sweep ends).
        done = min(round(float(detail) * size), size)
        speed, _ = self.update_speed(done, float(detail))
        eta = datetime.timedelta(seconds=(size - done) / speed) if speed > 0 else datetime.timedelta(0)
        return [
            self.bar("validation", float(detail), self.bar_length),
            f"{done:10} / {size} iterations",
            f"{speed:10.5g} iters/sec. Estimated time to finish: {eta}.",
        ]


class Evaluator(extension_module.Extension):
    """Trainer extension to evaluate models on a validation set.

    At each call it sweeps over the ``'main'`` iterator once, calls ``eval_func`` (the
    ``'main'`` target by default) on every converted mini-batch in test mode
    (``chainer.config.train`` is ``False``) and without building graphs
    (:func:`chainer.no_backprop_mode`), and reports the mean of every value reported
    during the sweep. The targets are registered as observers named after the
    extension, so that, with the default name ``'validation'``, a loss the model
    reports as ``'loss'`` is named ``'validation/main/loss'``.

    Before each sweep the iterator is reset (``iterator.reset()``); an iterator without
    a ``reset`` method is copied instead (deprecated), so the original is never
    exhausted. The iterator should not repeat (``repeat=False``), otherwise the sweep
    never ends; a warning is given for the built-in iterators.

    Args:
        iterator: The validation iterator, or a dict with a ``'main'`` entry.
        target: The link to evaluate, or a dict of links with a ``'main'`` entry.
        converter: Converts mini-batches (:func:`~chainer.dataset.concat_examples`).
        device: Where to send the mini-batches (a device specifier, a ``Device`` or an
            integer of the older API; ``None`` leaves them where they are).
        eval_hook: Called as ``eval_hook(evaluator)`` before each evaluation.
        eval_func: The function called on each mini-batch; the main target if
            ``None``.
        progress_bar: (keyword only) Show the progress of each sweep (on a terminal).

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> test_iter = chainer.iterators.SerialIterator(train, 2, repeat=False, shuffle=False)
        >>> trainer.extend(extensions.Evaluator(test_iter, model, device=-1))
        >>> # standalone use: returns {'main/loss': ..., 'main/accuracy': ...}
        >>> result = extensions.Evaluator(test_iter, model)()
        >>> sorted(result)
        ['main/accuracy', 'main/loss']
    """

    trigger: Any = 1, "epoch"
    default_name: str = "validation"  # type: ignore[assignment]
    priority = extension_module.PRIORITY_WRITER
    name: str | None = None

    def __init__(
        self,
        iterator: Any,
        target: Any,
        converter: Callable[..., Any] = convert.concat_examples,
        device: Any = None,
        eval_hook: Callable[[Any], Any] | None = None,
        eval_func: Callable[..., Any] | None = None,
        **kwargs: Any,
    ) -> None:
        progress_bar = kwargs.pop("progress_bar", False)
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"Evaluator() got unexpected keyword argument(s) {names}")
        if device is not None and not isinstance(device, backend.Device):
            device = backend._get_device_compat(device)
        if isinstance(iterator, iterator_module.Iterator) or not isinstance(iterator, dict):
            iterator = {"main": iterator}
        if "main" not in iterator:
            raise ValueError(f"Evaluator: the dict of iterators must have a 'main' entry, got keys {sorted(iterator)}")
        if isinstance(target, link.Link) or not isinstance(target, dict):
            target = {"main": target}
        for name, t in target.items():
            if not isinstance(t, link.Link):
                raise TypeError(f"Evaluator: target {name!r} must be a chainer.Link, got {type(t).__name__}")
        if not callable(converter):
            raise TypeError(f"Evaluator: converter must be callable, got {type(converter).__name__}")
        for arg_name, value in (("eval_hook", eval_hook), ("eval_func", eval_func)):
            if value is not None and not callable(value):
                raise TypeError(f"Evaluator: {arg_name} must be callable, got {type(value).__name__}")
        self._iterators: dict[str, Any] = dict(iterator)
        self._targets: dict[str, Any] = dict(target)
        self.converter = converter
        self.device = device
        self.eval_hook = eval_hook
        self.eval_func = eval_func
        self._progress_bar = progress_bar
        for name, it in self._iterators.items():
            if getattr(it, "repeat", False):
                warnings.warn(
                    f"Evaluator: the iterator {name!r} repeats (repeat=True); an evaluation sweeps over the "
                    "iterator until it stops, so it may never end. Create it with repeat=False"
                )

    def get_iterator(self, name: str) -> Any:
        """The iterator of the given name."""
        return self._iterators[name]

    def get_all_iterators(self) -> dict[str, Any]:
        """``{name: iterator}`` (a new dict)."""
        return dict(self._iterators)

    def get_target(self, name: str) -> Any:
        """The target link of the given name."""
        return self._targets[name]

    def get_all_targets(self) -> dict[str, Any]:
        """``{name: link}`` (a new dict)."""
        return dict(self._targets)

    def __call__(self, trainer: Any = None) -> dict[str, Any]:
        """Evaluate and report the results to the current reporter.

        Returns:
            ``{name: mean value}``, names prefixed with ``'<extension name>/'`` when the
            extension is registered to a trainer.
        """
        reporter = reporter_module.Reporter()
        prefix = self.name + "/" if self.name is not None else ""
        for name, target in self._targets.items():
            reporter.add_observer(prefix + name, target)
            reporter.add_observers(prefix + name, target.namedlinks(skipself=True))
        with reporter, configuration.using_config("train", False):
            result = self.evaluate()
        reporter_module.report(result)
        return result

    def evaluate(self) -> dict[str, Any]:
        """Sweep over the main iterator once and return the mean of each reported value."""
        iterator = self._iterators["main"]
        eval_func = self.eval_func or self._targets["main"]
        if self.eval_hook:
            self.eval_hook(self)
        if hasattr(iterator, "reset"):
            iterator.reset()
            it = iterator
        else:
            warnings.warn(
                "Evaluator: the iterator has no reset method, so it is copied before each evaluation; this is "
                "deprecated, implement reset()",
                DeprecationWarning,
            )
            it = copy.copy(iterator)
        summary = reporter_module.DictSummary()
        progress = _IteratorProgressBar(it) if self._progress_bar else None
        for batch in it:
            observation: dict[str, Any] = {}
            with reporter_module.report_scope(observation):
                in_arrays = convert._call_converter(self.converter, batch, self.device)
                with function.no_backprop_mode():
                    standard_updater.call_with_arrays(eval_func, in_arrays)
            summary.add(observation)
            if progress is not None:
                progress.update()
        if progress is not None:
            progress.close()
        return summary.compute_mean()

    def finalize(self, trainer: Any = None) -> None:
        """Finalize the iterators."""
        for it in self._iterators.values():
            it.finalize()


__all__ = ["Evaluator"]
