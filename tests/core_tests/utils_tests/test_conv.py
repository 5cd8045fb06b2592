"""Output sizes of convolution and deconvolution, against counting windows."""

import itertools

from chainer import utils
from chainer.utils import conv


def _count_windows(size, k, s, p, d, cover_all):
    """Number of window positions along one axis, by enumeration."""
    extent = (k - 1) * d + 1
    padded = size + 2 * p
    if not cover_all:
        return sum(1 for start in range(0, padded, s) if start + extent <= padded)
    # cover_all: add windows (which may overhang the end) until every input is covered.
    n, covered = 0, 0
    while covered < padded:
        covered = n * s + extent
        n += 1
    return max(n, 1)


CASES = list(itertools.product([1, 4, 7, 10], [1, 2, 3], [1, 2, 3], [0, 1, 2], [1, 2]))


def test_conv_outsize_counts_the_windows():
    checked = 0
    for size, k, s, p, d in CASES:
        if size + 2 * p < (k - 1) * d + 1:
            continue  # the kernel does not fit
        case = (size, k, s, p, d)
        assert utils.get_conv_outsize(size, k, s, p, d=d) == _count_windows(size, k, s, p, d, False), case
        assert utils.get_conv_outsize(size, k, s, p, cover_all=True, d=d) == _count_windows(size, k, s, p, d, True), (
            case
        )
        checked += 1
    assert checked > 150


def test_deconv_outsize_inverts_conv_outsize():
    checked = 0
    for size, k, s, p, d in CASES:
        case = (size, k, s, p, d)
        out = utils.get_deconv_outsize(size, k, s, p, d=d)
        if out <= 0:
            continue
        # the deconvolution output is an input size whose convolution gives `size` back
        assert utils.get_conv_outsize(out, k, s, p, d=d) == size, case
        assert out == s * (size - 1) + (k - 1) * d + 1 - 2 * p, case
        out_all = utils.get_deconv_outsize(size, k, s, p, cover_all=True, d=d)
        if out_all > 0 and out_all + 2 * p >= (k - 1) * d + 1:
            assert utils.get_conv_outsize(out_all, k, s, p, cover_all=True, d=d) == size, case
        checked += 1
    assert checked > 150


def test_known_values():
    assert conv.get_conv_outsize(28, 5, 1, 0) == 24
    assert conv.get_conv_outsize(32, 3, 2, 1) == 16
    assert conv.get_conv_outsize(7, 2, 2, 0, cover_all=True) == 4
    assert conv.get_conv_outsize(7, 3, 1, 2, d=2) == 7
    assert conv.get_deconv_outsize(16, 4, 2, 1) == 32
    assert conv.get_deconv_outsize(4, 2, 2, 0, cover_all=True) == 7
