"""BlackOut loss layer (Ji et al., *BlackOut: Speeding up Recurrent Neural Network Language Models With Very Large Vocabularies*, 2016)."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import initializers, link, variable
from chainer.functions.loss import black_out as black_out_function
from chainer.utils import walker_alias


class BlackOut(link.Link):
    """BlackOut loss layer: a sampled approximation of softmax cross entropy over a large vocabulary.

    ``BlackOut(in_size, counts, sample_size)``

    Each call draws ``sample_size`` negative words per example from the distribution
    proportional to ``counts`` (Walker's alias method) and applies
    :func:`chainer.functions.black_out`.

    Args:
        in_size: Dimension of the input vectors.
        counts: Frequencies of the words (length ``V``, the vocabulary size).
        sample_size: Number of negative samples per example.

    Attributes:
        W (~chainer.Parameter): Output word embeddings, shape ``(V, in_size)``.
        sampler (~chainer.utils.WalkerAlias): The sampler of the negative words.
        sample_data: ``None`` (each call draws new samples), or an int array of shape
            ``(B, sample_size)`` used as the negative samples of every call instead (to
            reproduce a computation, e.g. in tests), as in Chainer 7.

    Example:
        >>> layer = L.BlackOut(3, [5, 1, 2, 2], 2)
        >>> layer(np.random.randn(4, 3).astype('f'), np.array([0, 1, 2, 3], 'i')).shape
        ()
    """

    def __init__(self, in_size: int, counts: Any, sample_size: int) -> None:
        for name, value in (("in_size", in_size), ("sample_size", sample_size)):
            if not isinstance(value, (int, numpy.integer)) or isinstance(value, bool) or value < 1:
                raise ValueError(f"BlackOut: {name} must be a positive int, got {value!r}")
        super().__init__()
        vocab_size = len(counts)
        self.sampler = walker_alias.WalkerAlias(numpy.asarray(counts, dtype=numpy.float32))
        self.sample_size = int(sample_size)
        self.sample_data: Any = None
        with self.init_scope():
            self.W = variable.Parameter(initializers.LeCunNormal(), (vocab_size, in_size))

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any) -> variable.Variable:
        """The BlackOut loss (averaged over the batch) of inputs ``x`` ``(B, in_size)`` and words ``t`` ``(B,)``."""
        samples = self.sample_data
        if samples is None:
            batch_size = x.shape[0]
            with chainer.using_device(self.device):
                samples = self.sampler.sample((batch_size, self.sample_size))
        return black_out_function.black_out(x, t, self.W, samples)


__all__ = ["BlackOut"]
