/* Patch matrices of the CPU convolutions (im2col) and their adjoint (col2im), for one to
 * three spatial axes. chainer-core's NumPy code pads the input (a full copy) and copies
 * from a strided view of it; these loops read the unpadded input and write the padding
 * zeros in the same pass.
 *
 * Layouts (see the slots in chainer.backends.cpu_kernels.SLOTS): an image is
 * x[N][C][*in], a patch matrix col[N][G][R][L] with L = prod(outsize) and, per group,
 * the R >= (C / G) * prod(ksize) rows ordered (channel, kernel offset...); rows past
 * those are the caller's (the forward's row of ones for the bias). Fewer than three
 * spatial axes are handled as three with leading axes of size 1. */
#include "kernels.h"

#include <string.h>

typedef struct {
    Py_ssize_t in[3], out[3], k[3], s[3], p[3], d[3];
    Py_ssize_t n, c, groups, rows, kdim;
} geometry;

/* Output positions o in [lo, hi) read input positions o * s + offset inside [0, size).
 * The ceilings are written (x - 1) / s + 1, not (x + s - 1) / s: a stride near
 * PY_SSIZE_T_MAX (harmless with one output position) must not overflow. */
static void valid_range(Py_ssize_t offset, Py_ssize_t s, Py_ssize_t size, Py_ssize_t out, Py_ssize_t *lo,
                        Py_ssize_t *hi)
{
    Py_ssize_t a = offset >= 0 ? 0 : (-offset - 1) / s + 1;
    Py_ssize_t b = size - offset <= 0 ? 0 : (size - offset - 1) / s + 1;
    a = a < out ? a : out;
    b = b < out ? b : out;
    *lo = a;
    *hi = b > a ? b : a;
}

/* Where kernel offset (kh, kw) reads the last two axes: the input row and column seen
 * by output (0, 0), and the outputs [oh_lo, oh_hi) x [ow_lo, ow_hi) that read inside
 * the image (the others read padding). Shared by im2col's rows and their adjoint. */
typedef struct {
    Py_ssize_t r0, c0, oh_lo, oh_hi, ow_lo, ow_hi;
} row_window;

static inline row_window window_of(const geometry *g, Py_ssize_t kh, Py_ssize_t kw)
{
    row_window w;
    w.r0 = kh * g->d[1] - g->p[1];
    w.c0 = kw * g->d[2] - g->p[2];
    valid_range(w.r0, g->s[1], g->in[1], g->out[1], &w.oh_lo, &w.oh_hi);
    valid_range(w.c0, g->s[2], g->in[2], g->out[2], &w.ow_lo, &w.ow_hi);
    return w;
}

/* One row of a patch matrix: the plane `src` (in[1] x in[2] for each of in[0]) seen
 * through kernel offset (kd, kh, kw). With unit strides on the last two axes and as many
 * output as input columns, a kernel offset is a constant shift of the flat index over a
 * whole output plane: one copy, then zeros over the columns that fell outside. The
 * 3x3, stride 1, "same" padding convolutions take that path. */
#define IM2COL_ROW(NAME, T)                                                                          \
    CK_CLONES static void NAME(T *restrict dst, const T *restrict src, const geometry *g, Py_ssize_t kd, \
                               Py_ssize_t kh, Py_ssize_t kw)                                         \
    {                                                                                                \
        const Py_ssize_t OH = g->out[1], OW = g->out[2], IH = g->in[1], IW = g->in[2];               \
        const Py_ssize_t sh = g->s[1], sw = g->s[2];                                                 \
        const row_window win = window_of(g, kh, kw);                                                 \
        const Py_ssize_t r0 = win.r0, c0 = win.c0, oh_lo = win.oh_lo, oh_hi = win.oh_hi;             \
        const Py_ssize_t ow_lo = win.ow_lo, ow_hi = win.ow_hi;                                       \
        const int flat = sh == 1 && sw == 1 && OW == IW;                                             \
        for (Py_ssize_t od = 0; od < g->out[0]; od++) {                                              \
            T *plane = dst + od * OH * OW;                                                           \
            const Py_ssize_t id = od * g->s[0] + kd * g->d[0] - g->p[0];                             \
            if (id < 0 || id >= g->in[0] || oh_lo == oh_hi || ow_lo == ow_hi) {                      \
                memset(plane, 0, (size_t)(OH * OW) * sizeof(T));                                     \
                continue;                                                                            \
            }                                                                                        \
            const T *in = src + id * IH * IW;                                                        \
            memset(plane, 0, (size_t)(oh_lo * OW) * sizeof(T));                                      \
            memset(plane + oh_hi * OW, 0, (size_t)((OH - oh_hi) * OW) * sizeof(T));                  \
            if (flat) {                                                                              \
                const Py_ssize_t first = oh_lo * OW + ow_lo, last = (oh_hi - 1) * OW + ow_hi;         \
                memcpy(plane + first, in + first + r0 * IW + c0, (size_t)(last - first) * sizeof(T)); \
                for (Py_ssize_t oh = oh_lo; oh < oh_hi; oh++) {                                      \
                    T *row = plane + oh * OW;                                                        \
                    for (Py_ssize_t ow = 0; ow < ow_lo; ow++)                                        \
                        row[ow] = 0;                                                                 \
                    for (Py_ssize_t ow = ow_hi; ow < OW; ow++)                                       \
                        row[ow] = 0;                                                                 \
                }                                                                                    \
                continue;                                                                            \
            }                                                                                        \
            for (Py_ssize_t oh = oh_lo; oh < oh_hi; oh++) {                                          \
                T *restrict row = plane + oh * OW;                                                   \
                const T *restrict line = in + (oh * sh + r0) * IW + c0;                              \
                for (Py_ssize_t ow = 0; ow < ow_lo; ow++)                                            \
                    row[ow] = 0;                                                                     \
                if (sw == 1) {                                                                       \
                    for (Py_ssize_t ow = ow_lo; ow < ow_hi; ow++)                                    \
                        row[ow] = line[ow];                                                          \
                } else {                                                                             \
                    for (Py_ssize_t ow = ow_lo; ow < ow_hi; ow++)                                    \
                        row[ow] = line[ow * sw];                                                     \
                }                                                                                    \
                for (Py_ssize_t ow = ow_hi; ow < OW; ow++)                                           \
                    row[ow] = 0;                                                                     \
            }                                                                                        \
        }                                                                                            \
    }

/* The adjoint of one row: add it back onto the plane `dst` (in the kernel offsets'
 * order, as chainer-core's col2im does, so the sums round alike). */
#define COL2IM_ROW(NAME, T)                                                                          \
    CK_CLONES static void NAME(T *restrict dst, const T *restrict src, const geometry *g, Py_ssize_t kd, \
                               Py_ssize_t kh, Py_ssize_t kw)                                         \
    {                                                                                                \
        const Py_ssize_t OH = g->out[1], OW = g->out[2], IH = g->in[1], IW = g->in[2];               \
        const Py_ssize_t sh = g->s[1], sw = g->s[2];                                                 \
        const row_window win = window_of(g, kh, kw);                                                 \
        const Py_ssize_t r0 = win.r0, c0 = win.c0, oh_lo = win.oh_lo, oh_hi = win.oh_hi;             \
        const Py_ssize_t ow_lo = win.ow_lo, ow_hi = win.ow_hi;                                       \
        for (Py_ssize_t od = 0; od < g->out[0]; od++) {                                              \
            const Py_ssize_t id = od * g->s[0] + kd * g->d[0] - g->p[0];                             \
            if (id < 0 || id >= g->in[0])                                                            \
                continue;                                                                            \
            const T *plane = src + od * OH * OW;                                                     \
            T *out = dst + id * IH * IW;                                                             \
            for (Py_ssize_t oh = oh_lo; oh < oh_hi; oh++) {                                          \
                const T *restrict row = plane + oh * OW;                                             \
                T *restrict line = out + (oh * sh + r0) * IW + c0;                                   \
                if (sw == 1) {                                                                       \
                    for (Py_ssize_t ow = ow_lo; ow < ow_hi; ow++)                                    \
                        line[ow] += row[ow];                                                         \
                } else {                                                                             \
                    for (Py_ssize_t ow = ow_lo; ow < ow_hi; ow++)                                    \
                        line[ow * sw] += row[ow];                                                    \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
    }

/* Every (image, group, channel, kernel offset) row of col against its image plane. */
#define SWEEP(NAME, T, ROW, IMG_CONST, COL_CONST)                                                    \
    static void NAME(IMG_CONST T *img, COL_CONST T *col, const geometry *g)                          \
    {                                                                                                \
        const Py_ssize_t plane = g->in[0] * g->in[1] * g->in[2];                                     \
        const Py_ssize_t L = g->out[0] * g->out[1] * g->out[2], cg = g->c / g->groups;               \
        for (Py_ssize_t n = 0; n < g->n; n++)                                                        \
            for (Py_ssize_t grp = 0; grp < g->groups; grp++) {                                       \
                COL_CONST T *rows = col + (n * g->groups + grp) * g->rows * L;                       \
                for (Py_ssize_t ci = 0; ci < cg; ci++) {                                             \
                    IMG_CONST T *image = img + (n * g->c + grp * cg + ci) * plane;                   \
                    for (Py_ssize_t kd = 0; kd < g->k[0]; kd++)                                      \
                        for (Py_ssize_t kh = 0; kh < g->k[1]; kh++)                                  \
                            for (Py_ssize_t kw = 0; kw < g->k[2]; kw++) {                            \
                                ROW(rows, image, g, kd, kh, kw);                                     \
                                rows += L;                                                           \
                            }                                                                        \
                }                                                                                    \
            }                                                                                        \
    }

IM2COL_ROW(im2col_row_f32, float)
IM2COL_ROW(im2col_row_f64, double)
COL2IM_ROW(col2im_row_f32, float)
COL2IM_ROW(col2im_row_f64, double)

/* col2im's row function takes (img, col); swap the arguments of the shared sweep. */
#define COL2IM_F32(rows, image, g, kd, kh, kw) col2im_row_f32(image, rows, g, kd, kh, kw)
#define COL2IM_F64(rows, image, g, kd, kh, kw) col2im_row_f64(image, rows, g, kd, kh, kw)

SWEEP(im2col_f32, float, im2col_row_f32, const, )
SWEEP(im2col_f64, double, im2col_row_f64, const, )
SWEEP(col2im_f32, float, COL2IM_F32, , const)
SWEEP(col2im_f64, double, COL2IM_F64, , const)

/* A sequence of `nd` ints >= minimum into out[3 - nd ...]; -1 with an exception set. The
 * sequence is copied into a tuple first: an element's __index__ could otherwise change a
 * list while it is being read. */
static int get_ints(const char *kernel, const char *name, PyObject *obj, int nd, Py_ssize_t minimum,
                    Py_ssize_t *out)
{
    PyObject *seq = PySequence_Check(obj) ? PySequence_Tuple(obj) : NULL;
    if (seq == NULL || PyTuple_GET_SIZE(seq) != nd) {
        Py_XDECREF(seq);
        PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s must be a sequence of %d ints (one per spatial "
                     "axis of the image), got %R", kernel, name, nd, obj);
        return -1;
    }
    for (int i = 0; i < nd; i++) {
        Py_ssize_t v = PyNumber_AsSsize_t(PyTuple_GET_ITEM(seq, i), PyExc_OverflowError);
        if (v == -1 && PyErr_Occurred()) {
            const int overflow = PyErr_ExceptionMatches(PyExc_OverflowError);
            PyErr_Clear();
            if (overflow)
                PyErr_Format(PyExc_OverflowError, "chainer_cpu_kernels.%s: %s must hold ints of at most %zd (a C "
                             "Py_ssize_t), got %R", kernel, name, PY_SSIZE_T_MAX, seq);
            else
                PyErr_Format(PyExc_TypeError, "chainer_cpu_kernels.%s: %s must contain ints, got %R", kernel, name,
                             seq);
            Py_DECREF(seq);
            return -1;
        }
        if (v < minimum) {
            PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s must be >= %zd on every axis, got %R", kernel,
                         name, minimum, seq);
            Py_DECREF(seq);
            return -1;
        }
        out[3 - nd + i] = v;
    }
    Py_DECREF(seq);
    return 0;
}

/* The loops compute, per axis, input positions o * s + k * d - p (o < outsize, k < ksize)
 * and the bounds of valid_range(); all lie within +-((outsize - 1) * stride + (ksize - 1)
 * * dilate + pad + image size). Refuse (ValueError) a geometry for which that bound
 * exceeds PY_SSIZE_T_MAX, so that no index computation can overflow. */
static int check_axes(const char *kernel, const geometry *g, int nd)
{
    for (int i = 3 - nd; i < 3; i++) {
        Py_ssize_t reach, span, bound;
        if (ck_mul(g->out[i] - 1, g->s[i], &reach) < 0 || ck_mul(g->k[i] - 1, g->d[i], &span) < 0 ||
            ck_add(reach, span, &bound) < 0 || ck_add(bound, g->p[i], &bound) < 0 ||
            ck_add(bound, g->in[i], &bound) < 0) {
            PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: the geometry of spatial axis %d overflows: "
                         "(outsize - 1) * stride + (ksize - 1) * dilate + pad + image size must be at most %zd, got "
                         "outsize %zd, stride %zd, ksize %zd, dilate %zd, pad %zd, image size %zd",
                         kernel, i - (3 - nd), PY_SSIZE_T_MAX, g->out[i], g->s[i], g->k[i], g->d[i], g->p[i],
                         g->in[i]);
            return -1;
        }
    }
    return 0;
}

/* Parse (img, ksize, stride, pad, dilate, outsize, col) of either kernel. Returns 1 with
 * both arrays acquired (arr[0] the image, arr[1] col), 0 to decline, -1 on error. */
static int parse(const char *kernel, PyObject *const *args, Py_ssize_t nargs, int img_writable, geometry *g,
                 ck_array *arr)
{
    static const char *const names[] = {"ksize", "stride", "pad", "dilate", "outsize"};
    static const Py_ssize_t minimum[] = {1, 1, 0, 1, 1};
    if (ck_check_nargs(kernel, nargs, 7) < 0)
        return -1;
    const int img_at = img_writable ? 6 : 0, col_at = img_writable ? 0 : 6;
    arr[0].view.obj = arr[1].view.obj = NULL;
    int got = ck_acquire(args[img_at], &arr[0], img_writable);
    if (got == 1)
        got = ck_acquire(args[col_at], &arr[1], !img_writable);
    if (got == 1 && (arr[0].dtype != arr[1].dtype || arr[0].view.ndim < 3 || arr[0].view.ndim > 5))
        got = 0; /* other dtypes, or a number of spatial axes this file does not handle */
    if (got != 1) {
        ck_release_all(arr, 2);
        return got;
    }
    const int nd = arr[0].view.ndim - 2;
    Py_ssize_t *fields[] = {g->k, g->s, g->p, g->d, g->out};
    for (int f = 0; f < 5; f++) {
        for (int i = 0; i < 3; i++)
            fields[f][i] = f == 2 ? 0 : 1;
        if (get_ints(kernel, names[f], args[1 + f], nd, minimum[f], fields[f]) < 0) {
            ck_release_all(arr, 2);
            return -1;
        }
    }
    const Py_ssize_t *shape = arr[0].view.shape, *col_shape = arr[1].view.shape;
    g->n = shape[0];
    g->c = shape[1];
    for (int i = 0; i < 3; i++)
        g->in[i] = i < 3 - nd ? 1 : shape[2 + i - (3 - nd)];
    if (check_axes(kernel, g, nd) < 0) {
        ck_release_all(arr, 2);
        return -1;
    }
    /* Products that overflow cannot match the lengths of a real col: they are reported as
     * a wrong col shape, with -1 in the message for the product. */
    Py_ssize_t L = -1, kdim = -1, needed_rows = -1;
    if (ck_mul(g->out[0], g->out[1], &L) < 0 || ck_mul(L, g->out[2], &L) < 0)
        L = -1;
    if (ck_mul(g->k[0], g->k[1], &kdim) < 0 || ck_mul(kdim, g->k[2], &kdim) < 0)
        kdim = -1;
    const int col_ok = arr[1].view.ndim == 4 && col_shape[0] == g->n && col_shape[1] >= 1 && L >= 0 &&
                       kdim >= 0 && g->c % col_shape[1] == 0 && ck_mul(g->c / col_shape[1], kdim, &needed_rows) == 0 &&
                       col_shape[2] >= needed_rows && col_shape[3] == L;
    if (!col_ok) {
        PyObject *got_shape = PyTuple_New(arr[1].view.ndim);
        for (int i = 0; got_shape != NULL && i < arr[1].view.ndim; i++)
            PyTuple_SET_ITEM(got_shape, i, PyLong_FromSsize_t(col_shape[i]));
        if (got_shape != NULL)
            PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: col must have the shape (N, G, R, L) with N = %zd "
                         "images, G groups dividing the %zd channels, R >= channels / G * %zd kernel offsets and "
                         "L = %zd output positions; got %R", kernel, g->n, g->c, kdim, L, got_shape);
        Py_XDECREF(got_shape);
        ck_release_all(arr, 2);
        return -1;
    }
    g->groups = col_shape[1];
    g->rows = col_shape[2];
    g->kdim = needed_rows;
    return 1;
}

PyObject *ck_im2col(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    geometry g;
    ck_array arr[2];
    int got = parse("im2col", args, nargs, 0, &g, arr);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    Py_BEGIN_ALLOW_THREADS
    if (arr[0].dtype == CK_F32)
        im2col_f32(arr[0].view.buf, arr[1].view.buf, &g);
    else
        im2col_f64(arr[0].view.buf, arr[1].view.buf, &g);
    Py_END_ALLOW_THREADS
    ck_release_all(arr, 2);
    Py_RETURN_TRUE;
}

PyObject *ck_col2im(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    geometry g;
    ck_array arr[2];
    int got = parse("col2im", args, nargs, 1, &g, arr);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    Py_BEGIN_ALLOW_THREADS
    memset(arr[0].view.buf, 0, (size_t)arr[0].view.len);
    if (arr[0].dtype == CK_F32)
        col2im_f32(arr[0].view.buf, arr[1].view.buf, &g);
    else
        col2im_f64(arr[0].view.buf, arr[1].view.buf, &g);
    Py_END_ALLOW_THREADS
    ck_release_all(arr, 2);
    Py_RETURN_TRUE;
}
