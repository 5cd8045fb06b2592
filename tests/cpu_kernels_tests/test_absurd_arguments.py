"""Absurd geometry (paddings, dilations and strides near 2**63, outputs whose size
overflows, shapes that disagree with it) through the public functions and straight into
``chainer_cpu_kernels._ops``: every call ends in a result or a clear exception, never in
a crash. The calls run in a child process, so that a segmentation fault fails the test
(exit status -11) instead of killing the test run."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")

# Each case: (name, code evaluating to the result, expected exception type or None, what
# the message must contain, or the result's repr when no exception is expected).
CASES = [
    # The public functions, with the compiled kernels serving im2col/col2im.
    (
        "convolution_2d, pad and dilate 2**63-1",
        "F.convolution_2d(x, W, stride=2, pad=2**63 - 1, dilate=2**63 - 1)",
        "ValueError",
        "Convolution2DFunction: the windows reach over a padded image of shape (1, 1, 18446744073709551617,",
    ),
    (
        "deconvolution_2d, pad and dilate 2**63-1",
        "F.deconvolution_2d(x, W, stride=2, pad=2**63 - 1, dilate=2**63 - 1)",
        "ValueError",
        "Deconvolution2DFunction: the windows reach over a padded image",
    ),
    (
        "convolution_2d, pad and dilate 2**62",
        "F.convolution_2d(x, W, pad=2**62, dilate=2**62)",
        "ValueError",
        "more than the 9223372036854775807 bytes an array can hold",
    ),
    (
        "deconvolution_2d, stride 2**62",
        "F.deconvolution_2d(x, W, stride=2**62)",
        "ValueError",
        "Deconvolution2DFunction: the windows reach over a padded image",
    ),
    (
        "convolution_nd, 3-D, pad 2**61",
        "F.convolution_nd(x[..., None], W[..., None], pad=2**61)",
        "ValueError",
        "ConvolutionND: the windows reach over a padded image",
    ),
    (
        "convolution_2d, dilate 2**64 with a 1x1 kernel",
        "F.convolution_2d(x, W[:, :, :1, :1], dilate=2**64)",
        "ValueError",
        "must be at most sys.maxsize (9223372036854775807)",
    ),
    # One window per axis: the stride is never taken. A 2x2 window at (-1, -1) sees x[0, 0] alone.
    (
        "convolution_2d, stride 2**63-1, one window",
        "F.convolution_2d(x, W[:, :, :2, :2], stride=2**63 - 1, pad=1).array.tolist()",
        None,
        "[[[[1.0]]]]",
    ),
    (
        "convolution_2d backward, stride 2**63-1, one window",
        "grad_of_conv(stride=2**63 - 1, pad=1)",
        None,
        "[[[[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]]",
    ),
    (
        "im2col, pad and dilate 2**62",
        "F.im2col(x, 3, pad=2**62, dilate=2**62)",
        "ValueError",
        "Im2Col: the windows reach over a padded image",
    ),
    (
        "utils.conv.col2im_cpu, dilate 2**62",
        "chainer.utils.conv.col2im_cpu(numpy.ones((1, 1, 3, 3, 1, 1), 'f'), 1, 1, 0, 0, 3, 3, dy=2**62)",
        "ValueError",
        "chainer.utils.conv.col2im: the windows reach over a padded image",
    ),
    # The kernels called directly.
    (
        "_ops.im2col, pad and dilate 2**62",
        "_ops.im2col(x, (3, 3), (1, 1), (2**62, 2**62), (2**62, 2**62), (1, 1), numpy.zeros((1, 1, 9, 1), 'f'))",
        "ValueError",
        "chainer_cpu_kernels.im2col: the geometry of spatial axis 0 overflows",
    ),
    (
        "_ops.col2im, dilate 2**62",
        "_ops.col2im(numpy.zeros((1, 1, 9, 1), 'f'), (3, 3), (1, 1), (0, 0), (2**62, 2**62), (1, 1), x)",
        "ValueError",
        "chainer_cpu_kernels.col2im: the geometry of spatial axis 0 overflows",
    ),
    (
        "_ops.col2im, pad 2**63-1 and stride 2**63-1",
        "_ops.col2im(numpy.zeros((1, 1, 9, 4), 'f'), (3, 3), (2**63 - 1,) * 2, (2**63 - 1,) * 2, (1, 1), (2, 2), x)",
        "ValueError",
        "chainer_cpu_kernels.col2im: the geometry of spatial axis 0 overflows",
    ),
    (
        "_ops.im2col, dilate 2**64",
        "_ops.im2col(x, (3, 3), (1, 1), (0, 0), (2**64, 1), (1, 1), numpy.zeros((1, 1, 9, 1), 'f'))",
        "OverflowError",
        "chainer_cpu_kernels.im2col: dilate must hold ints of at most 9223372036854775807",
    ),
    (
        "_ops.im2col, 2**64 output positions",
        "_ops.im2col(x, (3, 3), (1, 1), (0, 0), (1, 1), (2**32, 2**32), numpy.zeros((1, 1, 9, 0), 'f'))",
        "ValueError",
        "chainer_cpu_kernels.im2col: col must have the shape (N, G, R, L)",
    ),
    (
        "_ops.im2col, stride 2**63-1, one window",
        "_ops_result(_ops.im2col, x, (2, 2), (2**63 - 1,) * 2, (1, 1), (1, 1), (1, 1), numpy.zeros((1, 1, 4, 1), 'f'))",
        None,
        "[[[[0.0], [0.0], [0.0], [1.0]]]]",
    ),
    (
        "_ops.im2col, a list whose __index__ empties it",
        "_ops.im2col(x, shrinking_list(), (1, 1), (0, 0), (1, 1), (1, 1), numpy.zeros((1, 1, 9, 1), 'f'))",
        "ValueError",
        "chainer_cpu_kernels.im2col: ksize must be >= 1 on every axis",
    ),
    (
        "_ops.max_pooling_2d_forward, stride 2**63-1 (declined)",
        "_ops.max_pooling_2d_forward(x, 2, 2, 2**63 - 1, 1, 0, 0, numpy.zeros((1, 1, 1, 2), 'f'), "
        "numpy.zeros((1, 1, 1, 2), 'b'))",
        None,
        "False",
    ),
    (
        "_ops.max_pooling_2d_forward, an output of 2**22 rows 2**20 apart over an image of 2**22 columns",
        "_ops.max_pooling_2d_forward(numpy.zeros((1, 1, 1, 2**22), 'f'), 1, 1, 2**20, 1, 0, 0, "
        "numpy.zeros((1, 1, 2**22, 1), 'f'), numpy.zeros((1, 1, 2**22, 1), 'b'))",
        "ValueError",
        "chainer_cpu_kernels.max_pooling_2d_forward: the windows of a 4194304 x 1 output over a 1 x 4194304 image",
    ),
]

_CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy
    import chainer
    import chainer.functions as F
    from chainer.backends import cpu_kernels
    from chainer_cpu_kernels import _ops

    assert cpu_kernels.origin("im2col") == cpu_kernels.origin("col2im") == "cpu_kernels", "the kernels must serve"

    x = numpy.ones((1, 1, 3, 3), numpy.float32)
    W = numpy.ones((1, 1, 3, 3), numpy.float32)

    def grad_of_conv(**kwargs):
        v = chainer.Variable(x.copy())
        F.sum(F.convolution_2d(v, W[:, :, :2, :2], **kwargs)).backward()
        return v.grad.tolist()

    def _ops_result(kernel, *args):
        assert kernel(*args) is True
        return args[-1].tolist()

    class Emptying:
        def __init__(self, items):
            self.items = items

        def __index__(self):
            self.items.clear()
            return 0

    def shrinking_list():
        items = []
        items.extend([Emptying(items), 3])
        return items

    for name, code in json.loads(sys.argv[1]):
        print(json.dumps(["start", name]), flush=True)
        try:
            outcome = [None, repr(eval(code))]
        except Exception as exc:
            outcome = [type(exc).__name__, str(exc)]
        print(json.dumps(["done", name] + outcome), flush=True)
    """
)


def test_absurd_arguments_raise_clear_errors_and_never_crash():
    env = dict(os.environ)
    env.pop("CHAINER_DISABLE_PLUGINS", None)  # the first-party kernels load (whatever the autoload switch)
    cases = [(name, code) for name, code, _, _ in CASES]
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(cases)], env=env, capture_output=True, text=True, timeout=120
    )
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    last = lines[-1][1] if lines else None
    assert result.returncode == 0, f"exit status {result.returncode} during {last!r}:\n{result.stderr}"
    outcomes = {line[1]: line[2:] for line in lines if line[0] == "done"}
    for name, _, error, expected in CASES:
        got_error, got = outcomes[name]
        assert got_error == error, f"{name}: expected {error}, got {got_error}: {got}"
        if error is None:
            assert got == expected, name
        else:
            assert expected in got, f"{name}: {got}"
