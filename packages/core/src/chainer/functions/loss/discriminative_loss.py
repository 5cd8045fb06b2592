"""Discriminative margin-based clustering loss for instance segmentation."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, variable
from chainer.functions import _composite
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "discriminative_margin_based_clustering_loss"


class DiscriminativeMarginBasedClusteringLoss(_composite.CompositeNode):
    """The discriminative loss of ``(embeddings, labels)`` as a node with the three outputs
    ``(variance, distance, regularisation)``; see
    :func:`discriminative_margin_based_clustering_loss` for the arguments. Calling it on
    the two inputs applies it, as Chainer's class was called."""

    def __init__(
        self,
        delta_v: float = 0.5,
        delta_d: float = 1.5,
        max_embedding_dim: int = 10,
        norm: int = 1,
        alpha: float = 1.0,
        beta: float = 1.0,
        gamma: float = 0.001,
    ) -> None:
        self.delta_v = delta_v
        self.delta_d = delta_d
        self.max_embedding_dim = max_embedding_dim
        self.norm = norm
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma

    def __call__(self, embeddings: Any, labels: Any) -> tuple[variable.Variable, ...]:
        return self.apply((embeddings, labels))

    def composite(self, embeddings: variable.Variable, labels: variable.Variable) -> tuple[variable.Variable, ...]:
        return discriminative_margin_based_clustering_loss(
            embeddings,
            labels,
            self.delta_v,
            self.delta_d,
            self.max_embedding_dim,
            self.norm,
            self.alpha,
            self.beta,
            self.gamma,
        )


def discriminative_margin_based_clustering_loss(
    embeddings: Any,
    labels: Any,
    delta_v: float,
    delta_d: float,
    max_embedding_dim: int,
    norm: int = 1,
    alpha: float = 1.0,
    beta: float = 1.0,
    gamma: float = 0.001,
) -> tuple[variable.Variable, variable.Variable, variable.Variable]:
    """Discriminative loss of De Brabandere et al. (2017) for instance segmentation.

    Pixels are embedded so that those of one instance cluster around their mean and the
    means of different instances lie far apart. Instance ``c`` of image ``n`` is the set
    of pixels whose label is ``c`` (``1 <= c <= C`` with ``C = max_embedding_dim``);
    label 0 is background and takes no part. With :math:`\\mu_{nc}` the mean embedding
    of an instance (zero for an empty one) and :math:`\\|\\cdot\\|` the L1 or L2 norm:

    - variance: :math:`\\frac1C \\sum_c \\frac{1}{N_c} \\sum_{n, p \\in c}
      \\max(0, \\|\\mu_{nc} - x_{np}\\| - \\delta_v)^2`, with :math:`N_c` the number of
      pixels of label ``c`` in the whole batch (at least 1);
    - distance: the mean over images and over pairs :math:`c_a < c_b` of
      :math:`\\max(0, 2\\delta_d - \\|\\mu_{nc_a} - \\mu_{nc_b}\\|)^2` (every pair of the
      ``C`` labels counts, present or not; zero when ``C == 1``);
    - regularisation: :math:`\\frac{1}{CN} \\sum_c \\|(\\mu_{nc})_{n}\\|`, the norm of each
      instance's means taken over the batch and embedding axes together.

    Args:
        embeddings: Pixel embeddings of shape ``(N, D, H, W)``, floating dtype, with
            ``D == max_embedding_dim``.
        labels: Signed integer instance labels of shape ``(N, H, W)``.
        delta_v: Distance to the mean below which a pixel is not penalised.
        delta_d: Half the distance between means beyond which they are not penalised.
        max_embedding_dim: The number of embedding dimensions ``D``, also the largest
            instance label.
        norm: 1 (L1) or 2 (L2).
        alpha: Weight of the variance term.
        beta: Weight of the distance term.
        gamma: Weight of the regularisation term.

    Returns:
        A tuple of three scalar variables: the weighted variance, distance and
        regularisation terms.

    Example:
        >>> emb = np.zeros((1, 2, 1, 2), 'f'); emb[0, 0, 0, 1] = 1.
        >>> labels = np.array([[[1, 2]]], 'i')  # two single-pixel instances
        >>> l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
        ...     emb, labels, 0.5, 1.5, 2)
        >>> float(l_var.array), float(l_dist.array)  # (2 * 1.5 - 1) ** 2
        (0.0, 4.0)
    """
    from chainer.functions.activation import relu
    from chainer.functions.array import reshape
    from chainer.functions.math import matmul
    from chainer.functions.math import sum as sum_module

    if norm not in (1, 2) or isinstance(norm, bool):
        raise ValueError(f"chainer.functions.{_WHERE}: norm must be 1 or 2, got {norm!r}")
    if isinstance(max_embedding_dim, bool) or not isinstance(max_embedding_dim, numbers.Integral):
        raise TypeError(f"chainer.functions.{_WHERE}: max_embedding_dim must be an int, got {max_embedding_dim!r}")
    if max_embedding_dim < 1:
        raise ValueError(f"chainer.functions.{_WHERE}: max_embedding_dim must be positive, got {max_embedding_dim}")
    for name, value in (("delta_v", delta_v), ("delta_d", delta_d)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0:
            raise ValueError(f"chainer.functions.{_WHERE}: {name} must be a non-negative number, got {value!r}")
    n_instance = int(max_embedding_dim)

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("embeddings", "labels"))
        e_type, l_type = in_types
        type_check.expect(
            e_type.dtype.kind == "f",
            e_type.ndim == 4,
            l_type.dtype.kind == "i",
            l_type.ndim == 3,
            e_type.shape[0] == l_type.shape[0],
            e_type.shape[2:] == l_type.shape[1:],
            e_type.shape[1] == type_check.make_variable(n_instance, "max_embedding_dim"),
        )

    _common.check_arguments(check, (embeddings, labels), "DiscriminativeMarginBasedClusteringLoss")
    embeddings = variable.as_variable(embeddings)
    labels = variable.as_array(labels)
    xp = backend.get_array_module(labels)
    dtype = embeddings.dtype
    n_batch, n_dim, height, width = embeddings.shape
    n_pixel = height * width

    flat = reshape.reshape(embeddings, (n_batch, n_dim, n_pixel))
    instances = xp.arange(1, n_instance + 1)
    onehot = (labels.reshape(n_batch, 1, n_pixel) == instances[None, :, None]).astype(dtype)  # (N, C, P)
    counts = onehot.sum(axis=2)  # (N, C)
    means = matmul.matmul(flat, onehot, transb=True) * (1 / xp.maximum(counts, 1))[:, None, :]  # (N, D, C)

    # Variance: each pixel against the mean of its own instance (a pixel has at most one).
    pixel_means = matmul.matmul(means, onehot)  # (N, D, P), zero on background
    foreground = onehot.sum(axis=1)[:, None, :]
    distance = _common.norm((pixel_means - flat) * foreground, axis=1, p=norm)  # (N, P)
    spread = relu.relu(distance - float(delta_v))
    per_label = xp.maximum(counts.sum(axis=0), 1)  # pixels of each label in the batch
    pixel_weight = (onehot / per_label[None, :, None]).sum(axis=1).astype(dtype)
    l_var = sum_module.sum(spread * spread * pixel_weight) * (1.0 / n_instance)

    # Distance: every pair of means within an image.
    if n_instance > 1:
        pair_diff = reshape.reshape(means, (n_batch, n_dim, n_instance, 1)) - reshape.reshape(
            means, (n_batch, n_dim, 1, n_instance)
        )
        pair_distance = _common.norm(pair_diff, axis=1, p=norm)  # (N, C, C)
        push = relu.relu(2.0 * float(delta_d) - pair_distance)
        upper = xp.triu(xp.ones((n_instance, n_instance), dtype), k=1)
        n_pairs = n_instance * (n_instance - 1) // 2
        l_dist = sum_module.sum(push * push * upper) * (1.0 / (n_pairs * max(n_batch, 1)))
    else:
        l_dist = variable.Variable(xp.zeros((), dtype), requires_grad=False)

    # Regularisation: the norm of each instance's means over the batch and embedding axes.
    l_reg = sum_module.sum(_common.norm(means, axis=(0, 1), p=norm)) * (1.0 / (n_instance * max(n_batch, 1)))
    return l_var * alpha, l_dist * beta, l_reg * gamma


__all__ = ["discriminative_margin_based_clustering_loss"]
