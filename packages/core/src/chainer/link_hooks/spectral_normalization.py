"""Spectral normalization of a link's weight (Miyato et al., 2018)."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import _parameter, backend
from chainer.functions.array import broadcast, reshape, transpose
from chainer.functions.math import matmul
from chainer.link_hooks import _weight_rewrite

# Links whose weight has the output channels on axis 1, not 0.
_OUTPUT_AXIS_1 = frozenset({"Deconvolution1D", "Deconvolution2D", "Deconvolution3D", "DeconvolutionND"})


def l2normalize(xp: Any, v: Any, eps: float) -> Any:
    """``v / (||v|| + eps)`` for an array ``v`` of the array module ``xp``."""
    return v / (xp.linalg.norm(v) + eps)


def update_approximate_vectors(weight_matrix: Any, u: Any, n_power_iteration: int, eps: float) -> tuple[Any, Any]:
    """Run ``n_power_iteration`` steps of the power iteration for the largest singular
    value of the 2-D array ``weight_matrix``, from the left vector ``u``.

    Returns:
        ``(u, v)``: the new left and right vectors as new arrays; the new ``u`` is also
        written into the given ``u``.
    """
    xp = backend.get_array_module(weight_matrix)
    v = None
    u_new = u
    for _ in range(n_power_iteration):
        v = l2normalize(xp, weight_matrix.T @ u_new, eps)
        u_new = l2normalize(xp, weight_matrix @ v, eps)
    u[...] = u_new
    return u_new, v


def calculate_max_singular_value(weight_matrix: Any, u: Any, v: Any) -> chainer.Variable:
    """The estimate ``u^T W v`` of the largest singular value of ``W`` (a 2-D variable or
    array), differentiable with respect to ``W``; a 0-d variable."""
    sigma = matmul.matmul(matmul.matmul(u[None, :], weight_matrix), v[:, None])
    return reshape.reshape(sigma, ())


class SpectralNormalization(_weight_rewrite.WeightRewritingHook):
    """Divide a link's weight by its largest singular value during ``forward``.

    ``SpectralNormalization(n_power_iteration=1, eps=1e-6, use_gamma=False, factor=None,
    weight_name='W', name=None)``

    The weight ``W`` is seen as a matrix ``W_mat`` of shape ``(out, -1)``. Its largest
    singular value ``sigma`` is estimated by power iteration with a vector ``u`` kept on
    the link as the persistent value ``<weight_name>_u`` (updated in training mode only):
    ``v = normalize(W_mat^T u)``, ``u = normalize(W_mat v)``, ``sigma = u^T W_mat v``.
    ``forward`` then sees ``W / sigma`` (times ``gamma`` with ``use_gamma``), and the
    gradient flows through ``sigma`` to ``W``.

    The last ``v`` is kept as the hook's attribute :attr:`v`. Outside training, the power
    iteration runs as in training but its ``u`` is not stored; while recomputing a forward
    pass (``chainer.config.in_recomputing``, e.g. under
    :func:`~chainer.functions.forget`), the stored ``u`` and ``v`` are used as they are,
    so the recomputed output equals the original one.

    Args:
        n_power_iteration: Power iterations per forward.
        eps: Added to the norm when normalizing ``u`` and ``v``.
        use_gamma: Also learn a scale ``gamma`` (the link's parameter ``gamma``,
            initialized to the largest singular value of the initial weight).
        factor: If given, ``sigma`` is divided by it (the normalized weight then has
            spectral norm ``factor``).
        weight_name: Name of the weight parameter of the link.
        name: Name of the hook (default ``'SpectralNormalization'``).

    Example:
        >>> layer = L.Linear(3, 4).add_hook(chainer.link_hooks.SpectralNormalization())
        >>> y = layer(np.ones((2, 3), np.float32))
        >>> y.shape
        (2, 4)
    """

    name = "SpectralNormalization"

    def __init__(
        self,
        n_power_iteration: int = 1,
        eps: float = 1e-6,
        use_gamma: bool = False,
        factor: float | None = None,
        weight_name: str = "W",
        name: str | None = None,
    ) -> None:
        if not isinstance(n_power_iteration, int) or isinstance(n_power_iteration, bool) or n_power_iteration < 1:
            raise ValueError(f"SpectralNormalization: n_power_iteration must be an int >= 1, got {n_power_iteration!r}")
        if not eps > 0:
            raise ValueError(f"SpectralNormalization: eps must be positive, got {eps!r}")
        if factor is not None and not factor > 0:
            raise ValueError(f"SpectralNormalization: factor must be positive or None, got {factor!r}")
        super().__init__(weight_name, name)
        self.n_power_iteration = n_power_iteration
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.vector_name = weight_name + "_u"
        self.axis = 0
        self.v: Any = None

    # -- preparation -------------------------------------------------------------------------

    def added(self, link: Any) -> None:
        if link is not None and type(link).__name__ in _OUTPUT_AXIS_1:
            self.axis = 1
        super().added(link)

    def is_prepared(self, link: Any) -> bool:
        return link.__dict__.get(self.vector_name) is not None

    def prepare(self, link: Any) -> None:
        if self.is_prepared(link):
            return
        weight = self._weight(link)
        rows = weight.shape[self.axis]
        # Draw u on the CPU from NumPy's stream (reproducible with numpy.random.seed).
        u = numpy.random.normal(size=(rows,)).astype(weight.dtype)
        u = weight.device.send(l2normalize(numpy, u, self.eps).astype(weight.dtype))
        if self.vector_name in link.__dict__:
            setattr(link, self.vector_name, u)
            link.register_persistent(self.vector_name)
        else:
            link.add_persistent(self.vector_name, u)
        if self.use_gamma and "gamma" not in link.__dict__:
            matrix = backend.cpu().send(self.reshape_W(weight.array))
            sigma0 = numpy.linalg.svd(matrix.astype(numpy.float64), compute_uv=False)[0]
            gamma = numpy.asarray(sigma0, dtype=weight.dtype)
            with link.init_scope():
                link.gamma = _parameter.Parameter(weight.device.send(gamma))

    def deleted(self, link: Any) -> None:
        if link is None:
            return
        if self.vector_name in link.__dict__:
            delattr(link, self.vector_name)
        if self.use_gamma and "gamma" in link.__dict__:
            delattr(link, "gamma")

    # -- the normalization -----------------------------------------------------------------------

    def reshape_W(self, W: Any) -> Any:
        """``W`` (array or variable) as a matrix ``(out, -1)``, output axis first."""
        is_variable = isinstance(W, chainer.Variable)
        if self.axis != 0:
            axes = (self.axis,) + tuple(i for i in range(W.ndim) if i != self.axis)
            W = transpose.transpose(W, axes) if is_variable else W.transpose(axes)
        shape = (W.shape[0], -1)
        return reshape.reshape(W, shape) if is_variable else W.reshape(shape)

    def normalize_weight(self, link: Any) -> chainer.Variable:
        """Run the power iteration and return ``W / sigma`` (times ``gamma``) as a variable."""
        weight = self._originals.get(id(link))
        if weight is None:
            weight = self._weight(link)
        xp = backend.get_array_module(weight.array)
        matrix = self.reshape_W(weight)
        m = matrix.array
        u = getattr(link, self.vector_name)
        v = self.v
        fresh_v = v is None or backend.get_array_module(v) is not xp or v.shape != (m.shape[1],)
        if chainer.config.in_recomputing and not fresh_v:
            pass  # the vectors of the pass being recomputed
        elif chainer.config.train and not chainer.config.in_recomputing:
            u, v = update_approximate_vectors(m, u, self.n_power_iteration, self.eps)
        else:
            # Outside training the power iteration still runs (Chainer 7.8.1 gives this
            # output in test mode), from a copy: the stored u does not change.
            u, v = update_approximate_vectors(m, u.copy(), self.n_power_iteration, self.eps)
        self.v = v
        # sigma = u^T W v, differentiable with respect to W (u and v are constants).
        sigma = calculate_max_singular_value(matrix, u, v)
        if self.factor is not None:
            sigma = sigma / self.factor
        normalized = weight / broadcast.broadcast_to(sigma, weight.shape)
        if self.use_gamma:
            normalized = broadcast.broadcast_to(link.gamma, weight.shape) * normalized
        return normalized

    def rewrite(self, link: Any, weight: _parameter.Parameter) -> Any:
        return self.normalize_weight(link)
