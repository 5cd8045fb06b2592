"""oneDNN primitives for Chainer's '@intel64' (C++ extension). Every kernel takes float32
C-contiguous arrays (the outputs allocated by the caller) and returns True when it
computed them, False when oneDNN declines the case."""

from typing import Any

def version() -> tuple[int, int, int, str]: ...
def isa() -> str: ...
def cache_size() -> int: ...
def cache_clear() -> None: ...
def conv_forward(
    x: Any,
    W: Any,
    b: Any,
    y: Any,
    stride: tuple[int, ...],
    dilate: tuple[int, ...],
    pad_l: tuple[int, ...],
    pad_r: tuple[int, ...],
    groups: int,
) -> bool: ...
def conv_backward_data(
    gy: Any,
    W: Any,
    gx: Any,
    stride: tuple[int, ...],
    dilate: tuple[int, ...],
    pad_l: tuple[int, ...],
    pad_r: tuple[int, ...],
    groups: int,
) -> bool: ...
def conv_backward_weights(
    x: Any,
    gy: Any,
    gW: Any,
    gb: Any,
    stride: tuple[int, ...],
    dilate: tuple[int, ...],
    pad_l: tuple[int, ...],
    pad_r: tuple[int, ...],
    groups: int,
) -> bool: ...
def linear_forward(x: Any, W: Any, b: Any, y: Any) -> bool: ...
def linear_backward_data(gy: Any, W: Any, gx: Any) -> bool: ...
def linear_backward_weights(x: Any, gy: Any, gW: Any, gb: Any) -> bool: ...
def pooling_forward(
    x: Any,
    y: Any,
    indexes: Any,
    kind: int,
    ksize: tuple[int, ...],
    stride: tuple[int, ...],
    pad_l: tuple[int, ...],
    pad_r: tuple[int, ...],
) -> bool: ...
def pooling_backward(
    gy: Any,
    gx: Any,
    indexes: Any,
    kind: int,
    ksize: tuple[int, ...],
    stride: tuple[int, ...],
    pad_l: tuple[int, ...],
    pad_r: tuple[int, ...],
) -> bool: ...
def relu_forward(x: Any, y: Any) -> bool: ...
def relu_backward(y: Any, gy: Any, gx: Any) -> bool: ...
def batch_norm_forward(x: Any, gamma: Any, beta: Any, y: Any, mean: Any, var: Any, eps: float) -> bool: ...
def batch_norm_backward(
    x: Any, gy: Any, gamma: Any, mean: Any, var: Any, gx: Any, ggamma: Any, gbeta: Any, eps: float
) -> bool: ...
def lrn_forward(x: Any, y: Any, local_size: int, k: float, alpha: float, beta: float) -> bool: ...
def lrn_backward(x: Any, gy: Any, gx: Any, local_size: int, k: float, alpha: float, beta: float) -> bool: ...
