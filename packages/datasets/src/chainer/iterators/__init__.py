"""Dataset iterators (``chainer.iterators``), provided by the ``chainer-datasets`` distribution.

:class:`SerialIterator` reads batches in the calling thread;
:class:`MultithreadIterator` and :class:`MultiprocessIterator` load them in parallel,
ahead of use. Order samplers decide the order of each epoch.
"""

from chainer.iterators.dali_iterator import DaliIterator
from chainer.iterators.multiprocess_iterator import MultiprocessIterator
from chainer.iterators.multithread_iterator import MultithreadIterator
from chainer.iterators.order_samplers import OrderSampler, ShuffleOrderSampler
from chainer.iterators.serial_iterator import SerialIterator

__all__ = [
    "DaliIterator",
    "MultiprocessIterator",
    "MultithreadIterator",
    "OrderSampler",
    "SerialIterator",
    "ShuffleOrderSampler",
]
