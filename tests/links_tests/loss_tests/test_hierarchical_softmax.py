"""L.BinaryHierarchicalSoftmax against per-example path products computed here in NumPy."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check

TREE = ((0, (1, 2)), (3, 4))
# Internal nodes in pre-order: 0 = root, 1 = (0, (1, 2)), 2 = (1, 2), 3 = (3, 4).
PATHS = {
    0: [(0, 1), (1, 1)],
    1: [(0, 1), (1, -1), (2, 1)],
    2: [(0, 1), (1, -1), (2, -1)],
    3: [(0, -1), (3, 1)],
    4: [(0, -1), (3, -1)],
}


def log_sigmoid(v):
    return -numpy.logaddexp(0, -v)


def expected_loss(W, x, t):
    return -sum(sum(log_sigmoid(code * W[node] @ x[b]) for node, code in PATHS[int(w)]) for b, w in enumerate(t))


def test_tree_layout_and_initialisation():
    link = L.BinaryHierarchicalSoftmax(3, TREE)
    assert link.W.shape == (4, 3)
    big = L.BinaryHierarchicalSoftmax(1000, TREE)
    w = big.W.array
    assert w.min() >= -1 and w.max() < 1 and abs(w.mean()) < 0.05 and w.std() > 0.5
    assert L.BinaryHierarchicalSoftmax(3, TREE, dtype=numpy.float64).W.dtype == numpy.float64


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_forward(dtype):
    link = L.BinaryHierarchicalSoftmax(3, TREE, dtype=dtype)
    x = numpy.random.uniform(-1, 1, (6, 3)).astype(dtype)
    t = numpy.array([0, 1, 2, 3, 4, 2], numpy.int32)
    loss = link(x, t)
    assert loss.shape == () and loss.dtype == dtype
    tol = {"rtol": 2e-2} if dtype == numpy.float16 else {"rtol": 1e-5}
    numpy.testing.assert_allclose(loss.array, expected_loss(link.W.array.astype(float), x.astype(float), t), **tol)


def test_probabilities_sum_to_one():
    link = L.BinaryHierarchicalSoftmax(3, TREE, dtype=numpy.float64)
    x = numpy.random.randn(1, 3)
    total = sum(numpy.exp(-link(x, numpy.array([w], numpy.int32)).array) for w in range(5))
    numpy.testing.assert_allclose(total, 1.0, rtol=1e-12)


def test_gradient():
    link = L.BinaryHierarchicalSoftmax(3, TREE, dtype=numpy.float64)
    x = numpy.random.uniform(-1, 1, (4, 3))
    t = numpy.array([4, 1, 1, 0], numpy.int32)
    gradient_check.check_backward(lambda x: link(x, t), x, None, params=(link.W,), atol=1e-6, rtol=1e-5)


def test_huffman_tree():
    counts = {"a": 10, "b": 1, "c": 1, "d": 3, "e": 5}
    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(counts)

    def depths(node, d=0):
        if isinstance(node, tuple):
            return {**depths(node[0], d + 1), **depths(node[1], d + 1)}
        return {node: d}

    depth = depths(tree)
    assert sorted(depth) == sorted(counts)
    # Optimal weighted depth: 10·1 + 5·2 + 3·3 + 1·4 + 1·4 = 37 (worked out by hand); rarer words are deeper.
    assert sum(counts[w] * depth[w] for w in counts) == 37
    assert depth["a"] <= depth["e"] <= depth["d"] <= depth["b"]
    assert L.BinaryHierarchicalSoftmax.create_huffman_tree({7: 1}) == 7
    with pytest.raises(ValueError, match="the vocabulary is empty"):
        L.BinaryHierarchicalSoftmax.create_huffman_tree({})
    # A Huffman tree of int ids is usable directly.
    ids = L.BinaryHierarchicalSoftmax.create_huffman_tree(dict(enumerate([10, 1, 1, 3, 5])))
    assert L.BinaryHierarchicalSoftmax(2, ids).W.shape == (4, 2)


def test_deep_tree_does_not_recurse():
    tree = 0
    for w in range(1, 1500):
        tree = (tree, w)
    link = L.BinaryHierarchicalSoftmax(2, tree)
    assert link.W.shape == (1499, 2)
    assert numpy.isfinite(link(numpy.ones((1, 2), numpy.float32), numpy.array([0], numpy.int32)).array)


def test_npz_device_copy(link_checks, tmp_path):
    link = L.BinaryHierarchicalSoftmax(3, TREE)
    link_checks.npz_round_trip(link, L.BinaryHierarchicalSoftmax(3, TREE), ["W"], tmp_path)
    # F.softplus (core) allocates its output with NumPy, which drops the fake device's
    # ndarray subclass, so only the move itself (tables included) is checked there.
    link_checks.device_round_trip(link, None)
    import chainer_plugin_fakedev as fakedev

    from chainer import plugins

    plugins.register(fakedev, name="hsm-tables")
    try:
        link.to_device("@fakedev:2")
        assert chainer.backend.get_device_from_array(link.paths).name == "@fakedev:2"
        assert chainer.backend.get_device_from_array(link.codes).name == "@fakedev:2"
    finally:
        link.to_device("@numpy")
        plugins.unregister(fakedev)
    link_checks.copy_and_repeat(link, random_params=["/W"])


def test_bad_inputs():
    with pytest.raises(ValueError, match="every internal node of the tree must be a pair, got a tuple of 3"):
        L.BinaryHierarchicalSoftmax(3, (0, 1, 2))
    with pytest.raises(ValueError, match="leaf 1 appears twice"):
        L.BinaryHierarchicalSoftmax(3, ((0, 1), 1))
    with pytest.raises(ValueError, match="non-negative int word ids, got a node 'a'"):
        L.BinaryHierarchicalSoftmax(3, ("a", 1))
    link = L.BinaryHierarchicalSoftmax(3, TREE)
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(ValueError, match=r"t must hold word ids in \[0, 5\), got values in \[0, 5\]"):
        link(x, numpy.array([0, 5], numpy.int32))
    with pytest.raises(ValueError, match=r"x must have shape \(batch, 3\), got \(2, 4\)"):
        link(numpy.zeros((2, 4), numpy.float32), numpy.array([0, 1], numpy.int32))
    with pytest.raises(ValueError, match=r"t must be an int array of shape \(2,\)"):
        link(x, numpy.array([0.0, 1.0]))


def test_tree_parser_and_function_expose_the_paths():
    from chainer.links.loss import hierarchical_softmax

    parser = hierarchical_softmax.TreeParser(numpy.float32)
    parser.parse(TREE)
    assert parser.size() == 4
    for word, steps in PATHS.items():
        numpy.testing.assert_array_equal(parser.get_paths()[word], [node for node, _ in steps])
        numpy.testing.assert_array_equal(parser.get_codes()[word], [code for _, code in steps])
    func = hierarchical_softmax.BinaryHierarchicalSoftmaxFunction(TREE)
    assert func.paths.shape == (5, 3) and func.n_vocab == 5
    # begins: the start of each word's path with the paths laid end to end (lengths 2, 3, 3, 2, 2).
    numpy.testing.assert_array_equal(func.begins, [0, 2, 5, 8, 10, 12])
    assert func.begins.dtype == numpy.int32
    W = numpy.random.uniform(-1, 1, (4, 3))
    x = numpy.random.uniform(-1, 1, (2, 3))
    t = numpy.array([1, 3], numpy.int32)
    numpy.testing.assert_allclose(func(x, t, W).array, expected_loss(W, x, t), rtol=1e-12)
    # The link computes through its own function object (link._func), whose tables are
    # those the link moves between devices.
    link = L.BinaryHierarchicalSoftmax(3, TREE)
    assert isinstance(link._func, hierarchical_softmax.BinaryHierarchicalSoftmaxFunction)
    assert link.codes is link._func.codes
