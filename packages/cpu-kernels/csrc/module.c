/* The module chainer_cpu_kernels._ops: the method table and the array helpers. */
#include "kernels.h"

#include <limits.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static ck_dtype format_dtype(const char *format)
{
    if (strcmp(format, "f") == 0)
        return CK_F32;
    if (strcmp(format, "d") == 0)
        return CK_F64;
    return CK_NONE;
}

const char *ck_get_buffer(PyObject *obj, Py_buffer *view, int writable)
{
    view->obj = NULL;
    if (!PyObject_CheckBuffer(obj))
        return NULL;
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) != 0) {
        /* Not contiguous or read-only: leave it to NumPy, which reports its own errors. */
        PyErr_Clear();
        view->obj = NULL;
        return NULL;
    }
    const char *f = view->format == NULL ? "B" : view->format;
    if (f[0] == '<' || f[0] == '=' || f[0] == '@')
        f++;
    return f;
}

/* Whether the shape of `view` (0-d: one element) multiplies out to its length, without
 * overflow in the product of its nonzero lengths; the guarantee of kernels.h. */
static int consistent_shape(const Py_buffer *view)
{
    Py_ssize_t nonzero = view->itemsize, size = view->itemsize;
    for (int i = 0; i < view->ndim; i++) {
        const Py_ssize_t n = view->shape[i];
        if (n < 0)
            return 0;
        if (n == 0)
            size = 0;
        else if (ck_mul(nonzero, n, &nonzero) < 0)
            return 0;
    }
    return (size == 0 ? 0 : nonzero) == view->len;
}

int ck_acquire(PyObject *obj, ck_array *a, int writable)
{
    const char *format = ck_get_buffer(obj, &a->view, writable);
    if (format == NULL)
        return 0;
    a->dtype = format_dtype(format);
    if (a->dtype == CK_NONE || a->view.itemsize != (a->dtype == CK_F32 ? 4 : 8) || !consistent_shape(&a->view)) {
        ck_release(a);
        return 0;
    }
    a->size = a->view.len / a->view.itemsize;
    return 1;
}

int ck_acquire_ints(PyObject *obj, Py_buffer *view, int *is64)
{
    const char *f = ck_get_buffer(obj, view, 0);
    if (f == NULL)
        return 0;
    const int ok = f[0] != '\0' && f[1] == '\0' && (f[0] == 'i' || f[0] == 'l' || f[0] == 'q') &&
                   (view->itemsize == 4 || view->itemsize == 8) && consistent_shape(view);
    if (!ok) {
        PyBuffer_Release(view);
        view->obj = NULL;
        return 0;
    }
    *is64 = view->itemsize == 8;
    return 1;
}

void ck_release(ck_array *a)
{
    if (a->view.obj != NULL)
        PyBuffer_Release(&a->view);
    a->view.obj = NULL;
}

void ck_release_all(ck_array *arrays, int n)
{
    for (int i = 0; i < n; i++)
        ck_release(&arrays[i]);
}

int ck_check_size(const char *kernel, const char *name, Py_ssize_t got, const char *reference, Py_ssize_t expected)
{
    if (got == expected)
        return 0;
    PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s has %zd elements, expected %zd like %s", kernel, name,
                 got, expected, reference);
    return -1;
}

int ck_check_nargs(const char *kernel, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs == expected)
        return 0;
    PyErr_Format(PyExc_TypeError, "chainer_cpu_kernels.%s takes %zd arguments, got %zd", kernel, expected, nargs);
    return -1;
}

static PyObject *shape_tuple(const Py_buffer *view)
{
    PyObject *shape = PyTuple_New(view->ndim);
    if (shape == NULL)
        return NULL;
    for (int d = 0; d < view->ndim; d++) {
        PyObject *extent = PyLong_FromSsize_t(view->shape[d]);
        if (extent == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, d, extent);
    }
    return shape;
}

/* ValueError naming the kernel unless `got` has the shape of `reference` (an update with
 * a state of another shape but the same size would silently mix elements); -1 then. */
static int check_shape(const char *kernel, const char *name, const Py_buffer *got, const char *reference_name,
                       const Py_buffer *reference)
{
    int same = got->ndim == reference->ndim;
    for (int d = 0; same && d < got->ndim; d++)
        same = got->shape[d] == reference->shape[d];
    if (same)
        return 0;
    PyObject *got_shape = shape_tuple(got), *expected_shape = shape_tuple(reference);
    if (got_shape != NULL && expected_shape != NULL)
        PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s has shape %R, expected %R like %s", kernel, name,
                     got_shape, expected_shape, reference_name);
    Py_XDECREF(got_shape);
    Py_XDECREF(expected_shape);
    return -1;
}

int ck_acquire_same(const char *kernel, const char *const *names, PyObject *const *objects, const int *writable,
                    ck_array *arrays, int n)
{
    for (int i = 0; i < n; i++)
        arrays[i].view.obj = NULL;
    for (int i = 0; i < n; i++) {
        int got = ck_acquire(objects[i], &arrays[i], writable[i]);
        if (got != 1 || arrays[i].dtype != arrays[0].dtype) {
            ck_release_all(arrays, n);
            return got < 0 ? -1 : 0;
        }
        if (ck_check_size(kernel, names[i], arrays[i].size, names[0], arrays[0].size) < 0 ||
            check_shape(kernel, names[i], &arrays[i].view, names[0], &arrays[0].view) < 0) {
            ck_release_all(arrays, n);
            return -1;
        }
    }
    return 1;
}

/* tune_malloc(trim_threshold, mmap_threshold) -> bool: glibc's malloc keeps blocks up to
 * mmap_threshold bytes on its heap (instead of fresh mmaps, unmapped when freed) and gives
 * the heap's free top back to the system only past trim_threshold bytes. A training step
 * frees and allocates the same arrays every step: with glibc's default, adaptive
 * thresholds, the top of the heap goes back to the system between them, and every page is
 * faulted in again (3,200 page faults, 7 ms of a 47 ms LSTM step on this machine). False
 * (nothing changed) where the C library is not glibc. */
static PyObject *ck_tune_malloc(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (ck_check_nargs("tune_malloc", nargs, 2) < 0)
        return NULL;
    const Py_ssize_t trim = PyLong_AsSsize_t(args[0]), mmap_threshold = PyLong_AsSsize_t(args[1]);
    if ((trim == -1 || mmap_threshold == -1) && PyErr_Occurred())
        return NULL;
    if (trim < 0 || mmap_threshold < 0 || trim > INT_MAX || mmap_threshold > INT_MAX) {
        PyErr_Format(PyExc_ValueError,
                     "chainer_cpu_kernels.tune_malloc: the thresholds must be in [0, %d] bytes, got %zd and %zd",
                     INT_MAX, trim, mmap_threshold);
        return NULL;
    }
#if defined(__GLIBC__)
    /* Setting either turns glibc's adaptive thresholds off, so both are set. */
    if (mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, (int)trim) == 1)
        return Py_NewRef(Py_True);
#endif
    return Py_NewRef(Py_False);
}

static PyMethodDef methods[] = {
    {"adam", (PyCFunction)(void (*)(void))ck_adam, METH_FASTCALL,
     "adam(param, grad, m, v, vhat, lr, one_minus_beta1, one_minus_beta2, eps, weight_decay_rate, eta, lower, "
     "upper) -> bool\n\nOne Adam step in place, in a single pass (see chainer.backends.cpu_kernels.SLOTS)."},
    {"momentum_sgd", (PyCFunction)(void (*)(void))ck_momentum_sgd, METH_FASTCALL,
     "momentum_sgd(param, grad, v, lr, momentum) -> bool\n\nv = momentum * v - lr * grad; param += v, in place."},
    {"max_pooling_2d_forward", (PyCFunction)(void (*)(void))ck_max_pooling_2d_forward, METH_FASTCALL,
     "max_pooling_2d_forward(x, kh, kw, sy, sx, ph, pw, y, indexes) -> bool\n\nMaximum and flat argmax of each "
     "window, into y and indexes (see chainer.backends.cpu_kernels.SLOTS)."},
    {"max_pooling_2d_backward", (PyCFunction)(void (*)(void))ck_max_pooling_2d_backward, METH_FASTCALL,
     "max_pooling_2d_backward(gy, indexes, kh, kw, sy, sx, ph, pw, gx) -> bool\n\ngx = each gy added at the "
     "element its index names, zero elsewhere (see chainer.backends.cpu_kernels.SLOTS)."},
    {"relu_backward", (PyCFunction)(void (*)(void))ck_relu_backward, METH_FASTCALL,
     "relu_backward(y, gy, gx) -> bool\n\ngx = gy * (y > 0), in one pass."},
    {"im2col", (PyCFunction)(void (*)(void))ck_im2col, METH_FASTCALL,
     "im2col(x, ksize, stride, pad, dilate, outsize, col) -> bool\n\nThe patch matrix of x, padding zeros included, "
     "into col (see chainer.backends.cpu_kernels.SLOTS)."},
    {"col2im", (PyCFunction)(void (*)(void))ck_col2im, METH_FASTCALL,
     "col2im(col, ksize, stride, pad, dilate, outsize, img) -> bool\n\nimg = the sum of the patches of col at their "
     "places (the adjoint of im2col)."},
    {"lstm_forward", (PyCFunction)(void (*)(void))ck_lstm_forward, METH_FASTCALL,
     "lstm_forward(c_prev, x, c, h) -> bool\n\nOne LSTM step, the gates of x interleaved per unit, into c and h "
     "(see chainer.backends.cpu_kernels.SLOTS)."},
    {"lstm_backward", (PyCFunction)(void (*)(void))ck_lstm_backward, METH_FASTCALL,
     "lstm_backward(c_prev, x, c, gc, gh, gc_prev, gx) -> bool\n\nThe gradients of lstm_forward into gc_prev and gx "
     "(see chainer.backends.cpu_kernels.SLOTS)."},
    {"softmax_cross_entropy_forward", (PyCFunction)(void (*)(void))ck_softmax_cross_entropy_forward, METH_FASTCALL,
     "softmax_cross_entropy_forward(x, t, ignore_label, class_weight, y, loss) -> int\n\nThe loss of each row "
     "and the softmax, one pass per row; the count of rows not ignored, or -1 to decline (see "
     "chainer.backends.cpu_kernels.SLOTS)."},
    {"softmax_cross_entropy_backward", (PyCFunction)(void (*)(void))ck_softmax_cross_entropy_backward, METH_FASTCALL,
     "softmax_cross_entropy_backward(y, t, ignore_label, class_weight, gy, coeff, gx) -> bool\n\nThe gradient of "
     "the loss from the softmax y, into gx (see chainer.backends.cpu_kernels.SLOTS)."},
    {"embed_id_backward", (PyCFunction)(void (*)(void))ck_embed_id_backward, METH_FASTCALL,
     "embed_id_backward(ids, gy, ignore_label, gW) -> bool\n\ngW = the rows of gy added at the rows their ids name "
     "(see chainer.backends.cpu_kernels.SLOTS)."},
    {"transpose_add_bias", (PyCFunction)(void (*)(void))ck_transpose_add_bias, METH_FASTCALL,
     "transpose_add_bias(yt, b, y) -> bool\n\ny = yt.T + b (b None: the transposed copy), cache-blocked (see "
     "chainer.backends.cpu_kernels.SLOTS)."},
    {"embed_id_backward_accumulate", (PyCFunction)(void (*)(void))ck_embed_id_backward_accumulate, METH_FASTCALL,
     "embed_id_backward_accumulate(ids, gy, ignore_label, gW) -> bool\n\ngW += the weight gradient of F.embed_id "
     "(see chainer.backends.cpu_kernels.SLOTS)."},
    {"gemm_tn_accumulate", (PyCFunction)(void (*)(void))ck_gemm_tn_accumulate, METH_FASTCALL,
     "gemm_tn_accumulate(a, b, c) -> bool\n\nc += a.T @ b through NumPy's own BLAS (GEMM with beta = 1), the bits of "
     "c + a.T.dot(b); False where that BLAS was not found (see chainer.backends.cpu_kernels.SLOTS)."},
    {"tune_malloc", (PyCFunction)(void (*)(void))ck_tune_malloc, METH_FASTCALL,
     "tune_malloc(trim_threshold, mmap_threshold) -> bool\n\nKeep freed memory of glibc's heap for reuse (see "
     "chainer_cpu_kernels.plugin); False where the C library is not glibc."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "chainer_cpu_kernels._ops",
    .m_doc = "Compiled CPU kernels of chainer-cpu-kernels (registered through chainer_cpu_kernels.plugin).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__ops(void)
{
    return PyModule_Create(&module);
}
