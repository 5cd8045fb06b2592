"""Order samplers: the order in which an iterator visits the dataset in each epoch."""

from __future__ import annotations

from typing import Any

import numpy


class OrderSampler:
    """Base class of all order samplers.

    An order sampler is called by an iterator at the start of the first epoch and at the
    end of every epoch, as ``sampler(current_order, current_position)``, and returns the
    order of the next epoch: a 1-d integer array of dataset indices of the same length as
    ``current_order``.
    """

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        """Return the next order; a subclass must implement it.

        Args:
            current_order: The order of the epoch that ends (``arange(len(dataset))``
                before the first epoch).
            current_position: The position in ``current_order`` where the last batch
                started.

        Returns:
            A 1-d integer array with as many entries as ``current_order``.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(current_order, current_position)")


class ShuffleOrderSampler(OrderSampler):
    """Sampler that generates random orders.

    Every epoch gets a fresh random permutation of the dataset.

    Args:
        random_state: A ``numpy.random.RandomState``; ``None`` uses NumPy's global
            random state at each call (so ``numpy.random.seed`` controls it).

    Example:
        >>> from chainer.iterators import SerialIterator, ShuffleOrderSampler
        >>> sampler = ShuffleOrderSampler(np.random.RandomState(0))
        >>> it = SerialIterator(list(range(5)), 5, order_sampler=sampler)
        >>> sorted(it.next())
        [0, 1, 2, 3, 4]
    """

    def __init__(self, random_state: Any = None) -> None:
        if random_state is not None and not hasattr(random_state, "permutation"):
            raise TypeError(
                "ShuffleOrderSampler: random_state must be a numpy.random.RandomState (or have a permutation "
                f"method), got {type(random_state).__name__}"
            )
        self._random = random_state

    def __call__(self, current_order: numpy.ndarray, current_position: int) -> numpy.ndarray:
        random = numpy.random if self._random is None else self._random
        return random.permutation(len(current_order))
