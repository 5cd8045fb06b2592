"""``Trainer``: the standard training loop."""

from __future__ import annotations

import inspect
import os
import random
import sys
import time
import traceback
from collections import OrderedDict
from typing import Any, NamedTuple

import numpy

from chainer import reporter as reporter_module
from chainer.training import _util
from chainer.training import extension as extension_module
from chainer.training import util as training_util


class _ExtensionEntry(NamedTuple):
    extension: Any
    priority: int
    trigger: Any
    call_before_training: bool


def _call_finalize(finalize: Any, trainer: Trainer) -> None:
    # Extensions written for Chainer 7 define finalize(self); newer ones may take the
    # trainer. Pass it when the method accepts an argument.
    try:
        inspect.signature(finalize).bind(trainer)
    except TypeError:
        finalize()
    except ValueError:  # no signature available (builtins)
        finalize()
    else:
        finalize(trainer)


class Trainer:
    """The standard training loop in Chainer.

    The trainer runs ``updater.update()`` (one mini-batch) until ``stop_trigger`` fires.
    After each update, every extension whose trigger fires is called with the trainer,
    in decreasing order of priority (extensions of equal priority in the order they were
    added). Values reported with :func:`chainer.report` during the iteration are
    collected in :attr:`observation`; the link of each optimizer is registered as an
    observer named after the optimizer (``'main'``) and its sub-links by their paths,
    so a loss reported by the main model is named ``'main/loss'`` and a value reported
    by its link ``predictor`` is ``'main/predictor/<name>'``.

    Args:
        updater: The updater (e.g. :class:`~chainer.training.updaters.StandardUpdater`).
        stop_trigger: When to stop: ``(length, unit)`` such as ``(20, 'epoch')``, or a
            trigger such as
            :class:`~chainer.training.triggers.EarlyStoppingTrigger`. ``None``: never.
        out: The output directory of the extensions (logs, plots, snapshots).
        extensions: Extensions to add with their default settings.

    Attributes:
        updater: The updater.
        stop_trigger: The stop trigger (a callable).
        observation: The values reported in the current iteration.
        out: The output directory.
        reporter: The :class:`chainer.Reporter` of the training loop.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> updater = training.StandardUpdater(train_iter, optimizer, device=-1)
        >>> trainer = training.Trainer(updater, (50, 'epoch'), out='result')
        >>> trainer.extend(extensions.LogReport())
        >>> trainer.run()
        >>> trainer.updater.epoch, trainer.updater.iteration
        (50, 100)
    """

    def __init__(self, updater: Any, stop_trigger: Any = None, out: str = "result", extensions: Any = None) -> None:
        if not hasattr(updater, "update") or not hasattr(updater, "get_all_optimizers"):
            raise TypeError(f"Trainer: updater must be a chainer.training.Updater, got {type(updater).__name__}")
        if not isinstance(out, (str, os.PathLike)):
            raise TypeError(f"Trainer: out must be a path, got {type(out).__name__}")
        self.updater = updater
        self.stop_trigger = training_util.get_trigger(stop_trigger)
        self.observation: dict[str, Any] = {}
        self.out = os.fspath(out)

        reporter = reporter_module.Reporter()
        for name, optimizer in updater.get_all_optimizers().items():
            reporter.add_observer(name, optimizer.target)
            reporter.add_observers(name, optimizer.target.namedlinks(skipself=True))
        self.reporter = reporter

        self._done = False
        self._extensions: OrderedDict[str, _ExtensionEntry] = OrderedDict()
        self._start_at: float | None = None
        self._snapshot_elapsed_time = 0.0
        self._final_elapsed_time: float | None = None

        updater.connect_trainer(self)
        for ext in extensions or ():
            self.extend(ext)

    @property
    def elapsed_time(self) -> float:
        """Seconds of training so far, including the time before the snapshot this run
        resumed from. Raises ``RuntimeError`` before :meth:`run` starts."""
        if self._done and self._final_elapsed_time is not None:
            return self._final_elapsed_time
        if self._start_at is None:
            raise RuntimeError("Trainer.elapsed_time: the training has not been started yet (call run())")
        return time.perf_counter() - self._start_at + self._snapshot_elapsed_time

    @property
    def is_before_training(self) -> bool:
        """Whether no update has been done yet (``updater.iteration == 0``)."""
        return self.updater.iteration == 0

    def extend(
        self,
        extension: Any,
        name: str | None = None,
        trigger: Any = None,
        priority: int | None = None,
        *,
        call_before_training: bool = False,
        **kwargs: Any,
    ) -> None:
        """Register an extension to the trainer.

        Args:
            extension: An :class:`~chainer.training.Extension` or any callable taking the
                trainer (see :func:`~chainer.training.make_extension`).
            name: Its name; by default ``extension.name``, ``extension.default_name`` or
                its ``__name__``. A name already used gets a suffix ``_1``, ``_2``...
                ``'training'`` is reserved. A name should be a str (it names the
                extension in snapshots and reports); other hashable names are accepted
                as Chainer 7 did.
            trigger: When to call it: ``(period, unit)`` or a trigger; by default the
                extension's ``trigger`` attribute, or every iteration.
            priority: Its priority; by default the extension's ``priority`` attribute,
                or :data:`~chainer.training.PRIORITY_READER`.
            call_before_training: Also call it once before the first iteration (not when
                a run resumes from a snapshot taken after it).

        Example:
            >>> from chainer import training
            >>> from chainer.training import extensions
            >>> model = L.Classifier(L.Linear(3, 2))
            >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
            >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
            >>> train_iter = chainer.iterators.SerialIterator(train, 2)
            >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
            >>> trainer.extend(extensions.snapshot(), trigger=(1, 'epoch'))
            >>> trainer.run()
            >>> import os
            >>> sorted(os.listdir('result'))
            ['snapshot_iter_2', 'snapshot_iter_4']
        """
        if "invoke_before_training" in kwargs:
            raise ValueError(
                "Trainer.extend: invoke_before_training was removed in Chainer v2; use call_before_training instead"
            )
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"Trainer.extend() got unexpected keyword argument(s) {names}")
        if not callable(extension):
            raise TypeError(f"Trainer.extend: the extension must be callable, got {type(extension).__name__}")
        if name is None:
            name = getattr(extension, "name", None)
            if name is None:
                name = getattr(extension, "default_name", None)
                if name is None:
                    name = getattr(extension, "__name__", None)
                    if name is None:
                        raise TypeError(
                            f"Trainer.extend: no name given for the extension {extension!r} and it has no "
                            "name, default_name or __name__ attribute"
                        )
        try:
            hash(name)
        except TypeError:
            raise TypeError(f"Trainer.extend: the name must be hashable (a str), got {type(name).__name__}") from None
        if name == "training":
            raise ValueError('Trainer.extend: the name "training" is reserved and cannot name an extension')

        if trigger is None:
            trigger = getattr(extension, "trigger", extension_module.Extension.trigger)
        trigger = training_util.get_trigger(trigger)
        if priority is None:
            priority = getattr(extension, "priority", extension_module.PRIORITY_READER)

        modified_name = name
        ordinal = 0
        while modified_name in self._extensions:
            ordinal += 1
            modified_name = f"{name}_{ordinal}"
        try:
            extension.name = modified_name
        except AttributeError:  # e.g. a bound method: it is registered all the same
            pass
        # The priority is checked when the loop sorts the extensions (run()): Chainer 7
        # registered any value, and tests register mocks that never run.
        self._extensions[modified_name] = _ExtensionEntry(extension, priority, trigger, bool(call_before_training))

    def get_extension(self, name: str) -> Any:
        """Return the extension registered under ``name``.

        Raises:
            ValueError: No extension has that name.
        """
        entry = self._extensions.get(name)
        if entry is None:
            raise ValueError(
                f"Trainer.get_extension: extension {name!r} not found (registered: {list(self._extensions)})"
            )
        return entry.extension

    def _sorted_extensions(self) -> list[tuple[str, _ExtensionEntry]]:
        for name, entry in self._extensions.items():
            if not isinstance(entry.priority, (int, numpy.integer)) or isinstance(entry.priority, bool):
                raise TypeError(
                    f"Trainer.run: the priority of extension {name!r} must be an int, got {type(entry.priority).__name__}"
                )
        # sorted() is stable: equal priorities keep the order of registration.
        return sorted(self._extensions.items(), key=lambda item: item[1].priority, reverse=True)

    def run(self, show_loop_exception_msg: bool = True) -> None:
        """Run the training loop until the stop trigger fires.

        Extensions are initialized first (those that restore a snapshot, such as
        ``snapshot(autoload=True)``, before the others, so that every extension starts
        from the restored state); after the loop, or when it raises, ``finalize`` is
        called on every extension and on the updater. A loop can run only once.

        Args:
            show_loop_exception_msg: Print the exception raised in the loop, with its
                traceback, to stderr before the error handlers and finalizers run.
        """
        if self._done:
            raise RuntimeError("Trainer.run: the training loop cannot be run twice on the same trainer")
        os.makedirs(self.out, exist_ok=True)

        extensions = self._sorted_extensions()
        self._start_at = time.perf_counter()

        restoring = [item for item in extensions if getattr(item[1].extension, "_restores_trainer_state", False)]
        others = [item for item in extensions if item not in restoring]
        try:
            for _, entry in restoring + others:
                initializer = getattr(entry.extension, "initialize", None)
                if initializer and not getattr(entry.trigger, "finished", False):
                    initializer(self)
        except BaseException:
            # No error handlers here (a snapshot on error would save a state that was
            # never trained), but writers, iterators and workers are released.
            self._finalize(extensions)
            raise

        reporter = self.reporter
        update = self.updater.update
        stop_trigger = self.stop_trigger
        try:
            # Only a run that starts from scratch: a resumed run has called them already.
            if self.is_before_training:
                self.observation = {}
                with reporter.scope(self.observation):
                    for _, entry in extensions:
                        if entry.call_before_training:
                            entry.extension(self)

            while not stop_trigger(self):
                self.observation = {}
                with reporter.scope(self.observation):
                    update()
                    for _, entry in extensions:
                        if entry.trigger(self):
                            entry.extension(self)
        except Exception as exc:
            tb = exc.__traceback__
            if show_loop_exception_msg:
                err = sys.stderr
                err.write(f"Exception in main training loop: {exc}\n")
                err.write("Traceback (most recent call last):\n")
                traceback.print_tb(tb, file=err)
                err.write("Will finalize trainer extensions and updater before reraising the exception.\n")
                err.flush()
            for name, entry in extensions:
                handler = getattr(entry.extension, "on_error", None)
                if handler is None:
                    continue
                try:
                    handler(self, exc, tb)
                except Exception as handler_exc:
                    # Every handler runs; their own errors are reported and ignored.
                    sys.stderr.write(f"Exception in the error handler of extension {name!r}: {handler_exc}\n")
                    traceback.print_exc(file=sys.stderr)
            raise
        finally:
            self._finalize(extensions)

    def _finalize(self, extensions: list[tuple[str, _ExtensionEntry]]) -> None:
        for _, entry in extensions:
            finalize = getattr(entry.extension, "finalize", None)
            if finalize:
                _call_finalize(finalize, self)
        self.updater.finalize()
        self._final_elapsed_time = self.elapsed_time
        self._done = True

    def serialize(self, serializer: Any) -> None:
        """Save or load the whole training state.

        Keys (as in Chainer 7): ``updater/...`` (iterators, optimizers, models,
        iteration), ``stop_trigger/...``, ``extensions/<name>/...``,
        ``extension_triggers/<name>/...`` and ``_snapshot_elapsed_time``. In addition,
        ``_random_state/...`` holds the states of NumPy's global random generator and
        of Python's ``random`` module, which are restored on load, so that a resumed
        run draws the same random numbers (shuffling, dropout...) as an uninterrupted
        one. Snapshots without these keys (Chainer 7's) load as before.
        """
        self.updater.serialize(serializer["updater"])
        if hasattr(self.stop_trigger, "serialize"):
            self.stop_trigger.serialize(serializer["stop_trigger"])
        extensions_s = serializer["extensions"]
        triggers_s = serializer["extension_triggers"]
        for name, entry in self._extensions.items():
            if hasattr(entry.extension, "serialize"):
                entry.extension.serialize(extensions_s[name])
            if hasattr(entry.trigger, "serialize"):
                entry.trigger.serialize(triggers_s[name])
        if _util.is_loading(serializer):
            elapsed = float(serializer("_snapshot_elapsed_time", 0.0))
            if not _util.is_validating(serializer):
                self._snapshot_elapsed_time = elapsed
        else:
            elapsed = self.elapsed_time if self._start_at is not None else self._snapshot_elapsed_time
            serializer("_snapshot_elapsed_time", elapsed)
        # Last: loading the models above may draw random numbers (lazy initialization).
        _serialize_random_state(serializer["_random_state"])


def _serialize_random_state(serializer: Any) -> None:
    if not _util.is_loading(serializer):
        _, keys, pos, has_gauss, cached_gaussian = numpy.random.get_state()
        serializer("numpy_keys", numpy.asarray(keys, dtype=numpy.uint32))
        serializer("numpy_pos", int(pos))
        serializer("numpy_has_gauss", int(has_gauss))
        serializer("numpy_cached_gaussian", float(cached_gaussian))
        version, internal, gauss_next = random.getstate()
        serializer("python_version", int(version))
        serializer("python_internal", numpy.asarray(internal, dtype=numpy.int64))
        serializer("python_has_gauss", int(gauss_next is not None))
        serializer("python_gauss_next", float(gauss_next if gauss_next is not None else 0.0))
        return
    try:
        keys = serializer("numpy_keys", None)
    except KeyError:
        return  # a snapshot without random states (Chainer 7)
    pos = serializer("numpy_pos", 0)
    has_gauss = serializer("numpy_has_gauss", 0)
    cached_gaussian = serializer("numpy_cached_gaussian", 0.0)
    version = serializer("python_version", 0)
    internal = serializer("python_internal", None)
    python_has_gauss = serializer("python_has_gauss", 0)
    gauss_next = serializer("python_gauss_next", 0.0)
    if _util.is_validating(serializer) or keys is None or internal is None:
        return
    numpy.random.set_state(("MT19937", numpy.asarray(keys, dtype=numpy.uint32), pos, has_gauss, cached_gaussian))
    random.setstate((version, tuple(int(v) for v in numpy.asarray(internal)), gauss_next if python_has_gauss else None))


__all__ = ["Trainer"]
