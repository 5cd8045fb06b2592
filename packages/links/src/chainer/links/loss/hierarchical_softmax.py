"""Hierarchical softmax over a binary tree (Morin & Bengio, 2005)."""

from __future__ import annotations

import heapq
import numbers
from collections.abc import Mapping
from typing import Any

import numpy

import chainer
from chainer import backend, initializers, link, variable
from chainer.functions.activation import softplus
from chainer.functions.array import broadcast, get_item, reshape
from chainer.functions.math import sum as sum_function


class TreeParser:
    """Numbers the internal nodes of a binary tree and finds the path of every leaf.

    ``TreeParser(dtype)``; :meth:`parse` a tree, then read :meth:`size` (the number of
    internal nodes), :meth:`get_paths` and :meth:`get_codes`. Internal nodes are numbered
    in pre-order (root 0); a step to the left child has code ``+1``, to the right child
    ``-1``.

    Args:
        dtype: dtype of the codes.
    """

    def __init__(self, dtype: Any = numpy.float32) -> None:
        self.dtype = dtype
        self.next_id = 0
        self.paths: dict[int, Any] = {}
        self.codes: dict[int, Any] = {}

    def size(self) -> int:
        """Number of internal nodes of the parsed tree."""
        return self.next_id

    def get_paths(self) -> dict[int, Any]:
        """``{leaf: int32 array of the internal nodes from the root to the leaf}``."""
        return self.paths

    def get_codes(self) -> dict[int, Any]:
        """``{leaf: array of the codes (+1 left, -1 right) of the steps of its path}``."""
        return self.codes

    def parse(self, tree: Any) -> None:
        """Parse ``tree``: nested pairs (2-tuples) whose leaves are non-negative int word ids."""
        self.next_id = 0
        self.paths, self.codes = {}, {}
        # Iterative pre-order walk, so deep (e.g. Huffman) trees do not hit the recursion limit.
        stack: list[tuple[Any, list[int], list[float]]] = [(tree, [], [])]
        while stack:
            node, path, code = stack.pop()
            if isinstance(node, tuple):
                if len(node) != 2:
                    raise ValueError(
                        "BinaryHierarchicalSoftmax: every internal node of the tree must be a pair, "
                        f"got a tuple of {len(node)}"
                    )
                node_id = self.next_id
                self.next_id += 1
                left, right = node
                stack.append((right, path + [node_id], code + [-1.0]))
                stack.append((left, path + [node_id], code + [1.0]))
            elif isinstance(node, numbers.Integral) and not isinstance(node, bool) and node >= 0:
                if int(node) in self.paths:
                    raise ValueError(f"BinaryHierarchicalSoftmax: leaf {node} appears twice in the tree")
                self.paths[int(node)] = numpy.array(path, numpy.int32)
                self.codes[int(node)] = numpy.array(code, self.dtype)
            else:
                raise ValueError(
                    "BinaryHierarchicalSoftmax: the tree must be nested pairs (tuples) of non-negative int "
                    f"word ids, got a node {node!r}"
                )


class BinaryHierarchicalSoftmaxFunction:
    """The loss of :class:`BinaryHierarchicalSoftmax` for one tree:
    ``func(x, t, W)`` gives the negative log-probability of the words ``t`` given ``x``,
    summed over the batch, built from differentiable functions (so it supports double
    backprop).

    ``BinaryHierarchicalSoftmaxFunction(tree, dtype=numpy.float32)``

    The paths are kept as padded tables for vectorised gathers: row ``w`` of
    :attr:`paths`/:attr:`codes` holds the path of leaf ``w`` padded to the depth of the
    tree with node 0 and code 0 (a code of 0 marks padding; ids that are no leaf have an
    all-padding row).

    Attributes:
        paths: int32 array ``(n_vocab, depth)`` of node ids.
        codes: array ``(n_vocab, depth)`` of codes (+1, -1, 0 for padding).
        begins: int32 array ``(n_vocab + 1,)``: where the path of each word starts in the
            paths of all words laid end to end in word-id order (Chainer 7's flat layout;
            ``begins[w + 1] - begins[w]`` is the length of the path of ``w``).
        n_vocab: Number of word ids (the largest leaf + 1).
        parser_size: Number of internal nodes (rows of ``W``).
    """

    def __init__(self, tree: Any, dtype: Any = numpy.float32) -> None:
        parser = TreeParser(dtype)
        parser.parse(tree)
        paths, codes = parser.get_paths(), parser.get_codes()
        self.parser_size = parser.size()
        self.n_vocab = max(paths) + 1
        depth = max(len(path) for path in paths.values())
        self.paths = numpy.zeros((self.n_vocab, depth), numpy.int32)
        self.codes = numpy.zeros((self.n_vocab, depth), dtype)
        lengths = numpy.zeros(self.n_vocab + 1, numpy.int32)
        for leaf, path in paths.items():
            self.paths[leaf, : len(path)] = path
            self.codes[leaf, : len(path)] = codes[leaf]
            lengths[leaf + 1] = len(path)
        self.begins = numpy.cumsum(lengths, dtype=numpy.int32)

    def __call__(self, x: Any, t: Any, W: Any) -> variable.Variable:
        x_array = x.array if isinstance(x, variable.Variable) else x
        t_array = t.array if isinstance(t, variable.Variable) else t
        w_shape = W.shape
        if x_array.ndim != 2 or x_array.shape[1] != w_shape[1]:
            raise ValueError(f"BinaryHierarchicalSoftmax: x must have shape (batch, {w_shape[1]}), got {x_array.shape}")
        if t_array.ndim != 1 or t_array.shape[0] != x_array.shape[0] or t_array.dtype.kind not in "iu":
            raise ValueError(
                f"BinaryHierarchicalSoftmax: t must be an int array of shape ({x_array.shape[0]},), "
                f"got shape {t_array.shape} and dtype {t_array.dtype}"
            )
        if t_array.size and (int(t_array.min()) < 0 or int(t_array.max()) >= self.n_vocab):
            raise ValueError(
                f"BinaryHierarchicalSoftmax: t must hold word ids in [0, {self.n_vocab}), "
                f"got values in [{int(t_array.min())}, {int(t_array.max())}]"
            )
        if self.paths.shape[1] == 0:
            # A one-word vocabulary: every probability is 1.
            xp = backend.get_array_module(x_array)
            return variable.Variable(xp.zeros((), x_array.dtype))
        nodes = self.paths[t_array]  # (B, depth), padded with node 0
        codes = self.codes[t_array].astype(x_array.dtype, copy=False)  # 0 where padded
        w = get_item.get_item(W, nodes)  # (B, depth, in_size)
        wx = sum_function.sum(w * broadcast.broadcast_to(reshape.reshape(x, (len(t_array), 1, -1)), w.shape), axis=2)
        # -log sigma(code * wx) on the path, 0 on the padding.
        return sum_function.sum(softplus.softplus(wx * -codes) * (codes != 0).astype(x_array.dtype))

    def to_device(self, device: Any) -> None:
        """Move the tables to ``device``."""
        self.paths = device.send(self.paths)
        self.codes = device.send(self.codes)
        self.begins = device.send(self.begins)


class BinaryHierarchicalSoftmax(link.Link):
    """Hierarchical softmax layer over a binary tree.

    ``BinaryHierarchicalSoftmax(in_size, tree, dtype=None)``

    Every internal node ``n`` of the tree has a weight vector ``W[n]``; the probability of
    word ``w`` given ``x`` is the product, over the internal nodes on the path from the
    root to the leaf ``w``, of :math:`\\sigma(\\pm W[n]^\\top x)` (``+`` when the path goes
    to the left child, ``-`` to the right). The loss is the negative log-probability of
    the targets, summed over the batch. A balanced-enough tree makes that ``O(log V)``
    per example instead of ``O(V)``; :meth:`create_huffman_tree` builds one from counts.

    Args:
        in_size: Dimension of the input vectors.
        tree: The binary tree: nested pairs (2-tuples) whose leaves are the word ids
            (non-negative ints), e.g. ``((0, 1), 2)``.
        dtype: dtype of ``W`` (default ``chainer.config.dtype``).

    Attributes:
        W (~chainer.Parameter): Weights of the internal nodes, shape ``(n_nodes, in_size)``,
            rows in pre-order of the tree; uniform in ``[-1, 1)`` at first.

    Example:
        >>> tree = L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 5, 1: 1, 2: 2})
        >>> hsm = L.BinaryHierarchicalSoftmax(3, tree)
        >>> hsm.W.shape
        (2, 3)
        >>> hsm(np.ones((4, 3), 'f'), np.array([0, 1, 2, 0], 'i')).shape
        ()
    """

    def __init__(self, in_size: int, tree: Any, dtype: Any = None) -> None:
        if not isinstance(in_size, (int, numpy.integer)) or isinstance(in_size, bool) or in_size < 1:
            raise ValueError(f"BinaryHierarchicalSoftmax: in_size must be a positive int, got {in_size!r}")
        super().__init__()
        dtype = chainer.get_dtype(dtype)
        self._func = BinaryHierarchicalSoftmaxFunction(tree, dtype)
        with self.init_scope():
            self.W = variable.Parameter(initializers.Uniform(1, dtype), (self._func.parser_size, in_size))

    @property
    def n_vocab(self) -> int:
        """Number of word ids (the largest leaf of the tree + 1)."""
        return self._func.n_vocab

    @property
    def paths(self) -> Any:
        return self._func.paths

    @property
    def codes(self) -> Any:
        return self._func.codes

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        func = self._func
        func.paths = visitor.visit_array(func.paths)
        func.codes = visitor.visit_array(func.codes)

    @staticmethod
    def create_huffman_tree(word_counts: Mapping[Any, Any]) -> Any:
        """Build a Huffman tree from a mapping of words to counts.

        The two least frequent entries are merged repeatedly (the first taken becomes the
        left child); ties are broken by the order of ``word_counts``, so the tree is
        deterministic.

        Args:
            word_counts: Mapping of words (leaves, usually int ids) to their counts.

        Returns:
            The tree as nested 2-tuples (a single word for a one-word vocabulary).

        Example:
            >>> L.BinaryHierarchicalSoftmax.create_huffman_tree({'a': 3, 'b': 1, 'c': 1})
            (('b', 'c'), 'a')
        """
        if len(word_counts) == 0:
            raise ValueError("BinaryHierarchicalSoftmax.create_huffman_tree: the vocabulary is empty")
        # (count, tie-breaker, node): merged nodes take the smaller tie-breaker of their children.
        heap = [(count, uid, word) for uid, (word, count) in enumerate(word_counts.items())]
        heapq.heapify(heap)
        while len(heap) > 1:
            count1, id1, node1 = heapq.heappop(heap)
            count2, id2, node2 = heapq.heappop(heap)
            heapq.heappush(heap, (count1 + count2, min(id1, id2), (node1, node2)))
        return heap[0][2]

    def forward(self, x: Any, t: Any) -> variable.Variable:
        """The loss of inputs ``x`` ``(B, in_size)`` and target words ``t`` ``(B,)``, summed over the batch."""
        return self._func(x, t, self.W)


__all__ = ["BinaryHierarchicalSoftmax"]
