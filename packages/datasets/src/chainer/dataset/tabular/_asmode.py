"""``astuple()`` and ``asdict()``: the same rows and columns with examples of another shape."""

from __future__ import annotations

from typing import Any

from chainer.dataset.tabular import delegate_dataset


class _AsMode(delegate_dataset.DelegateDataset):
    _mode: Any = None

    @property
    def mode(self) -> Any:
        return self._mode

    def convert(self, data: Any) -> Any:
        return self.dataset.convert(data)


class _Astuple(_AsMode):
    """The view :meth:`TabularDataset.astuple` returns: examples are tuples."""

    _mode = tuple


class _Asdict(_AsMode):
    """The view :meth:`TabularDataset.asdict` returns: examples are dicts."""

    _mode = dict
