"""``DaliIterator``: not provided by this distribution."""

from __future__ import annotations

from typing import Any

from chainer.dataset import iterator


class DaliIterator(iterator.Iterator):
    """(Experimental) Iterator for DALI pipeline.

    Not provided: NVIDIA DALI's Chainer plugin targeted Chainer 7 and is not maintained
    for this version. Constructing one raises ``NotImplementedError``. Read the DALI
    pipeline's outputs in a custom :class:`chainer.dataset.Iterator` instead.
    """

    def __init__(self, pipeline: Any, repeat: bool = True) -> None:
        raise NotImplementedError(
            "chainer.iterators.DaliIterator is not available in this version of Chainer: NVIDIA DALI's Chainer "
            "integration is not maintained. Wrap the DALI pipeline in a custom chainer.dataset.Iterator, or use "
            "MultiprocessIterator / MultithreadIterator"
        )
