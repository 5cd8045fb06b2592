"""AllreducePersistent: the mean over the processes of a model's persistent values."""

from __future__ import annotations

from typing import Any

import chainer
from chainer.training import extension as extension_module


class AllreducePersistent(extension_module.Extension):
    """Average the floating-point persistent values of a model over the processes.

    Mainly for the running statistics of batch normalization; call it before saving or
    evaluating the model. Integer persistents (counters) are left alone.

    Args:
        model: The link whose persistents to average.
        comm: ChainerMN communicator.
    """

    trigger = 1, "epoch"
    # Before the evaluators (PRIORITY_WRITER) read the model.
    priority = extension_module.PRIORITY_WRITER + 1

    def __init__(self, model: Any, comm: Any) -> None:
        self.model = model
        self.comm = comm

    def __call__(self, trainer: Any = None) -> None:
        for _path, link in sorted(self.model.namedlinks(), key=lambda item: item[0]):
            for name in sorted(link._persistent):
                value = getattr(link, name)
                array = chainer.as_array(value) if isinstance(value, chainer.Variable) else value
                if isinstance(array, float):
                    setattr(link, name, float(self.comm.allreduce_obj(array)) / self.comm.size)
                elif hasattr(array, "dtype") and array.dtype.kind == "f":
                    mean = self.comm.allreduce(array) / self.comm.size
                    array[...] = mean.astype(array.dtype, copy=False)


__all__ = ["AllreducePersistent"]
