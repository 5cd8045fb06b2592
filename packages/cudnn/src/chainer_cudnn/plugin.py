"""The plugin (entry point ``cudnn`` of group ``chainer``): registers :data:`LIBRARY`."""

from __future__ import annotations

from collections.abc import Callable

import chainer
from chainer_cudnn._library import FrontendCudnn

LIBRARY = FrontendCudnn()
"""The one cuDNN library of this process (its handles and plans are per device)."""


@chainer.hookimpl
def chainer_register_cudnn(register: Callable[..., None]) -> None:
    register(LIBRARY)
