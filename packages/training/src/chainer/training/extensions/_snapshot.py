"""``snapshot`` and ``snapshot_object``: save the trainer (or any object) periodically."""

from __future__ import annotations

import os
import re
import string
from collections.abc import Callable
from typing import Any

import numpy

from chainer import serializers
from chainer.serializers import npz
from chainer.training import extension as extension_module
from chainer.training.extensions import snapshot_writers


class _CapturedState:
    """A copy of an object's serialized state, taken at one moment, that can be saved
    later (by another thread or process) by any savefun calling ``serialize``."""

    def __init__(self, target: Any) -> None:
        s = npz.DictionarySerializer()
        s.save(target)
        # DictionarySerializer keeps host arrays as they are: copy them, the training
        # goes on changing them in place.
        self.entries = {key: numpy.array(value, copy=True) for key, value in s.target.items()}

    def serialize(self, serializer: Any) -> None:
        for key, value in self.entries.items():
            *path, name = key.split("/")
            s = serializer
            for part in path:
                s = s[part]
            s(name, _as_saved(value))


def _as_saved(value: numpy.ndarray) -> Any:
    """The value as the object gave it to the serializer: ``None`` and strings as such
    (not as 0-d object or unicode arrays, which not every format stores)."""
    if value.ndim == 0:
        if value.dtype.hasobject and value.item() is None:
            return None
        if value.dtype.kind in "US":
            return value.item()
    return value


def _always_true() -> bool:
    return True


def _filename_pattern(fmt: str) -> re.Pattern[str]:
    """A regex matching the names ``fmt.format(...)`` can produce."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(fmt):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(".+")
    return re.compile("^" + "".join(parts) + "$")


def _find_snapshot_files(fmt: str, outdir: str) -> list[tuple[int, str]]:
    """``(mtime_ns, name)`` of the files of ``outdir`` that ``fmt`` may have produced,
    oldest first (hidden temporary files of unfinished writes excluded)."""
    if not os.path.isdir(outdir):
        return []
    pattern = _filename_pattern(fmt)
    found = []
    with os.scandir(outdir) as entries:
        for entry in entries:
            if entry.name.startswith(".") and not fmt.startswith("."):
                continue
            if pattern.match(entry.name) and entry.is_file():
                found.append((entry.stat().st_mtime_ns, entry.name))
    found.sort()
    return found


def _find_latest_snapshot(fmt: str, outdir: str) -> str | None:
    found = _find_snapshot_files(fmt, outdir)
    return found[-1][1] if found else None


def _find_stale_snapshots(fmt: str, outdir: str, n_retains: int) -> list[str]:
    found = _find_snapshot_files(fmt, outdir)
    return [name for _, name in found[: max(len(found) - n_retains, 0)]]


class _Snapshot(extension_module.Extension):
    """Trainer extension to take snapshots (made by :func:`snapshot` and
    :func:`snapshot_object`)."""

    trigger: Any = 1, "epoch"
    priority = extension_module.PRIORITY_SNAPSHOT

    def __init__(
        self,
        target: Any = None,
        condition: Callable[[], Any] | None = None,
        writer: Any = None,
        filename: Any = "snapshot_iter_{.updater.iteration}",
        snapshot_on_error: bool = False,
        n_retains: int = -1,
        autoload: bool = False,
        savefun: Callable[..., Any] | None = None,
    ) -> None:
        where = "snapshot" if target is None else "snapshot_object"
        if condition is None:
            condition = _always_true
        elif not callable(condition):
            raise TypeError(f"{where}: condition must be callable, got {type(condition).__name__}")
        if writer is None:
            writer = snapshot_writers.SimpleWriter(savefun=npz.save_npz if savefun is None else savefun)
        elif savefun is not None:
            raise TypeError(f"{where}: give savefun or writer, not both (give the savefun to the writer)")
        elif not callable(writer):
            raise TypeError(f"{where}: writer must be a snapshot writer, got {type(writer).__name__}")
        if not (isinstance(filename, str) or callable(filename)):
            raise TypeError(f"{where}: filename must be a format string or a callable, got {type(filename).__name__}")
        if isinstance(n_retains, bool) or not isinstance(n_retains, int):
            raise TypeError(f"{where}: n_retains must be an int, got {type(n_retains).__name__}")
        if autoload and not isinstance(filename, str):
            raise ValueError(f"{where}: autoload needs a filename format string to find the snapshots")
        self._target = target
        self.filename = filename
        self.condition = condition
        self.writer = writer
        self._snapshot_on_error = snapshot_on_error
        self.n_retains = n_retains
        self.autoload = autoload
        # Autoloading snapshots are initialized before the other extensions (see Trainer.run).
        self._restores_trainer_state = bool(autoload)

    def _savefun(self) -> Any:
        return getattr(self.writer, "_savefun", None) or getattr(getattr(self.writer, "_task", None), "_savefun", None)

    def initialize(self, trainer: Any) -> None:
        if not self.autoload:
            return
        name = _find_latest_snapshot(self.filename, trainer.out)
        if name is None:
            return
        target = trainer if self._target is None else self._target
        loadfun = serializers.load_hdf5 if self._savefun() is serializers.save_hdf5 else serializers.load_npz
        path = os.path.join(trainer.out, name)
        try:
            loadfun(path, target)
        except Exception as exc:
            raise RuntimeError(
                f"snapshot(autoload=True): could not resume from {path!r}: {type(exc).__name__}: {exc}"
            ) from exc

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def __call__(self, trainer: Any) -> None:
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer: Any) -> None:
        target = trainer if self._target is None else self._target
        filename = self.filename(trainer) if callable(self.filename) else self.filename.format(trainer)
        if getattr(self.writer, "asynchronous", True):
            target = _CapturedState(target)
        self.writer(filename, trainer.out, target)
        self._remove_stale(trainer.out)

    def _remove_stale(self, outdir: str) -> None:
        if self.n_retains > 0 and isinstance(self.filename, str):
            for name in _find_stale_snapshots(self.filename, outdir, self.n_retains):
                try:
                    os.remove(os.path.join(outdir, name))
                except FileNotFoundError:
                    pass

    def finalize(self, trainer: Any = None) -> None:
        finalize = getattr(self.writer, "finalize", None)
        if finalize is not None:
            finalize()
        if trainer is not None:
            self._remove_stale(trainer.out)


def snapshot(
    savefun: Callable[..., Any] | None = None, filename: Any = "snapshot_iter_{.updater.iteration}", **kwargs: Any
) -> _Snapshot:
    """Returns a trainer extension to take snapshots of the trainer.

    The whole training state (models, optimizers, iterators, extensions, triggers, the
    random generators) is saved, every epoch by default, to ``<trainer.out>/<filename>``.
    ``filename`` is formatted with the trainer (``'snapshot_iter_{.updater.iteration}'``
    gives ``snapshot_iter_1000``) or is a callable ``filename(trainer)``. The file is
    written atomically (see :mod:`~chainer.training.extensions.snapshot_writers`), so
    a run killed while saving keeps its previous snapshot. Resume with
    ``chainer.serializers.load_npz(path, trainer)`` before ``trainer.run()``, or with
    ``autoload=True``.

    Args:
        savefun: ``savefun(path, obj)`` (default :func:`~chainer.serializers.save_npz`);
            not together with ``writer``.
        filename: The file name format or a callable.
        target: (keyword only) The object to save instead of the trainer.
        condition: (keyword only) A callable without arguments; no snapshot is taken
            when it returns false.
        writer: (keyword only) A snapshot writer
            (:class:`~chainer.training.extensions.snapshot_writers.SimpleWriter` by
            default; ``ThreadWriter``, ``ProcessWriter``, ... write in the background).
        snapshot_on_error: (keyword only) Also take a snapshot when the training loop
            raises.
        n_retains: (keyword only) Keep only this many latest snapshots matching
            ``filename`` (all if not positive).
        autoload: (keyword only) When training starts, load the latest snapshot
            matching ``filename`` in ``trainer.out`` (by modification time), if any.
            It is loaded before the other extensions are initialized.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.snapshot(n_retains=3, autoload=True), trigger=(1, 'epoch'))
        >>> trainer.run()
        >>> import os
        >>> sorted(os.listdir('result'))
        ['snapshot_iter_2', 'snapshot_iter_4']
    """
    target, condition, writer, snapshot_on_error, n_retains, autoload = _parse_kwargs(
        "snapshot", kwargs, ("target", None)
    )
    return _Snapshot(
        target=target,
        condition=condition,
        writer=writer,
        filename=filename,
        snapshot_on_error=snapshot_on_error,
        n_retains=n_retains,
        autoload=autoload,
        savefun=savefun,
    )


def snapshot_object(target: Any, filename: Any, savefun: Callable[..., Any] | None = None, **kwargs: Any) -> _Snapshot:
    """Returns a trainer extension to take snapshots of a given object.

    Like :func:`snapshot`, but saves ``target`` (for example the model) instead of the
    whole trainer, every epoch by default. ``filename`` is formatted with the trainer:
    ``'model_epoch-{.updater.epoch}'``.

    Args:
        target: The object to save (anything with ``serialize``).
        filename: The file name format or a callable ``filename(trainer)``.
        savefun: ``savefun(path, obj)`` (default ``save_npz``).
        condition, writer, snapshot_on_error, n_retains, autoload: (keyword only) As in
            :func:`snapshot`.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.snapshot_object(model.predictor, 'model_epoch-{.updater.epoch}'),
        ...                trigger=(1, 'epoch'))
        >>> trainer.run()
        >>> import os
        >>> sorted(os.listdir('result'))
        ['model_epoch-1', 'model_epoch-2']
    """
    _, condition, writer, snapshot_on_error, n_retains, autoload = _parse_kwargs("snapshot_object", kwargs)
    return _Snapshot(
        target=target,
        condition=condition,
        writer=writer,
        filename=filename,
        snapshot_on_error=snapshot_on_error,
        n_retains=n_retains,
        autoload=autoload,
        savefun=savefun,
    )


def _parse_kwargs(where: str, kwargs: dict[str, Any], *extra: tuple[str, Any]) -> list[Any]:
    if "trigger" in kwargs:
        raise ValueError(
            f"{where}: the trigger argument was removed in Chainer v2; give the trigger to trainer.extend() instead"
        )
    names = [
        *extra,
        ("condition", None),
        ("writer", None),
        ("snapshot_on_error", False),
        ("n_retains", -1),
        ("autoload", False),
    ]
    values = [kwargs.pop(name, default) for name, default in names]
    if kwargs:
        unexpected = ", ".join(repr(k) for k in sorted(kwargs))
        raise TypeError(f"{where}() got unexpected keyword argument(s) {unexpected}")
    if not extra:
        values.insert(0, None)
    return values


__all__ = ["snapshot", "snapshot_object"]
