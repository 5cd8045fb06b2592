"""NumPy references of the convolution-family layers' forward passes, written from the
definitions (a sum over kernel taps of strided input windows), shared by their tests as
the ``ref`` fixture."""

import itertools
import types

import numpy as np
import pytest


def _tuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def conv(x, W, b=None, stride=1, pad=0, dilate=1, groups=1, cover_all=False):
    """``y[n, o, i] = b[o] + sum_{c, k} W[o, c, k] x[n, g(o) C_g + c, i s + k d - p]``."""
    x = np.asarray(x, np.float64)
    W = np.asarray(W, np.float64)
    nd = x.ndim - 2
    s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    ksize = W.shape[2:]
    dk = [(k - 1) * dd + 1 for k, dd in zip(ksize, d)]
    if cover_all:
        out = [(n + 2 * pp - kk + ss - 1) // ss + 1 for n, pp, kk, ss in zip(x.shape[2:], p, dk, s)]
    else:
        out = [(n + 2 * pp - kk) // ss + 1 for n, pp, kk, ss in zip(x.shape[2:], p, dk, s)]
    after = [max(pp, (o - 1) * ss + kk - n - pp) for n, pp, kk, ss, o in zip(x.shape[2:], p, dk, s, out)]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pp, a) for pp, a in zip(p, after)])
    n_batch, c = x.shape[:2]
    o = W.shape[0]
    cg, og = c // groups, o // groups
    y = np.zeros((n_batch, o, *out))
    for offs in itertools.product(*[range(k) for k in ksize]):
        window = tuple(slice(k * dd, k * dd + (oo - 1) * ss + 1, ss) for k, dd, oo, ss in zip(offs, d, out, s))
        patch = xp[(slice(None), slice(None)) + window]
        for g in range(groups):
            w = W[(slice(g * og, (g + 1) * og), slice(None)) + offs]
            y[:, g * og : (g + 1) * og] += np.einsum("nc...,oc->no...", patch[:, g * cg : (g + 1) * cg], w)
    if b is not None:
        y += np.asarray(b, np.float64).reshape((1, -1) + (1,) * nd)
    return y


def deconv(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1):
    """Each input element adds ``x[n, c, i] W[c, o, k]`` at output ``i s + k d - p``."""
    x = np.asarray(x, np.float64)
    W = np.asarray(W, np.float64)
    nd = x.ndim - 2
    s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    ksize = W.shape[2:]
    full = [(n - 1) * ss + (k - 1) * dd + 1 for n, ss, k, dd in zip(x.shape[2:], s, ksize, d)]
    out = list(outsize) if outsize is not None else [f - 2 * pp for f, pp in zip(full, p)]
    size = [max(f, o + 2 * pp) for f, o, pp in zip(full, out, p)]
    n_batch, c = x.shape[:2]
    cg, og = c // groups, W.shape[1]
    y = np.zeros((n_batch, og * groups, *size))
    for offs in itertools.product(*[range(k) for k in ksize]):
        window = tuple(slice(k * dd, k * dd + (n - 1) * ss + 1, ss) for k, dd, n, ss in zip(offs, d, x.shape[2:], s))
        for g in range(groups):
            w = W[(slice(g * cg, (g + 1) * cg), slice(None)) + offs]
            contribution = np.einsum("nc...,co->no...", x[:, g * cg : (g + 1) * cg], w)
            y[(slice(None), slice(g * og, (g + 1) * og)) + window] += contribution
    y = y[(slice(None), slice(None)) + tuple(slice(pp, pp + o) for pp, o in zip(p, out))]
    if b is not None:
        y = y + np.asarray(b, np.float64).reshape((1, -1) + (1,) * nd)
    return y


def _pool2d(x, ksize, stride, pad, fill, reduce):
    x = np.asarray(x, np.float64)
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)], constant_values=fill)
    out = [(n + 2 * pad - ksize) // stride + 1 for n in x.shape[2:]]
    windows = [
        xp[:, :, i : i + (out[0] - 1) * stride + 1 : stride, j : j + (out[1] - 1) * stride + 1 : stride]
        for i in range(ksize)
        for j in range(ksize)
    ]
    return reduce(np.stack(windows), axis=0)


def max_pool2d(x, ksize, stride, pad=0):
    """Max over ``ksize`` x ``ksize`` windows; padding never wins."""
    return _pool2d(x, ksize, stride, pad, -np.inf, np.max)


def average_pool2d(x, ksize, stride, pad=0):
    """Mean over ``ksize`` x ``ksize`` windows, padding counted as zeros."""
    return _pool2d(x, ksize, stride, pad, 0.0, np.mean)


def batch_norm_train(x, gamma, beta, eps):
    """Normalization of each channel (axis 1) with the batch statistics."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return np.reshape(gamma, shape) * (x - mean) / np.sqrt(var + eps) + np.reshape(beta, shape)


@pytest.fixture
def ref():
    return types.SimpleNamespace(
        conv=conv,
        deconv=deconv,
        max_pool2d=max_pool2d,
        average_pool2d=average_pool2d,
        batch_norm_train=batch_norm_train,
        relu=lambda x: np.maximum(x, 0),
    )
