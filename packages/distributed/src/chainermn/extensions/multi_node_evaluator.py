"""Evaluation over the processes: the multi-node Evaluator patch and
GenericMultiNodeEvaluator."""

from __future__ import annotations

import copy
import types
from typing import Any

import numpy

import chainer
from chainer.dataset import convert
from chainer.training import extension as extension_module
from chainermn.communicators import _communication_utility


def _mean_over_processes(comm: Any, local: dict[str, Any], where: str) -> dict[str, Any]:
    keys = sorted(local)
    all_keys = _communication_utility.allgather_obj(comm, keys)
    if any(k != keys for k in all_keys):
        detail = "; ".join(f"rank {r}: {k}" for r, k in enumerate(all_keys))
        raise ValueError(f"{where}: the processes reported different values: {detail}")
    arrays = [numpy.asarray(chainer.as_array(local[k])) for k in keys]
    if all(a.ndim == 0 for a in arrays):
        # One all-reduce for all the scalars.
        total = comm.allreduce(numpy.array([float(a) for a in arrays], dtype=numpy.float64))
        return {k: numpy.asarray(t / comm.size, dtype=a.dtype) for k, t, a in zip(keys, total, arrays)}
    return {k: comm.allreduce_obj(a) / comm.size for k, a in zip(keys, arrays)}


def _multi_node_evaluate(self: Any) -> dict[str, Any]:
    local = self._mn_original_evaluate()
    return _mean_over_processes(self._mn_communicator, local, "multi-node evaluator")


def create_multi_node_evaluator(actual_evaluator: Any, communicator: Any) -> Any:
    """Create a multi node evaluator from a normal evaluator.

    Patches ``actual_evaluator`` (an :class:`~chainer.training.extensions.Evaluator` or
    a subclass) so that :meth:`evaluate` returns the mean over the processes of each
    process's results; each process evaluates its own share of the data (see
    :func:`chainermn.scatter_dataset`). Adds the attributes ``_mn_original_evaluate`` and
    ``_mn_communicator``. After the patch, the evaluator needs every process to evaluate.

    Args:
        actual_evaluator: The evaluator to patch.
        communicator: ChainerMN communicator.

    Returns:
        ``actual_evaluator``, patched.

    Example:
        >>> evaluator = chainermn.create_multi_node_evaluator(extensions.Evaluator(test_iter, model), comm)  # doctest: +SKIP
    """
    if not callable(getattr(actual_evaluator, "evaluate", None)):
        raise TypeError(
            f"create_multi_node_evaluator: actual_evaluator must have an evaluate() method, got "
            f"{type(actual_evaluator).__name__}"
        )
    actual_evaluator._mn_original_evaluate = actual_evaluator.evaluate
    actual_evaluator._mn_communicator = communicator
    actual_evaluator.evaluate = types.MethodType(_multi_node_evaluate, actual_evaluator)
    return actual_evaluator


class GenericMultiNodeEvaluator(extension_module.Extension):
    """Generic multi-node evaluator for non-allreducable evaluation.

    Each process runs :meth:`calc_local` on each batch of its iterator; the root receives
    every result of every process and passes the list to :meth:`aggregate`, whose return
    value the extension returns at the root (``None`` elsewhere). Override both methods
    for metrics that are not means (AUC, exact-match over a data set split unevenly...).

    Args:
        comm: ChainerMN communicator.
        iterator: A non-repeating iterator over this process's share of the test set.
        target: The model (callable) to evaluate.
        device: Device the converter sends the batches to.
        converter: Batch converter (default :func:`chainer.dataset.concat_examples`).
        root: Rank that aggregates.
        progress_hook: Called at the root with the number of batches of each process
            collected so far (1, 2, ...).
    """

    trigger = 1, "epoch"
    default_name = "validation"
    priority = extension_module.PRIORITY_WRITER

    def __init__(
        self,
        comm: Any,
        iterator: Any,
        target: Any,
        device: Any = None,
        converter: Any = convert.concat_examples,
        root: int = 0,
        **kwargs: Any,
    ) -> None:
        progress_hook = kwargs.pop("progress_hook", None)
        if kwargs:
            raise TypeError(f"GenericMultiNodeEvaluator: unexpected keyword arguments {sorted(kwargs)}")
        if getattr(iterator, "repeat", False):
            raise ValueError("GenericMultiNodeEvaluator: the iterator must not repeat (repeat=False)")
        if not callable(target):
            raise TypeError(f"GenericMultiNodeEvaluator: target must be callable, got {type(target).__name__}")
        if not 0 <= root < comm.size:
            raise ValueError(f"GenericMultiNodeEvaluator: root must be a rank in [0, {comm.size}), got {root}")
        self.comm = comm
        self.iterator = iterator
        self._targets = {"main": target}
        self.converter = converter
        self.device = device
        self.root = root
        self._progress_hook = progress_hook

    def calc_local(self, *args: Any, **kwargs: Any) -> Any:
        """The result of one batch on this process (default: the target's output).

        Args are the converted batch (a tuple is unpacked, a dict passed as keywords).
        Must not return ``None``.
        """
        return self._targets["main"](*args, **kwargs)

    def aggregate(self, results: list[Any]) -> Any:
        """Combine every result of every process (called once, at the root).

        The default returns ``results``: the first batch's result of every process (in
        rank order), then the second batch's, and so on.
        """
        return results

    def _local_results(self) -> list[Any]:
        if hasattr(self.iterator, "reset"):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        results = []
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            for batch in it:
                in_arrays = convert._call_converter(self.converter, batch, self.device)
                if isinstance(in_arrays, tuple):
                    result = self.calc_local(*in_arrays)
                elif isinstance(in_arrays, dict):
                    result = self.calc_local(**in_arrays)
                else:
                    result = self.calc_local(in_arrays)
                if result is None:
                    raise ValueError(f"{type(self).__name__}.calc_local returned None; it must return a result")
                results.append(result)
        return results

    def __call__(self, trainer: Any = None) -> Any:
        error = None
        try:
            local = self._local_results()
        except Exception as exc:  # the root must not wait for this process forever
            local, error = None, exc
        gathered = self.comm.gather_obj((local, None if error is None else repr(error)), root=self.root)
        if error is not None:
            raise error
        if self.comm.rank != self.root:
            return None
        failed = [f"rank {r}: {e}" for r, (_, e) in enumerate(gathered) if e is not None]
        if failed:
            raise RuntimeError(f"{type(self).__name__}: evaluation failed on " + "; ".join(failed))
        # Batch by batch: the first batch of every process (in rank order), then the
        # second, ...; a process whose share ran out is skipped.
        parts = [part for part, _ in gathered]
        results = []
        for index in range(max((len(part) for part in parts), default=0)):
            results.extend(part[index] for part in parts if index < len(part))
            if self._progress_hook is not None:
                self._progress_hook(index + 1)
        return self.aggregate(results)


__all__ = ["GenericMultiNodeEvaluator", "create_multi_node_evaluator"]
