"""Negative sampling loss layer (Mikolov et al., *Distributed Representations of Words and Phrases and their Compositionality*, 2013)."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import initializers, link, variable
from chainer.functions.loss import negative_sampling as negative_sampling_function
from chainer.utils import argument, walker_alias


class NegativeSampling(link.Link):
    """Negative sampling loss layer (the output layer of word2vec's skip-gram and CBOW).

    ``NegativeSampling(in_size, counts, sample_size, power=0.75, dtype=None)``

    Negative words are drawn with probability proportional to ``counts ** power``
    (Walker's alias method) and :func:`chainer.functions.negative_sampling` is applied.

    Args:
        in_size: Dimension of the input vectors.
        counts: Frequencies of the words (length ``V``, the vocabulary size).
        sample_size: Number of negative samples per example.
        power: Power applied to the frequencies.
        dtype: dtype of ``W`` (default ``chainer.config.dtype``).

    Attributes:
        W (~chainer.Parameter): Output word embeddings, shape ``(V, in_size)``, zeros at first.
        sampler (~chainer.utils.WalkerAlias): The sampler of the negative words.

    Example:
        >>> loss_layer = L.NegativeSampling(3, [5, 1, 2, 2], 2)
        >>> loss = loss_layer(np.random.randn(4, 3).astype('f'), np.array([0, 1, 2, 3], 'i'))
        >>> round(float(loss.array), 4)   # W starts at zero: 4 examples x 3 words x log 2
        8.3178
    """

    def __init__(self, in_size: int, counts: Any, sample_size: int, power: float = 0.75, dtype: Any = None) -> None:
        for name, value in (("in_size", in_size), ("sample_size", sample_size)):
            if not isinstance(value, (int, numpy.integer)) or isinstance(value, bool) or value < 1:
                raise ValueError(f"NegativeSampling: {name} must be a positive int, got {value!r}")
        super().__init__()
        dtype = chainer.get_dtype(dtype)
        vocab_size = len(counts)
        self.sample_size = int(sample_size)
        p = numpy.asarray(counts, dtype=numpy.float32) ** numpy.float32(power)
        self.sampler = walker_alias.WalkerAlias(p)
        with self.init_scope():
            self.W = variable.Parameter(initializers.Zero(dtype), (vocab_size, in_size))

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any, reduce: str = "sum", **kwargs: Any) -> Any:
        """The loss of inputs ``x`` ``(B, in_size)`` and words ``t`` ``(B,)`` (``-1`` ignored).

        Args:
            x: Input vectors.
            t: Word ids.
            reduce: ``'sum'`` (a scalar) or ``'no'`` (shape ``(B,)``).
            return_samples (keyword only): Also return the drawn samples, shape
                ``(B, sample_size + 1)`` with ``t`` in column 0.

        Returns:
            The loss, or ``(loss, samples)`` with ``return_samples=True``.
        """
        (return_samples,) = argument.parse_kwargs(kwargs, ("return_samples", False))
        with chainer.using_device(self.device):
            return negative_sampling_function.negative_sampling(
                x, t, self.W, self.sampler.sample, self.sample_size, reduce=reduce, return_samples=return_samples
            )


__all__ = ["NegativeSampling"]
