"""The softmax cross-entropy, embedding-gradient and linear-output kernels called directly:
against the formulas written here (float64 log-softmax; numpy.add.at for the scatter;
NumPy's transposed copy and bias), ignored labels, class weights, and what they decline
or refuse."""

import numpy
import pytest

_ops = pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")

f32 = numpy.float32


def _log_softmax64(x):
    x = x.astype(numpy.float64)
    z = x - x.max(axis=1, keepdims=True)
    return z - numpy.log(numpy.exp(z).sum(axis=1, keepdims=True))


def _sce_forward(x, t, ignore=-1, class_weight=None, with_y=True):
    y = numpy.full(x.shape, 7.0, f32) if with_y else None
    loss = numpy.full(x.shape[:1], 7.0, f32)
    count = _ops.softmax_cross_entropy_forward(x, t, ignore, class_weight, y, loss)
    return count, y, loss


@pytest.mark.parametrize("rows, classes", [(20, 1000), (3, 1), (5, 17), (1, 33), (0, 4)])
@pytest.mark.parametrize("label_dtype", [numpy.int32, numpy.int64])
def test_forward_is_minus_the_log_softmax_of_the_label(rows, classes, label_dtype):
    rs = numpy.random.RandomState(classes)
    x = (rs.standard_normal((rows, classes)) * 4).astype(f32)
    t = rs.randint(0, classes, rows).astype(label_dtype)
    count, y, loss = _sce_forward(x, t)
    assert count == rows
    log_y = _log_softmax64(x)
    # Within float32 rounding of the row's log-sum-exp (a few units of 1e-7 of it).
    lse = numpy.abs(x.astype(numpy.float64)).max(axis=1, initial=1.0)
    assert numpy.all(numpy.abs(loss + log_y[numpy.arange(rows), t]) <= 1e-6 * lse)
    numpy.testing.assert_allclose(y, numpy.exp(log_y), rtol=2e-6, atol=1e-9)


def test_ignored_rows_and_class_weights():
    rs = numpy.random.RandomState(0)
    x = rs.standard_normal((6, 5)).astype(f32)
    t = numpy.array([0, 7, 4, 7, 2, 1], numpy.int32)
    w = numpy.array([0.5, 2.0, 1.0, -1.0, 3.0], f32)
    count, _, loss = _sce_forward(x, t, ignore=7, class_weight=w)
    assert count == 4
    log_y = _log_softmax64(x)
    want = [-log_y[n, t[n]] * w[t[n]] if t[n] != 7 else 0.0 for n in range(6)]
    numpy.testing.assert_allclose(loss, want, rtol=1e-6, atol=1e-7)
    # An ignored row with infinite inputs is NaN, as in chainer-core's NumPy code (label 0, weight 0).
    x[1] = numpy.inf
    _, _, loss = _sce_forward(x, t, ignore=7, class_weight=w, with_y=False)
    assert numpy.isnan(loss[1]) and numpy.isfinite(loss[[0, 2, 3, 4, 5]]).all()


def test_extreme_rows():
    x = numpy.array([[0.0, -200.0, 80.0], [-numpy.inf, 0.0, 0.0], [1e30, -1e30, 0.0]], f32)
    t = numpy.array([1, 0, 0], numpy.int32)
    _, y, loss = _sce_forward(x, t)
    numpy.testing.assert_allclose(loss, [280.0, numpy.inf, 0.0], rtol=1e-6)
    # exp(-200) is far below float32's range: flushed to 0.
    numpy.testing.assert_allclose(
        y, [[numpy.exp(-80.0), 0.0, 1.0], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]], rtol=2e-6, atol=0
    )


@pytest.mark.parametrize("t", [[0, 5], [-2, 0], [3, -1]])
def test_labels_out_of_range_are_declined(t):
    x = numpy.zeros((2, 5), f32)
    count, y, loss = _sce_forward(x, numpy.array(t, numpy.int32), ignore=3)
    assert count == -1 and (y == 7).all() and (loss == 7).all()
    gx = numpy.full((2, 5), 7.0, f32)
    args = (x, numpy.array(t, numpy.int32), 3, None, numpy.array(1.0, f32), 1.0, gx)
    assert _ops.softmax_cross_entropy_backward(*args) is False and (gx == 7).all()


@pytest.mark.parametrize("per_row", [False, True])
def test_backward_is_softmax_minus_onehot_scaled(per_row):
    rs = numpy.random.RandomState(1)
    x = rs.standard_normal((7, 11)).astype(f32)
    t = numpy.array([0, 10, -1, 3, 3, -1, 5], numpy.int64)
    w = rs.uniform(0.5, 2, 11).astype(f32)
    _, y, _ = _sce_forward(x, t, class_weight=w)
    gy = rs.standard_normal(7).astype(f32) if per_row else numpy.array(0.75, f32)
    gx = numpy.full_like(x, 7.0)
    assert _ops.softmax_cross_entropy_backward(y, t, -1, w, gy, 0.25, gx) is True
    valid = t != -1
    onehot = numpy.zeros((7, 11))
    onehot[numpy.arange(7)[valid], t[valid]] = 1
    row_scale = numpy.broadcast_to(gy, (7,)) * 0.25 * numpy.where(valid, w[numpy.where(valid, t, 0)], 0)
    want = (y.astype(numpy.float64) - onehot) * row_scale[:, None]
    numpy.testing.assert_allclose(gx, want, rtol=1e-6, atol=1e-8)
    assert (gx[~valid] == 0).all()


@pytest.mark.parametrize("case", ["float64", "3-d", "strided x", "float labels", "2-d labels", "float64 weights"])
def test_sce_unsupported_arrays_are_declined(case):
    x, t, w = numpy.zeros((2, 4), f32), numpy.array([0, 1], numpy.int32), None
    if case == "float64":
        x = x.astype(numpy.float64)
    elif case == "3-d":
        x = x.reshape(2, 4, 1)
    elif case == "strided x":
        x = numpy.zeros((2, 8), f32)[:, ::2]
    elif case == "float labels":
        t = t.astype(f32)
    elif case == "2-d labels":
        t = t.reshape(2, 1)
    else:
        w = numpy.ones(4)
    loss = numpy.full(2, 7.0, f32)
    assert _ops.softmax_cross_entropy_forward(x, t, -1, w, None, loss) == -1 and (loss == 7).all()


def test_sce_refusals_name_the_kernel():
    x, t, loss = numpy.zeros((2, 4), f32), numpy.array([0, 1], numpy.int32), numpy.zeros(2, f32)
    with pytest.raises(
        ValueError, match=r"chainer_cpu_kernels.softmax_cross_entropy_forward: t has 3 labels, expected 2"
    ):
        _ops.softmax_cross_entropy_forward(x, numpy.zeros(3, numpy.int32), -1, None, None, loss)
    with pytest.raises(ValueError, match=r"softmax_cross_entropy_forward: class_weight has 3 elements, expected 4"):
        _ops.softmax_cross_entropy_forward(x, t, -1, numpy.ones(3, f32), None, loss)
    with pytest.raises(ValueError, match=r"softmax_cross_entropy_forward: loss must have shape \(2,\)"):
        _ops.softmax_cross_entropy_forward(x, t, -1, None, None, numpy.zeros(3, f32))
    with pytest.raises(ValueError, match=r"softmax_cross_entropy_forward: y must have shape \(2, 4\) like x"):
        _ops.softmax_cross_entropy_forward(x, t, -1, None, numpy.zeros((4, 2), f32), loss)
    with pytest.raises(TypeError, match=r"softmax_cross_entropy_forward: ignore_label must be an int"):
        _ops.softmax_cross_entropy_forward(x, t, 2**70, None, None, loss)
    with pytest.raises(ValueError, match=r"softmax_cross_entropy_backward: gy must have one element or shape \(2,\)"):
        _ops.softmax_cross_entropy_backward(x, t, -1, None, numpy.zeros(3, f32), 1.0, numpy.zeros((2, 4), f32))
    with pytest.raises(TypeError, match=r"softmax_cross_entropy_backward: coeff must be a real number"):
        _ops.softmax_cross_entropy_backward(x, t, -1, None, numpy.zeros(2, f32), "1", numpy.zeros((2, 4), f32))
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.softmax_cross_entropy_backward takes 7 arguments, got 1"):
        _ops.softmax_cross_entropy_backward(x)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("ignore", [None, 3])
@pytest.mark.parametrize("id_dtype", [numpy.int32, numpy.int64])
def test_embed_gradient_is_add_at_bit_for_bit(dtype, ignore, id_dtype):
    rs = numpy.random.RandomState(5)
    ids = rs.randint(0, 6, (7, 5)).astype(id_dtype)  # many repeats, several ids per row
    gy = rs.standard_normal((7, 5, 3)).astype(dtype)
    gW = numpy.full((6, 3), 7.0, dtype)
    assert _ops.embed_id_backward(ids, gy, ignore, gW) is True
    want = numpy.zeros((6, 3), dtype)
    keep = ids.ravel() != ignore
    numpy.add.at(want, ids.ravel()[keep], gy.reshape(-1, 3)[keep])
    numpy.testing.assert_array_equal(gW, want)


@pytest.mark.parametrize("ids", [[0, 6], [-1, 2], [2**40, 0]])
def test_embed_ids_out_of_range_are_declined(ids):
    gW = numpy.full((6, 3), 7.0, f32)
    assert _ops.embed_id_backward(numpy.array(ids, numpy.int64), numpy.ones((2, 3), f32), 99, gW) is False
    assert (gW == 7).all()
    # An ignored id is skipped, whatever its value; the other id must be in range.
    assert _ops.embed_id_backward(numpy.array([ids[0], -7], numpy.int64), numpy.ones((2, 3), f32), -7, gW) is (
        0 <= ids[0] < 6
    )


@pytest.mark.parametrize("case", ["float16", "mixed", "float ids", "strided gy", "read-only gW", "1-d gW"])
def test_embed_unsupported_arrays_are_declined(case):
    ids, gy, gW = numpy.array([0, 1], numpy.int32), numpy.ones((2, 3), f32), numpy.full((4, 3), 7.0, f32)
    if case == "float16":
        gy, gW = gy.astype(numpy.float16), gW.astype(numpy.float16)
    elif case == "mixed":
        gy = gy.astype(numpy.float64)
    elif case == "float ids":
        ids = ids.astype(f32)
    elif case == "strided gy":
        gy = numpy.ones((2, 6), f32)[:, ::2]
    elif case == "read-only gW":
        gW.flags.writeable = False
    else:
        gW = numpy.full(12, 7.0, f32)
    assert _ops.embed_id_backward(ids, gy, None, gW) is False
    assert (gW == 7).all()


def test_embed_refusals_name_the_kernel():
    ids, gW = numpy.array([0, 1], numpy.int32), numpy.zeros((4, 3), f32)
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.embed_id_backward: gy has 4 elements, expected 2 ids"):
        _ops.embed_id_backward(ids, numpy.ones((2, 2), f32), None, gW)
    with pytest.raises(TypeError, match=r"embed_id_backward: ignore_label must be None or an int"):
        _ops.embed_id_backward(ids, numpy.ones((2, 3), f32), "x", gW)
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.embed_id_backward takes 4 arguments, got 3"):
        _ops.embed_id_backward(ids, gW, None)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("rows, cols", [(20, 1000), (1, 1), (3, 17), (64, 33), (0, 5), (5, 0)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_transpose_add_bias_is_numpys_bit_for_bit(dtype, rows, cols, with_bias):
    rs = numpy.random.RandomState(rows * 100 + cols)
    yt = rs.standard_normal((cols, rows)).astype(dtype)
    b = rs.standard_normal(cols).astype(dtype) if with_bias else None
    y = numpy.full((rows, cols), 7.0, dtype)
    assert _ops.transpose_add_bias(yt, b, y) is True
    want = numpy.ascontiguousarray(yt.T)
    if with_bias:
        want += b
    assert y.tobytes() == want.tobytes()


@pytest.mark.parametrize("case", ["float16", "mixed", "strided yt", "read-only y", "3-d", "2-d bias"])
def test_transpose_add_bias_declines(case):
    yt, b, y = numpy.ones((4, 2), f32), numpy.ones(4, f32), numpy.full((2, 4), 7.0, f32)
    if case == "float16":
        yt, b, y = yt.astype(numpy.float16), b.astype(numpy.float16), y.astype(numpy.float16)
    elif case == "mixed":
        b = b.astype(numpy.float64)
    elif case == "strided yt":
        yt = numpy.ones((4, 4), f32)[:, ::2]
    elif case == "read-only y":
        y.flags.writeable = False
    elif case == "3-d":
        yt = yt.reshape(4, 2, 1)
    else:
        b = b.reshape(4, 1)
    assert _ops.transpose_add_bias(yt, b, y) is False
    assert (y == 7).all()


def test_transpose_add_bias_refusals_name_the_kernel():
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.transpose_add_bias: yt must have shape \(4, 2\)"):
        _ops.transpose_add_bias(numpy.ones((2, 4), f32), None, numpy.ones((2, 4), f32))
    with pytest.raises(ValueError, match=r"transpose_add_bias: yt must have shape \(4, 2\) and b 4 elements"):
        _ops.transpose_add_bias(numpy.ones((4, 2), f32), numpy.ones(3, f32), numpy.ones((2, 4), f32))
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.transpose_add_bias takes 3 arguments, got 2"):
        _ops.transpose_add_bias(numpy.ones((4, 2), f32), None)


# -- the accumulating forms: gemm_tn_accumulate, embed_id_backward_accumulate ---------------


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_gemm_tn_accumulate_is_numpys_product_and_add_bit_for_bit(dtype):
    # c + a.T.dot(b) computed by NumPy is the reference: the kernel calls NumPy's own BLAS
    # with beta = 1, which must give those very bits (shapes of RNN steps and random ones).
    rs = numpy.random.RandomState(11)
    shapes = [(20, 1000, 200), (20, 800, 200), (128, 800, 200), (1, 5, 7), (3, 2, 2)]
    shapes += [(rs.randint(1, 129), *rs.randint(2, 300, 2)) for _ in range(40)]
    for k, m, n in shapes:
        a = rs.standard_normal((k, m)).astype(dtype)
        b = rs.standard_normal((k, n)).astype(dtype)
        c = rs.standard_normal((m, n)).astype(dtype)
        want = c + a.T.dot(b)
        assert _ops.gemm_tn_accumulate(a, b, c) is True, (k, m, n)
        numpy.testing.assert_array_equal(c, want, err_msg=f"{(k, m, n)}")


def test_gemm_tn_accumulate_adds_nothing_for_an_empty_product():
    c = numpy.full((3, 4), 7.0, f32)
    assert _ops.gemm_tn_accumulate(numpy.ones((0, 3), f32), numpy.ones((0, 4), f32), c) is True
    assert (c == 7).all()


@pytest.mark.parametrize(
    "case", ["one row", "one column", "long sum", "float16", "mixed", "strided a", "read-only c", "1-d", "not an array"]
)
def test_gemm_tn_accumulate_declines(case):
    # One row or column: NumPy takes a matrix-vector product there, whose bits GEMM's may
    # not be; a sum over more than 128 rows: GEMM would add c before its last block of K.
    a, b, c = numpy.ones((4, 3), f32), numpy.ones((4, 5), f32), numpy.full((3, 5), 7.0, f32)
    if case == "long sum":
        a, b = numpy.ones((129, 3), f32), numpy.ones((129, 5), f32)
    elif case == "one row":
        a, c = numpy.ones((4, 1), f32), numpy.full((1, 5), 7.0, f32)
    elif case == "one column":
        b, c = numpy.ones((4, 1), f32), numpy.full((3, 1), 7.0, f32)
    elif case == "float16":
        a, b, c = a.astype(numpy.float16), b.astype(numpy.float16), c.astype(numpy.float16)
    elif case == "mixed":
        b = b.astype(numpy.float64)
    elif case == "strided a":
        a = numpy.ones((4, 6), f32)[:, ::2]
    elif case == "read-only c":
        c.flags.writeable = False
    elif case == "1-d":
        a = numpy.ones(12, f32)
    else:
        a = [[1.0] * 3] * 4
    assert _ops.gemm_tn_accumulate(a, b, c) is False
    assert (c == 7).all()


def test_gemm_tn_accumulate_refusals_name_the_kernel():
    with pytest.raises(ValueError, match=r"chainer_cpu_kernels.gemm_tn_accumulate: expected a \(K, M\), b \(K, N\)"):
        _ops.gemm_tn_accumulate(numpy.ones((4, 3), f32), numpy.ones((5, 2), f32), numpy.zeros((3, 2), f32))
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.gemm_tn_accumulate takes 3 arguments, got 2"):
        _ops.gemm_tn_accumulate(numpy.ones((4, 3), f32), numpy.ones((4, 2), f32))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("ignore", [None, 3])
@pytest.mark.parametrize("id_dtype", [numpy.int32, numpy.int64])
def test_embed_accumulate_is_the_sum_with_add_at_bit_for_bit(dtype, ignore, id_dtype):
    # gW + (zeros with numpy.add.at of the rows): the overwriting kernel's result added.
    rs = numpy.random.RandomState(6)
    ids = rs.randint(0, 6, (7, 5)).astype(id_dtype)  # many repeats
    gy = rs.standard_normal((7, 5, 3)).astype(dtype)
    gW = rs.standard_normal((6, 3)).astype(dtype)
    scattered = numpy.zeros((6, 3), dtype)
    keep = ids.ravel() != ignore
    numpy.add.at(scattered, ids.ravel()[keep], gy.reshape(-1, 3)[keep])
    want = gW + scattered
    assert _ops.embed_id_backward_accumulate(ids, gy, ignore, gW) is True
    numpy.testing.assert_array_equal(gW, want)
    assert (numpy.signbit(gW) == numpy.signbit(want)).all()


def test_embed_accumulate_leaves_rows_no_id_names():
    # Rows without an id are not touched, -0.0 included (the documented difference from
    # adding the full zero-filled gradient, which would make it +0.0).
    gW = numpy.full((4, 2), -0.0, f32)
    assert _ops.embed_id_backward_accumulate(numpy.array([1, 1], numpy.int32), numpy.ones((2, 2), f32), None, gW)
    numpy.testing.assert_array_equal(gW, [[0, 0], [2, 2], [0, 0], [0, 0]])
    assert numpy.signbit(gW[[0, 2, 3]]).all()


def test_embed_accumulate_declines_long_id_lists_and_ids_out_of_range():
    gW = numpy.full((6, 3), 7.0, f32)
    assert (
        _ops.embed_id_backward_accumulate(numpy.zeros(257, numpy.int32), numpy.ones((257, 3), f32), None, gW) is False
    )
    assert (
        _ops.embed_id_backward_accumulate(numpy.array([0, 6], numpy.int32), numpy.ones((2, 3), f32), None, gW) is False
    )
    assert (gW == 7).all()
    assert _ops.embed_id_backward_accumulate(numpy.zeros(256, numpy.int32), numpy.ones((256, 3), f32), None, gW)
    numpy.testing.assert_array_equal(gW[0], [263, 263, 263])
