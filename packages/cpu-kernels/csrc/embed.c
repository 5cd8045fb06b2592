/* The weight gradient of F.embed_id: each row of gy added to the row of gW its id names.
 *
 * NumPy has no fast scatter-add: numpy.add.at goes element by element, and core's
 * workaround sorts the ids and adds in passes. Here the rows are added in the order of
 * the ids, each to a zeroed gW, which is exactly what add.at computes (0 + g1 + g2 ...),
 * so the results are the same bits. */
#include "kernels.h"

#include <string.h>

#define EMBED_BACKWARD_LOOP(NAME, T)                                                                 \
    CK_CLONES static void NAME(const void *ids, int ids64, int has_ignore, long long ignore,         \
                               const T *restrict gy, T *restrict gW, Py_ssize_t n, Py_ssize_t vocab,  \
                               Py_ssize_t units)                                                     \
    {                                                                                                \
        memset(gW, 0, (size_t)vocab * (size_t)units * sizeof(T));                                   \
        for (Py_ssize_t r = 0; r < n; r++) {                                                         \
            const long long id = ids64 ? ((const int64_t *)ids)[r] : ((const int32_t *)ids)[r];      \
            if (has_ignore && id == ignore)                                                          \
                continue;                                                                            \
            T *restrict row = gW + id * units;                                                       \
            const T *restrict g = gy + r * units;                                                    \
            for (Py_ssize_t k = 0; k < units; k++)                                                   \
                row[k] += g[k];                                                                      \
        }                                                                                            \
    }

EMBED_BACKWARD_LOOP(embed_backward_f32, float)
EMBED_BACKWARD_LOOP(embed_backward_f64, double)

/* The accumulating form: gW += the gradient above, for a weight whose gradient backprop
 * sums over many uses (an RNN's embedding, once per time step). Each id's rows are first
 * summed from zero in their order into `row_sum`, exactly the row the overwriting form
 * makes, and that row is then added to gW's: the bits of gW + (that gradient) in every
 * row an id names, without the zeroed vocabulary-sized array and the pass adding it.
 * Rows no id names are left as they are (the full add would turn a -0.0 there into
 * +0.0, the one difference). Finding an id's earlier rows is quadratic in the number of
 * ids, so the caller declines long id lists. */
#define EMBED_ACCUMULATE_LOOP(NAME, T)                                                               \
    CK_CLONES static void NAME(const void *ids, int ids64, int has_ignore, long long ignore,         \
                               const T *restrict gy, T *restrict gW, T *restrict row_sum,           \
                               Py_ssize_t n, Py_ssize_t units)                                       \
    {                                                                                                \
        for (Py_ssize_t r = 0; r < n; r++) {                                                         \
            const long long id = ids64 ? ((const int64_t *)ids)[r] : ((const int32_t *)ids)[r];      \
            if (has_ignore && id == ignore)                                                          \
                continue;                                                                            \
            int seen = 0;                                                                            \
            for (Py_ssize_t q = 0; q < r && !seen; q++)                                              \
                seen = (ids64 ? ((const int64_t *)ids)[q] : ((const int32_t *)ids)[q]) == id;        \
            if (seen)                                                                                \
                continue;                                                                            \
            for (Py_ssize_t k = 0; k < units; k++)                                                   \
                row_sum[k] = (T)0 + gy[r * units + k];                                               \
            for (Py_ssize_t q = r + 1; q < n; q++) {                                                 \
                const long long other = ids64 ? ((const int64_t *)ids)[q] : ((const int32_t *)ids)[q]; \
                if (other == id)                                                                     \
                    for (Py_ssize_t k = 0; k < units; k++)                                           \
                        row_sum[k] += gy[q * units + k];                                             \
            }                                                                                        \
            T *restrict row = gW + id * units;                                                       \
            for (Py_ssize_t k = 0; k < units; k++)                                                   \
                row[k] += row_sum[k];                                                                \
        }                                                                                            \
    }

EMBED_ACCUMULATE_LOOP(embed_accumulate_f32, float)
EMBED_ACCUMULATE_LOOP(embed_accumulate_f64, double)

/* Ids past this many leave the accumulating form to NumPy (see EMBED_ACCUMULATE_LOOP). */
enum { EMBED_ACCUMULATE_MAX_IDS = 256 };

static PyObject *embed_backward(const char *kernel, int accumulate, PyObject *const *args, Py_ssize_t nargs)
{
    if (ck_check_nargs(kernel, nargs, 4) < 0)
        return NULL;
    const int has_ignore = args[2] != Py_None;
    long long ignore = 0;
    if (has_ignore) {
        ignore = PyLong_AsLongLong(args[2]);
        if (ignore == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "chainer_cpu_kernels.%s: ignore_label must be None or an int in the range of int64, got %R",
                         kernel, args[2]);
            return NULL;
        }
    }
    Py_buffer ids;
    int ids64;
    int got = ck_acquire_ints(args[0], &ids, &ids64);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    ck_array gy, gW;
    gy.view.obj = gW.view.obj = NULL;
    got = ck_acquire(args[1], &gy, 0);
    if (got == 1)
        got = ck_acquire(args[3], &gW, 1);
    if (got == 1 && (gW.dtype != gy.dtype || gW.view.ndim != 2))
        got = 0;
    const Py_ssize_t n = ids.len / ids.itemsize;
    Py_ssize_t vocab = 0, units = 0, expected = 0;
    if (got == 1) {
        vocab = gW.view.shape[0];
        units = gW.view.shape[1];
        if (ck_mul(n, units, &expected) < 0 || gy.size != expected) {
            PyErr_Format(PyExc_ValueError,
                         "chainer_cpu_kernels.%s: gy has %zd elements, expected %zd ids times the %zd columns of gW",
                         kernel, gy.size, n, units);
            got = -1;
        }
    }
    if (got == 1) {
        /* An id outside [0, vocab) is declined (NumPy reports it). */
        for (Py_ssize_t r = 0; r < n && got == 1; r++) {
            const long long id = ids64 ? ((const int64_t *)ids.buf)[r] : ((const int32_t *)ids.buf)[r];
            if (!(has_ignore && id == ignore) && (id < 0 || id >= vocab))
                got = 0;
        }
    }
    void *row_sum = NULL;
    if (got == 1 && accumulate) {
        if (n > EMBED_ACCUMULATE_MAX_IDS)
            got = 0;
        else if ((row_sum = PyMem_Malloc((size_t)(units > 0 ? units : 1) * (size_t)gW.view.itemsize)) == NULL) {
            PyErr_NoMemory();
            got = -1;
        }
    }
    if (got == 1) {
        Py_BEGIN_ALLOW_THREADS
        if (accumulate && gy.dtype == CK_F32)
            embed_accumulate_f32(ids.buf, ids64, has_ignore, ignore, gy.view.buf, gW.view.buf, row_sum, n, units);
        else if (accumulate)
            embed_accumulate_f64(ids.buf, ids64, has_ignore, ignore, gy.view.buf, gW.view.buf, row_sum, n, units);
        else if (gy.dtype == CK_F32)
            embed_backward_f32(ids.buf, ids64, has_ignore, ignore, gy.view.buf, gW.view.buf, n, vocab, units);
        else
            embed_backward_f64(ids.buf, ids64, has_ignore, ignore, gy.view.buf, gW.view.buf, n, vocab, units);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(row_sum);
    PyBuffer_Release(&ids);
    ck_release(&gy);
    ck_release(&gW);
    if (got < 0)
        return NULL;
    return Py_NewRef(got ? Py_True : Py_False);
}

PyObject *ck_embed_id_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return embed_backward("embed_id_backward", 0, args, nargs);
}

PyObject *ck_embed_id_backward_accumulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return embed_backward("embed_id_backward_accumulate", 1, args, nargs);
}

/* y = yt^T + b: the small-batch F.linear computes its product as W x^T (OpenBLAS is faster
 * at that shape) and needs it back in C order, with the bias added. NumPy's transposed
 * copy walks the columns of yt across the whole array (40 us for 20x1000); here tiles of
 * 16 rows of yt, a few cache lines, go to 16-element runs of y's rows. The addition is
 * the one of NumPy's y += b, so the bits are the same. */
enum { TRANSPOSE_TILE = 16 };

#define TRANSPOSE_BIAS_LOOP(NAME, T)                                                                 \
    CK_CLONES static void NAME(const T *restrict yt, const T *restrict b, T *restrict y, Py_ssize_t rows, \
                               Py_ssize_t cols)                                                      \
    {                                                                                                \
        /* yt is (cols, rows), y is (rows, cols). */                                                 \
        for (Py_ssize_t c0 = 0; c0 < cols; c0 += TRANSPOSE_TILE) {                                   \
            const Py_ssize_t m = cols - c0 < TRANSPOSE_TILE ? cols - c0 : TRANSPOSE_TILE;            \
            for (Py_ssize_t r = 0; r < rows; r++) {                                                  \
                T *restrict out = y + r * cols + c0;                                                 \
                const T *restrict in = yt + c0 * rows + r;                                           \
                if (b != NULL)                                                                       \
                    for (Py_ssize_t k = 0; k < m; k++)                                               \
                        out[k] = in[k * rows] + b[c0 + k];                                           \
                else                                                                                 \
                    for (Py_ssize_t k = 0; k < m; k++)                                               \
                        out[k] = in[k * rows];                                                       \
            }                                                                                        \
        }                                                                                            \
    }

TRANSPOSE_BIAS_LOOP(transpose_bias_f32, float)
TRANSPOSE_BIAS_LOOP(transpose_bias_f64, double)

PyObject *ck_transpose_add_bias(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "transpose_add_bias";
    if (ck_check_nargs(kernel, nargs, 3) < 0)
        return NULL;
    ck_array yt, b, y;
    yt.view.obj = b.view.obj = y.view.obj = NULL;
    int got = ck_acquire(args[0], &yt, 0);
    if (got == 1)
        got = ck_acquire(args[2], &y, 1);
    if (got == 1 && args[1] != Py_None)
        got = ck_acquire(args[1], &b, 0);
    if (got == 1 && (y.dtype != yt.dtype || (b.view.obj != NULL && b.dtype != yt.dtype) || yt.view.ndim != 2 ||
                     y.view.ndim != 2 || (b.view.obj != NULL && b.view.ndim != 1)))
        got = 0;
    if (got == 1) {
        const Py_ssize_t rows = y.view.shape[0], cols = y.view.shape[1];
        if (yt.view.shape[0] != cols || yt.view.shape[1] != rows || (b.view.obj != NULL && b.size != cols)) {
            PyErr_Format(PyExc_ValueError,
                         "chainer_cpu_kernels.%s: yt must have shape (%zd, %zd) and b %zd elements for y of shape "
                         "(%zd, %zd)", kernel, cols, rows, cols, rows, cols);
            got = -1;
        } else {
            Py_BEGIN_ALLOW_THREADS
            if (y.dtype == CK_F32)
                transpose_bias_f32(yt.view.buf, b.view.obj ? b.view.buf : NULL, y.view.buf, rows, cols);
            else
                transpose_bias_f64(yt.view.buf, b.view.obj ? b.view.buf : NULL, y.view.buf, rows, cols);
            Py_END_ALLOW_THREADS
        }
    }
    ck_release(&yt);
    ck_release(&b);
    ck_release(&y);
    if (got < 0)
        return NULL;
    return Py_NewRef(got ? Py_True : Py_False);
}
