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

PyObject *ck_embed_id_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "embed_id_backward";
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
    if (got == 1) {
        Py_BEGIN_ALLOW_THREADS
        if (gy.dtype == CK_F32)
            embed_backward_f32(ids.buf, ids64, has_ignore, ignore, gy.view.buf, gW.view.buf, n, vocab, units);
        else
            embed_backward_f64(ids.buf, ids64, has_ignore, ignore, gy.view.buf, gW.view.buf, n, vocab, units);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ids);
    ck_release(&gy);
    ck_release(&gW);
    if (got < 0)
        return NULL;
    return Py_NewRef(got ? Py_True : Py_False);
}
