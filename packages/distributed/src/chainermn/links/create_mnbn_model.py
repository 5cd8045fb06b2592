"""``create_mnbn_model``: a copy of a model with every BatchNormalization replaced by
MultiNodeBatchNormalization."""

from __future__ import annotations

import copy
from typing import Any

import numpy

import chainer
from chainermn.links import batch_normalization


def _batch_normalization_class() -> Any:
    # chainer-links is optional: without it no model can hold a BatchNormalization.
    try:
        from chainer.links import BatchNormalization
    except ImportError:
        return None
    return BatchNormalization


def _convert(bn: Any, comm: Any, communication_backend: str) -> Any:
    gamma = getattr(bn, "gamma", None)
    beta = getattr(bn, "beta", None)
    size = bn.avg_mean.shape
    mnbn = batch_normalization.MultiNodeBatchNormalization(
        size,
        comm,
        decay=bn.decay,
        eps=bn.eps,
        dtype=bn.avg_mean.dtype,
        use_gamma=gamma is not None,
        use_beta=beta is not None,
        communication_backend=communication_backend,
    )
    if gamma is not None and gamma.array is not None:
        mnbn.gamma.array = numpy.array(gamma.array, copy=True)
    if beta is not None and beta.array is not None:
        mnbn.beta.array = numpy.array(beta.array, copy=True)
    mnbn.avg_mean = numpy.array(bn.avg_mean, copy=True)
    mnbn.avg_var = numpy.array(bn.avg_var, copy=True)
    mnbn.N = bn.N
    return mnbn


def _replace(link: Any, bn_class: Any, comm: Any, backend: str) -> Any:
    if bn_class is not None and isinstance(link, bn_class):
        if getattr(link, "avg_mean", None) is None:
            raise ValueError(
                "create_mnbn_model: a BatchNormalization without size (not initialized yet) cannot be converted"
            )
        if getattr(link, "axis", None) not in (None, (0,), (0, 2, 3)) and len(link.avg_mean.shape) != 1:
            raise ValueError(f"create_mnbn_model: BatchNormalization with axis={link.axis} is not supported")
        return _convert(link, comm, backend)
    if isinstance(link, chainer.Sequential):
        for i, layer in enumerate(list(link)):
            if isinstance(layer, chainer.Link):
                new = _replace(layer, bn_class, comm, backend)
                if new is not layer:
                    link[i] = new
    elif isinstance(link, chainer.ChainList):
        for i, child in enumerate(list(link._children)):
            new = _replace(child, bn_class, comm, backend)
            if new is not child:
                link._children[i] = new
                new.name = child.name
    elif isinstance(link, chainer.Chain):
        for name in sorted(link._children):
            child = getattr(link, name)
            new = _replace(child, bn_class, comm, backend)
            if new is not child:
                delattr(link, name)
                with link.init_scope():
                    setattr(link, name, new)
    return link


def create_mnbn_model(link: Any, comm: Any, communication_backend: str = "auto") -> Any:
    """Create a link object with MultiNodeBatchNormalization.

    Returns a deep copy of ``link`` in which every
    :class:`chainer.links.BatchNormalization` is replaced by a
    :class:`~chainermn.links.MultiNodeBatchNormalization` with the same parameters,
    running statistics, ``decay`` and ``eps``.

    Args:
        link: The model.
        comm: ChainerMN communicator.
        communication_backend: ``'mpi'`` or ``'auto'``.

    Returns:
        The converted copy.

    Example:
        >>> model = chainermn.links.create_mnbn_model(model, comm)  # doctest: +SKIP
    """
    if not isinstance(link, chainer.Link):
        raise TypeError(f"create_mnbn_model: link must be a chainer.Link, got {type(link).__name__}")
    return _replace(copy.deepcopy(link), _batch_normalization_class(), comm, communication_backend)


__all__ = ["create_mnbn_model"]
