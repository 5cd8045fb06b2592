"""The multi-node optimizer: a Chainer optimizer whose gradients are averaged over the
processes before each update."""

from __future__ import annotations

from typing import Any


class _MultiNodeOptimizer:
    """Wraps an optimizer; every attribute not defined here is the wrapped one's.

    :meth:`update` averages the gradients over the processes (``multi_node_mean_grad``)
    and then updates. The first update after :meth:`setup`, and any update after the set
    of initialized parameters changed (lazy links), instead copies rank 0's parameters to
    every process and does not update, so that all replicas start identical (as in
    Chainer 7.8.1).
    """

    def __init__(self, actual_optimizer: Any, communicator: Any, zero_fill: bool) -> None:
        object.__setattr__(self, "actual_optimizer", actual_optimizer)
        object.__setattr__(self, "communicator", communicator)
        object.__setattr__(self, "zero_fill", zero_fill)
        object.__setattr__(self, "_synced_params", None)

    def setup(self, link: Any) -> _MultiNodeOptimizer:
        self.actual_optimizer.setup(link)
        object.__setattr__(self, "_synced_params", None)
        return self

    def _param_state(self, target: Any) -> list[tuple[str, bool]]:
        return [(name, param.array is not None) for name, param in sorted(target.namedparams(), key=lambda p: p[0])]

    def is_changed(self, target: Any) -> bool:
        """Whether the initialized parameters differ from those at the last broadcast."""
        return self._param_state(target) != self._synced_params

    def _mark_synchronized(self) -> None:
        # After every process loaded the same snapshot there is nothing to broadcast.
        object.__setattr__(self, "_synced_params", self._param_state(self.actual_optimizer.target))

    def update(self, lossfun: Any = None, *args: Any, **kwds: Any) -> None:
        """Compute the gradients (with ``lossfun``), average them over the processes and
        update; or, on the first call, copy rank 0's parameters (see the class doc)."""
        actual = self.actual_optimizer
        target = actual.target
        if target is None:
            raise RuntimeError("multi-node optimizer: call setup(link) before update()")
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(actual, "_use_cleargrads", True):
                target.cleargrads()
            else:
                target.zerograds()
            loss.backward(loss_scale=getattr(actual, "_loss_scale", None))
            del loss
        if self.is_changed(target):
            self.communicator.bcast_data(target)
            self._mark_synchronized()
        else:
            self.communicator.multi_node_mean_grad(target, self.zero_fill)
            actual.update(None, *args, **kwds)

    def serialize(self, serializer: Any) -> None:
        self.actual_optimizer.serialize(serializer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_optimizer, name, value)

    def __repr__(self) -> str:
        return f"<multi-node {self.actual_optimizer!r} over {type(self.communicator).__name__}>"


def create_multi_node_optimizer(
    actual_optimizer: Any, communicator: Any, double_buffering: bool = False, zero_fill: bool = True
) -> Any:
    """Create a multi-node optimizer from a Chainer optimizer.

    The returned optimizer behaves like ``actual_optimizer`` (hooks, hyperparameters,
    serialization), except that :meth:`update` averages the gradients over all processes
    before updating. Its first update copies rank 0's parameters to every process instead
    of updating.

    Args:
        actual_optimizer: A Chainer optimizer (e.g. ``chainer.optimizers.Adam()``).
        communicator: ChainerMN communicator.
        double_buffering: Overlap the all-reduce with the next iteration; needs the
            ``'pure_nccl'`` communicator (GPU).
        zero_fill: Give initialized parameters without gradient a zero gradient, so that
            every process averages the same set of arrays.

    Returns:
        The multi-node optimizer.

    Example:
        >>> optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.Adam(), comm)  # doctest: +SKIP
        >>> optimizer.setup(model)  # doctest: +SKIP
    """
    from chainer import optimizer as optimizer_module
    from chainermn import communicators

    where = "create_multi_node_optimizer"
    if not isinstance(actual_optimizer, optimizer_module.Optimizer):
        raise TypeError(f"{where}: actual_optimizer must be a chainer.Optimizer, got {type(actual_optimizer).__name__}")
    if not isinstance(communicator, communicators.CommunicatorBase):
        raise TypeError(
            f"{where}: communicator must be a ChainerMN communicator (chainermn.create_communicator), "
            f"got {type(communicator).__name__}"
        )
    if double_buffering:
        if not isinstance(communicator, communicators.PureNcclCommunicator):
            raise ValueError(
                f"{where}: double_buffering=True needs the 'pure_nccl' communicator (CuPy, NCCL and a GPU), "
                f"got {type(communicator).__name__}"
            )
        raise NotImplementedError(
            f"{where}: double_buffering=True (averaging the gradients of the previous iteration while the "
            "next one computes) is not implemented in chainer-distributed 8.0.0; pass double_buffering=False"
        )
    return _MultiNodeOptimizer(actual_optimizer, communicator, bool(zero_fill))


__all__ = ["create_multi_node_optimizer"]
