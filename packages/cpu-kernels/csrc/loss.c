/* Softmax cross entropy over the rows of a float32 matrix (F.softmax_cross_entropy with
 * integer labels), forward and backward in one pass per row each.
 *
 * NumPy's log-softmax takes six passes (max, subtract, exp, sum, log, subtract) and the
 * loss five more small ones (the label range, the pick, the weights, the sum, the cached
 * softmax); here a row's maximum, its sum of exponentials and its softmax are one read of
 * the row and one write. The reductions run in 16 lanes (GCC vectorises no float
 * reduction under IEEE rules), so the sums differ from NumPy's pairwise ones in rounding
 * only. float32 only (the exponential is fastmath.h's); the rest is declined. */
#include "kernels.h"

#include "fastmath.h"

#include <math.h>

enum { LANES = 16 };

/* The maximum of a row (NaN if the row has one). The lanes' loop must stay a loop, which
 * GCC vectorises; unrolled (its default for 16 iterations) it becomes 16 scalar chains. */
CK_INLINE float row_max(const float *restrict x, Py_ssize_t n)
{
    float lane[LANES];
    int nan_lane[LANES];
    for (int k = 0; k < LANES; k++) {
        lane[k] = -INFINITY;
        nan_lane[k] = 0;
    }
    Py_ssize_t j = 0;
    for (; j + LANES <= n; j += LANES) {
#pragma GCC unroll 1
        for (int k = 0; k < LANES; k++) {
            const float v = x[j + k];
            lane[k] = v > lane[k] ? v : lane[k];
            nan_lane[k] |= v != v;
        }
    }
    float m = -INFINITY;
    int nan = 0;
    for (; j < n; j++) {
        m = x[j] > m ? x[j] : m;
        nan |= x[j] != x[j];
    }
    for (int k = 0; k < LANES; k++) {
        m = lane[k] > m ? lane[k] : m;
        nan |= nan_lane[k];
    }
    return nan ? NAN : m;
}

/* The sum of exp(x - m) over a row, stored in e when e is not NULL. */
CK_INLINE float row_exp_sum(const float *restrict x, float m, float *restrict e, Py_ssize_t n)
{
    float lane[LANES] = {0};
    Py_ssize_t j = 0;
    for (; j + LANES <= n; j += LANES)
        for (int k = 0; k < LANES; k++) {
            const float v = ck_expf(x[j + k] - m);
            if (e != NULL)
                e[j + k] = v;
            lane[k] += v;
        }
    float s = 0.0f;
    for (; j < n; j++) {
        const float v = ck_expf(x[j] - m);
        if (e != NULL)
            e[j] = v;
        s += v;
    }
    for (int k = 0; k < LANES; k++)
        s += lane[k];
    return s;
}

/* Per row n with label t: loss[n] = -(x[t] - m - log s) * w, w the class weight of t (no
 * factor without weights: times 1); y[n] = the softmax when y is not NULL. A row whose label is
 * `ignore` counts as label 0 with weight 0, as in core's NumPy code (so a NaN or infinite
 * row still gives NaN). Returns the number of rows not ignored. */
CK_CLONES static Py_ssize_t sce_forward_f32(const float *restrict x, const void *t, int t64, long long ignore,
                                            const float *restrict class_weight, float *restrict y,
                                            float *restrict loss, Py_ssize_t rows, Py_ssize_t classes)
{
    Py_ssize_t count = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        const float *xr = x + r * classes;
        float *yr = y == NULL ? NULL : y + r * classes;
        const long long label = t64 ? ((const int64_t *)t)[r] : ((const int32_t *)t)[r];
        const float m = row_max(xr, classes);
        const float s = row_exp_sum(xr, m, yr, classes);
        const float log_s = logf(s);
        if (yr != NULL) {
            const float inv = 1.0f / s;
            for (Py_ssize_t j = 0; j < classes; j++)
                yr[j] *= inv;
        }
        const int valid = label != ignore;
        const long long index = valid ? label : 0;
        const float minus_picked = -((xr[index] - m) - log_s);
        float w = class_weight == NULL ? 1.0f : class_weight[index];
        w = valid ? w : w * 0.0f;
        loss[r] = minus_picked * w; /* times 1 exactly without weights */
        count += valid;
    }
    return count;
}

/* gx[n] = (y[n] - onehot(t[n])) * (gy[n] * coeff) * w[n], the row weight w as in the
 * forward (an ignored row counts as label 0 with weight 0; a weight of 1 multiplies
 * exactly, as NumPy's code without weights leaves it out), gy one value for all rows when
 * gy_step is 0. The order of the products is core's NumPy code's. */
CK_CLONES static void sce_backward_f32(const float *restrict y, const void *t, int t64, long long ignore,
                                       const float *restrict class_weight, const float *restrict gy,
                                       Py_ssize_t gy_step, float coeff, float *restrict gx, Py_ssize_t rows,
                                       Py_ssize_t classes)
{
    for (Py_ssize_t r = 0; r < rows; r++) {
        const float *yr = y + r * classes;
        float *gr = gx + r * classes;
        const long long label = t64 ? ((const int64_t *)t)[r] : ((const int32_t *)t)[r];
        const int valid = label != ignore;
        const long long index = valid ? label : 0;
        const float w = class_weight == NULL ? 1.0f : class_weight[index];
        const float scale = (gy[r * gy_step] * coeff) * (valid ? w : w * 0.0f);
        for (Py_ssize_t j = 0; j < classes; j++)
            gr[j] = yr[j] * scale;
        gr[index] = (yr[index] - 1.0f) * scale;
    }
}

/* Whether every label is in [0, classes) or equals `ignore`. */
static int labels_in_range(const void *t, int t64, Py_ssize_t rows, long long ignore, Py_ssize_t classes)
{
    for (Py_ssize_t r = 0; r < rows; r++) {
        const long long label = t64 ? ((const int64_t *)t)[r] : ((const int32_t *)t)[r];
        if (label != ignore && (label < 0 || label >= classes))
            return 0;
    }
    return 1;
}

/* The arrays of a call: x or y (rows, classes) and gx as float32 matrices, t, and the
 * optional class weights (classes,). 1, 0 to decline (nothing held), -1 with an error. */
typedef struct {
    ck_array x, out, weight, gy;
    Py_buffer t;
    int t64;
    Py_ssize_t rows, classes;
} sce_arrays;

static void sce_release(sce_arrays *a)
{
    ck_release(&a->x);
    ck_release(&a->out);
    ck_release(&a->weight);
    ck_release(&a->gy);
    if (a->t.obj != NULL)
        PyBuffer_Release(&a->t);
    a->t.obj = NULL;
}

static int is_f32_matrix(const ck_array *a)
{
    return a->dtype == CK_F32 && a->view.ndim == 2;
}

static int sce_acquire(const char *kernel, PyObject *x, PyObject *t, PyObject *ignore_label, PyObject *class_weight,
                       sce_arrays *a, long long *ignore)
{
    a->x.view.obj = a->out.view.obj = a->weight.view.obj = a->gy.view.obj = a->t.obj = NULL;
    *ignore = PyLong_AsLongLong(ignore_label);
    if (*ignore == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "chainer_cpu_kernels.%s: ignore_label must be an int in the range of int64, "
                     "got %R", kernel, ignore_label);
        return -1;
    }
    int got = ck_acquire(x, &a->x, 0);
    if (got == 1 && !is_f32_matrix(&a->x))
        got = 0;
    if (got == 1) {
        got = ck_acquire_ints(t, &a->t, &a->t64);
        if (got == 1 && a->t.ndim != 1) {
            PyBuffer_Release(&a->t);
            a->t.obj = NULL;
            got = 0;
        }
    }
    if (got == 1 && class_weight != Py_None) {
        got = ck_acquire(class_weight, &a->weight, 0);
        if (got == 1 && (a->weight.dtype != CK_F32 || a->weight.view.ndim != 1))
            got = 0;
    }
    if (got != 1) {
        sce_release(a);
        return got;
    }
    a->rows = a->x.view.shape[0];
    a->classes = a->x.view.shape[1];
    if (a->t.shape[0] != a->rows) {
        PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: t has %zd labels, expected %zd (the rows of x)",
                     kernel, a->t.shape[0], a->rows);
        sce_release(a);
        return -1;
    }
    if (class_weight != Py_None && a->weight.size != a->classes) {
        PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: class_weight has %zd elements, expected %zd (the "
                     "columns of x)", kernel, a->weight.size, a->classes);
        sce_release(a);
        return -1;
    }
    return 1;
}

/* Acquire a writable float32 output of `rows` x `cols` (cols < 0: a vector of rows). */
static int acquire_output(const char *kernel, const char *name, PyObject *obj, ck_array *out, Py_ssize_t rows,
                          Py_ssize_t cols)
{
    int got = ck_acquire(obj, out, 1);
    if (got != 1 || out->dtype != CK_F32) {
        ck_release(out);
        return got < 0 ? -1 : 0;
    }
    const int ndim = cols < 0 ? 1 : 2;
    if (out->view.ndim != ndim || out->view.shape[0] != rows || (ndim == 2 && out->view.shape[1] != cols)) {
        if (ndim == 1)
            PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s must have shape (%zd,)", kernel, name, rows);
        else
            PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s must have shape (%zd, %zd) like x", kernel,
                         name, rows, cols);
        ck_release(out);
        return -1;
    }
    return 1;
}

PyObject *ck_softmax_cross_entropy_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "softmax_cross_entropy_forward";
    if (ck_check_nargs(kernel, nargs, 6) < 0)
        return NULL;
    sce_arrays a;
    long long ignore;
    int got = sce_acquire(kernel, args[0], args[1], args[2], args[3], &a, &ignore);
    if (got <= 0)
        return got < 0 ? NULL : PyLong_FromLong(-1);
    ck_array y;
    y.view.obj = NULL;
    if (args[4] != Py_None)
        got = acquire_output(kernel, "y", args[4], &y, a.rows, a.classes);
    ck_array *loss = &a.out;
    if (got == 1)
        got = acquire_output(kernel, "loss", args[5], loss, a.rows, -1);
    Py_ssize_t count = -1;
    if (got == 1 && labels_in_range(a.t.buf, a.t64, a.rows, ignore, a.classes) && (a.classes > 0 || a.rows == 0)) {
        Py_BEGIN_ALLOW_THREADS
        count = sce_forward_f32(a.x.view.buf, a.t.buf, a.t64, ignore, a.weight.view.obj ? a.weight.view.buf : NULL,
                                y.view.obj ? y.view.buf : NULL, loss->view.buf, a.rows, a.classes);
        Py_END_ALLOW_THREADS
    }
    ck_release(&y);
    sce_release(&a);
    if (got < 0)
        return NULL;
    return PyLong_FromSsize_t(count);
}

PyObject *ck_softmax_cross_entropy_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "softmax_cross_entropy_backward";
    if (ck_check_nargs(kernel, nargs, 7) < 0)
        return NULL;
    double coeff = PyFloat_AsDouble(args[5]);
    if (coeff == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "chainer_cpu_kernels.%s: coeff must be a real number, got %R", kernel, args[5]);
        return NULL;
    }
    sce_arrays a;
    long long ignore;
    int got = sce_acquire(kernel, args[0], args[1], args[2], args[3], &a, &ignore);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    got = ck_acquire(args[4], &a.gy, 0);
    if (got == 1 && a.gy.dtype != CK_F32)
        got = 0;
    if (got == 1 && a.gy.size != 1 && !(a.gy.view.ndim == 1 && a.gy.size == a.rows)) {
        PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: gy must have one element or shape (%zd,), got %zd "
                     "elements", kernel, a.rows, a.gy.size);
        got = -1;
    }
    if (got == 1)
        got = acquire_output(kernel, "gx", args[6], &a.out, a.rows, a.classes);
    int done = 0;
    if (got == 1 && labels_in_range(a.t.buf, a.t64, a.rows, ignore, a.classes) && (a.classes > 0 || a.rows == 0)) {
        Py_BEGIN_ALLOW_THREADS
        sce_backward_f32(a.x.view.buf, a.t.buf, a.t64, ignore, a.weight.view.obj ? a.weight.view.buf : NULL,
                         a.gy.view.buf, a.gy.size == 1 ? 0 : 1, (float)coeff, a.out.view.buf, a.rows, a.classes);
        Py_END_ALLOW_THREADS
        done = 1;
    }
    sce_release(&a);
    if (got < 0)
        return NULL;
    return Py_NewRef(done ? Py_True : Py_False);
}
