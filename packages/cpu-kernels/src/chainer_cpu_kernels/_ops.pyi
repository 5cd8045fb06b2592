# Type stub of the C extension chainer_cpu_kernels._ops (packages/cpu-kernels/csrc/); the contracts are
# chainer.backends.cpu_kernels.SLOTS.
from collections.abc import Sequence
from typing import Any

def adam(
    param: Any,
    grad: Any,
    m: Any,
    v: Any,
    vhat: Any | None,
    lr: float,
    one_minus_beta1: float,
    one_minus_beta2: float,
    eps: float,
    weight_decay_rate: float,
    eta: float,
    lower: float | None,
    upper: float | None,
    /,
) -> bool: ...
def momentum_sgd(param: Any, grad: Any, v: Any, lr: float, momentum: float, /) -> bool: ...
def max_pooling_2d_forward(
    x: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, y: Any, indexes: Any, /
) -> bool: ...
def max_pooling_2d_backward(
    gy: Any, indexes: Any, kh: int, kw: int, sy: int, sx: int, ph: int, pw: int, gx: Any, /
) -> bool: ...
def relu_backward(y: Any, gy: Any, gx: Any, /) -> bool: ...
def im2col(
    x: Any,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    outsize: Sequence[int],
    col: Any,
    /,
) -> bool: ...
def col2im(
    col: Any,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    outsize: Sequence[int],
    img: Any,
    /,
) -> bool: ...
def lstm_forward(c_prev: Any, x: Any, c: Any, h: Any, /) -> bool: ...
def lstm_backward(c_prev: Any, x: Any, c: Any, gc: Any, gh: Any, gc_prev: Any, gx: Any, /) -> bool: ...
def softmax_cross_entropy_forward(
    x: Any, t: Any, ignore_label: int, class_weight: Any | None, y: Any | None, loss: Any, /
) -> int: ...
def softmax_cross_entropy_backward(
    y: Any, t: Any, ignore_label: int, class_weight: Any | None, gy: Any, coeff: float, gx: Any, /
) -> bool: ...
def embed_id_backward(ids: Any, gy: Any, ignore_label: int | None, gW: Any, /) -> bool: ...
def transpose_add_bias(yt: Any, b: Any | None, y: Any, /) -> bool: ...
def gemm_tn_accumulate(a: Any, b: Any, c: Any, /) -> bool: ...
def embed_id_backward_accumulate(ids: Any, gy: Any, ignore_label: int | None, gW: Any, /) -> bool: ...
def tune_malloc(trim_threshold: int, mmap_threshold: int, /) -> bool: ...
