"""L.CRF1d against brute-force enumeration of every label path."""

import itertools

import numpy
import pytest

import chainer.links as L
from chainer import gradient_check, initializers


def path_score(cost, x, y):
    return sum(x[i, y[i]] for i in range(len(y))) + sum(cost[y[i - 1], y[i]] for i in range(1, len(y)))


def brute_force(cost, x, y):
    """(negative log-likelihood of y, best path, best score) for one batch-major sequence x."""
    K = cost.shape[0]
    scores = {p: path_score(cost, x, p) for p in itertools.product(range(K), repeat=len(x))}
    log_z = numpy.logaddexp.reduce(list(scores.values()))
    best = max(scores, key=scores.get)
    return log_z - path_score(cost, x, y), numpy.array(best), scores[best]


def data(lengths, K=3, dtype=numpy.float32):
    xs = [numpy.random.uniform(-1, 1, (n, K)).astype(dtype) for n in lengths]
    ys = [numpy.random.randint(0, K, n).astype(numpy.int32) for n in lengths]
    return xs, ys


def time_major(seqs):
    """Sequences sorted longest first, transposed to a list of per-step arrays."""
    return [numpy.stack([s[t] for s in seqs if len(s) > t]) for t in range(len(seqs[0]))]


def test_parameter():
    crf = L.CRF1d(4)
    assert crf.cost.shape == (4, 4)
    numpy.testing.assert_array_equal(crf.cost.array, numpy.zeros((4, 4)))
    numpy.testing.assert_array_equal(L.CRF1d(2, initial_cost=initializers.Constant(0.5)).cost.array, [[0.5] * 2] * 2)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_batch_major_loss_in_caller_order(dtype):
    crf = L.CRF1d(3, initial_cost=initializers.Uniform(1, dtype=dtype))
    lengths = [2, 4, 3]  # not sorted
    xs, ys = data(lengths, dtype=dtype)
    expected = [brute_force(crf.cost.array.astype(float), x.astype(float), y)[0] for x, y in zip(xs, ys)]
    per_sequence = crf(xs, ys, reduce="no", transpose=True)
    numpy.testing.assert_allclose(per_sequence.array, expected, rtol=1e-5)
    numpy.testing.assert_allclose(crf(xs, ys, transpose=True).array, numpy.mean(expected), rtol=1e-5)


def test_time_major_loss():
    crf = L.CRF1d(3, initial_cost=initializers.Uniform(1))
    xs, ys = data([4, 3, 1])
    expected = [brute_force(crf.cost.array, x, y)[0] for x, y in zip(xs, ys)]
    loss = crf(time_major(xs), time_major(ys))
    numpy.testing.assert_allclose(loss.array, numpy.mean(expected), rtol=1e-5)


def test_argmax_matches_the_best_path():
    crf = L.CRF1d(3, initial_cost=initializers.Uniform(1))
    lengths = [2, 4, 3]
    xs, _ = data(lengths)
    score, path = crf.argmax(xs, transpose=True)
    for i, x in enumerate(xs):
        _, best, best_score = brute_force(crf.cost.array, x, numpy.zeros(len(x), int))
        numpy.testing.assert_array_equal(path[i], best)
        numpy.testing.assert_allclose(score.array[i], best_score, rtol=1e-5)
    sorted_xs = sorted(xs, key=len, reverse=True)
    score_tm, path_tm = crf.argmax(time_major(sorted_xs))
    assert [p.shape for p in path_tm] == [(3,), (3,), (2,), (1,)]
    for b, x in enumerate(sorted_xs):
        _, best, best_score = brute_force(crf.cost.array, x, numpy.zeros(len(x), int))
        numpy.testing.assert_array_equal([path_tm[t][b] for t in range(len(x))], best)
        numpy.testing.assert_allclose(score_tm.array[b], best_score, rtol=1e-5)


def test_gradient():
    crf = L.CRF1d(3, initial_cost=initializers.Uniform(1, dtype=numpy.float64))
    xs, ys = data([3, 2], dtype=numpy.float64)

    def f(*xs):
        return crf(list(xs), ys, transpose=True)

    gradient_check.check_backward(f, tuple(xs), None, params=(crf.cost,), atol=1e-6, rtol=1e-5)


def test_npz_device_copy(link_checks, tmp_path):
    crf = L.CRF1d(3, initial_cost=initializers.Uniform(1))
    link_checks.npz_round_trip(crf, L.CRF1d(3), ["cost"], tmp_path)
    # F.crf1d (core) builds intermediate arrays with NumPy calls that drop the fake
    # device's ndarray subclass, so only the move itself is checked there.
    link_checks.device_round_trip(crf, None)
    crf.cost.initializer = initializers.Uniform(1)
    link_checks.copy_and_repeat(crf, random_params=["/cost"])


def test_bad_arguments():
    with pytest.raises(ValueError, match="CRF1d: n_label must be a positive int, got 0"):
        L.CRF1d(0)
    crf = L.CRF1d(3)
    with pytest.raises(TypeError, match="CRF1d: xs must be a non-empty list of sequences"):
        crf([], [])
    xs, ys = data([3, 2])
    with pytest.raises(ValueError, match="CRF1d: xs and ys must hold as many sequences, got 2 and 1"):
        crf(xs, ys[:1], transpose=True)
