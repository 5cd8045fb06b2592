/* The LSTM cell (F.lstm) forward and backward, each in one pass over the gates.
 *
 * x holds the gate pre-activations interleaved per unit: x[n, 4k + (0, 1, 2, 3)] are
 * a, i, f, o of unit k. NumPy needs a pass per operation (scale, tanh, the sigmoid map,
 * then c, tanh(c) and h, and a dozen more for the gradients); here one loop over the
 * units does all of it. float32 only: the exponentials are fastmath.h's; float64
 * (and arrays of other ranks than 2) are declined and take NumPy. */
#include "kernels.h"

#include "fastmath.h"

#include <string.h>

/* c = a i + f c_prev and h = o tanh(c) for units [0, units): the first rows' worth. The
 * products are NumPy's, in its order (a * i + f * c_prev, o * tanh(c)). One loop over the
 * units: GCC vectorises it with the four gates of 8 units de-interleaved by permutes. */
CK_CLONES static void lstm_forward_f32(const float *restrict c_prev, const float *restrict x, float *restrict c,
                                       float *restrict h, Py_ssize_t units)
{
    for (Py_ssize_t u = 0; u < units; u++) {
        const float a = ck_tanhf(x[4 * u]), i = ck_sigmoidf(x[4 * u + 1]);
        const float f = ck_sigmoidf(x[4 * u + 2]), o = ck_sigmoidf(x[4 * u + 3]);
        const float cu = a * i + f * c_prev[u];
        c[u] = cu;
        h[u] = o * ck_tanhf(cu);
    }
}

/* The gradients of lstm_forward_f32 for units [0, units), in the order of operations of
 * chainer-core's NumPy code:
 *   co = gc + gh o (1 - tanh(c)^2),     gc_prev = co f,
 *   ga = co i (1 - a^2),  gi = co a i (1 - i),  gf = co c_prev f (1 - f),  go = gh tanh(c) o (1 - o). */
CK_CLONES static void lstm_backward_f32(const float *restrict c_prev, const float *restrict x,
                                        const float *restrict c, const float *restrict gc,
                                        const float *restrict gh, float *restrict gc_prev, float *restrict gx,
                                        Py_ssize_t units)
{
    for (Py_ssize_t u = 0; u < units; u++) {
        const float a = ck_tanhf(x[4 * u]), i = ck_sigmoidf(x[4 * u + 1]);
        const float f = ck_sigmoidf(x[4 * u + 2]), o = ck_sigmoidf(x[4 * u + 3]);
        const float t = ck_tanhf(c[u]), ghu = gh[u];
        const float co = gc[u] + ghu * o * (1.0f - t * t);
        gc_prev[u] = co * f;
        gx[4 * u] = co * i * (1.0f - a * a);
        gx[4 * u + 1] = co * a * i * (1.0f - i);
        gx[4 * u + 2] = co * c_prev[u] * f * (1.0f - f);
        gx[4 * u + 3] = ghu * t * o * (1.0f - o);
    }
}

/* Acquire `n` arrays for an LSTM kernel: 1 when all are C-contiguous float32 matrices, 0 to
 * decline (nothing held; float64 and other ranks included), -1 with an exception set. */
static int acquire_matrices(const char *const *names, PyObject *const *objects, const int *writable,
                            ck_array *arrays, int n)
{
    for (int i = 0; i < n; i++)
        arrays[i].view.obj = NULL;
    for (int i = 0; i < n; i++) {
        int got = ck_acquire(objects[i], &arrays[i], writable[i]);
        if (got != 1 || arrays[i].dtype != CK_F32 || arrays[i].view.ndim != 2) {
            ck_release_all(arrays, n);
            return got < 0 ? -1 : 0;
        }
    }
    return 1;
}

/* ValueError naming the kernel unless `a` is (rows, cols); -1 then. */
static int check_matrix(const char *kernel, const char *name, const ck_array *a, Py_ssize_t rows, Py_ssize_t cols,
                        const char *expected)
{
    if (a->view.shape[0] == rows && a->view.shape[1] == cols)
        return 0;
    PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s has shape (%zd, %zd), expected (%zd, %zd) (%s)", kernel,
                 name, a->view.shape[0], a->view.shape[1], rows, cols, expected);
    return -1;
}

/* The shapes of the LSTM step's arrays, from c_prev (B, H) and x (b, 4H): b <= B. */
typedef struct {
    Py_ssize_t rows, batch, units;
} lstm_shape;

static int lstm_geometry(const char *kernel, const ck_array *c_prev, const ck_array *x, lstm_shape *s)
{
    s->rows = c_prev->view.shape[0];
    s->units = c_prev->view.shape[1];
    s->batch = x->view.shape[0];
    if (s->batch > s->rows || x->view.shape[1] / 4 != s->units || x->view.shape[1] % 4 != 0) {
        PyErr_Format(PyExc_ValueError,
                     "chainer_cpu_kernels.%s: x has shape (%zd, %zd), expected (b, 4 * %zd) with b <= %zd like c_prev",
                     kernel, x->view.shape[0], x->view.shape[1], s->units, s->rows);
        return -1;
    }
    return 0;
}

PyObject *ck_lstm_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "lstm_forward";
    static const char *const names[] = {"c_prev", "x", "c", "h"};
    static const int writable[] = {0, 0, 1, 1};
    if (ck_check_nargs(kernel, nargs, 4) < 0)
        return NULL;
    ck_array arr[4];
    int got = acquire_matrices(names, args, writable, arr, 4);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    lstm_shape s;
    if (lstm_geometry(kernel, &arr[0], &arr[1], &s) < 0 ||
        check_matrix(kernel, "c", &arr[2], s.rows, s.units, "like c_prev") < 0 ||
        check_matrix(kernel, "h", &arr[3], s.batch, s.units, "the rows of x, the units of c_prev") < 0) {
        ck_release_all(arr, 4);
        return NULL;
    }
    const float *c_prev = arr[0].view.buf;
    float *c = arr[2].view.buf;
    Py_BEGIN_ALLOW_THREADS
    lstm_forward_f32(c_prev, arr[1].view.buf, c, arr[3].view.buf, s.batch * s.units);
    /* Rows past the batch of x pass through. */
    if (s.rows > s.batch)
        memcpy(c + s.batch * s.units, c_prev + s.batch * s.units, (size_t)((s.rows - s.batch) * s.units) * sizeof(float));
    Py_END_ALLOW_THREADS
    ck_release_all(arr, 4);
    Py_RETURN_TRUE;
}

PyObject *ck_lstm_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "lstm_backward";
    static const char *const names[] = {"c_prev", "x", "c", "gc", "gh", "gc_prev", "gx"};
    static const int writable[] = {0, 0, 0, 0, 0, 1, 1};
    if (ck_check_nargs(kernel, nargs, 7) < 0)
        return NULL;
    ck_array arr[7];
    int got = acquire_matrices(names, args, writable, arr, 7);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    lstm_shape s;
    if (lstm_geometry(kernel, &arr[0], &arr[1], &s) < 0 ||
        check_matrix(kernel, "c", &arr[2], s.rows, s.units, "like c_prev") < 0 ||
        check_matrix(kernel, "gc", &arr[3], s.rows, s.units, "like c_prev") < 0 ||
        check_matrix(kernel, "gh", &arr[4], s.batch, s.units, "the rows of x, the units of c_prev") < 0 ||
        check_matrix(kernel, "gc_prev", &arr[5], s.rows, s.units, "like c_prev") < 0 ||
        check_matrix(kernel, "gx", &arr[6], s.batch, 4 * s.units, "like x") < 0) {
        ck_release_all(arr, 7);
        return NULL;
    }
    const float *gc = arr[3].view.buf;
    float *gc_prev = arr[5].view.buf;
    Py_BEGIN_ALLOW_THREADS
    lstm_backward_f32(arr[0].view.buf, arr[1].view.buf, arr[2].view.buf, gc, arr[4].view.buf, gc_prev,
                      arr[6].view.buf, s.batch * s.units);
    /* Rows past the batch of x passed through: their gradient is gc's. */
    if (s.rows > s.batch)
        memcpy(gc_prev + s.batch * s.units, gc + s.batch * s.units, (size_t)((s.rows - s.batch) * s.units) * sizeof(float));
    Py_END_ALLOW_THREADS
    ck_release_all(arr, 7);
    Py_RETURN_TRUE;
}
