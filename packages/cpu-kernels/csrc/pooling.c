/* Max pooling over two spatial axes, in one pass over the input (forward) or over the
 * output gradient (backward), with the index encoding of chainer-core's NumPy code: per
 * output, the flat offset dy * kw + dx inside the window of its first maximum, as int8 or
 * int32. Either side may then run on either code: a NumPy forward with a compiled
 * backward, and the double backward (an index gather in NumPy) reads the same indexes.
 *
 * Window (oy, ox) covers rows oy * sy - ph + [0, kh) and columns ox * sx - pw + [0, kw);
 * rows and columns outside the image are padding, which never wins (it is -inf). The
 * comparison is NumPy's: a later element takes the window only when strictly greater, and
 * a NaN makes the maximum NaN while the index stays where it was. */
#include "kernels.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    Py_ssize_t planes, h, w, oh, ow, kh, kw, sy, sx, ph, pw;
} pool_geometry;

/* Outputs per run of the vectorised loops (their indexes wait in an int buffer). */
#define POOL_BLOCK 512
/* Larger windows are declined (their index tables would not fit on the stack; the NumPy
 * code handles them). */
#define POOL_MAX_WINDOW 4096

typedef enum { IDX_NONE = 0, IDX_I8 = 1, IDX_I32 = 2 } idx_type;

/* Ranges [lo, hi) of the window offsets that fall inside an axis of length n for a window
 * starting at `start` (hi <= lo when the window is all padding). */
#define CLIP_LO(start) ((start) < 0 ? -(start) : 0)
#define CLIP_HI(start, k, n) ((n) - (start) < (k) ? (n) - (start) : (k))

/* The comparison of the header comment, as branch-free selects (data-dependent branches
 * mispredict half of the time on real data). */
#define POOL_TAKE(v, t, best, t_best)                                                                 \
    do {                                                                                             \
        const int more_ = isgreater((v), (best));                                                    \
        (t_best) = more_ ? (t) : (t_best);                                                           \
        (best) = (more_ | isunordered((v), (v))) ? (v) : (best);                                     \
    } while (0)

/* Any geometry. Windows that reach into the padding columns are computed one at a time
 * with bounds checks; the others of an output row a run at a time, kernel offset by
 * kernel offset over the whole run (a loop over outputs, which vectorises, in the same
 * order of offsets). Only the rows dy0 <= dy < dy1 of the windows are inside the image. */
#define MAX_GENERAL(NAME, T, I)                                                                       \
    static inline void NAME##_run(const T *restrict xp, Py_ssize_t base, T *restrict yr,             \
                                  int *restrict tr, Py_ssize_t n, Py_ssize_t sx, const pool_geometry *g, \
                                  Py_ssize_t dy0, Py_ssize_t dy1)                                    \
    {                                                                                                \
        for (Py_ssize_t i = 0; i < n; i++) {                                                         \
            yr[i] = (T)-INFINITY;                                                                    \
            tr[i] = 0;                                                                               \
        }                                                                                            \
        for (Py_ssize_t dy = dy0; dy < dy1; dy++) {                                                  \
            for (Py_ssize_t dx = 0; dx < g->kw; dx++) {                                              \
                const int t = (int)(dy * g->kw + dx);                                                \
                const T *restrict src = xp + base + dy * g->w + dx;                                  \
                for (Py_ssize_t i = 0; i < n; i++) {                                                 \
                    const T v = src[i * sx];                                                         \
                    T best = yr[i];                                                                  \
                    int t_best = tr[i];                                                              \
                    POOL_TAKE(v, t, best, t_best);                                                   \
                    yr[i] = best;                                                                    \
                    tr[i] = t_best;                                                                  \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
    }                                                                                                \
    static inline void NAME##_border(const T *xp, Py_ssize_t y0, Py_ssize_t dy0, Py_ssize_t dy1,     \
                                     Py_ssize_t x0, const pool_geometry *g, T *out, I *index)        \
    {                                                                                                \
        const Py_ssize_t dx0 = CLIP_LO(x0), dx1 = CLIP_HI(x0, g->kw, g->w);                          \
        T best = (T)-INFINITY;                                                                       \
        Py_ssize_t t_best = 0;                                                                       \
        for (Py_ssize_t dy = dy0; dy < dy1; dy++)                                                    \
            for (Py_ssize_t dx = dx0; dx < dx1; dx++)                                                \
                POOL_TAKE(xp[(y0 + dy) * g->w + x0 + dx], dy * g->kw + dx, best, t_best);            \
        *out = best;                                                                                 \
        *index = (I)t_best;                                                                          \
    }                                                                                                \
    CK_CLONES static void NAME(const T *x, T *y, I *idx, const pool_geometry *g)                     \
    {                                                                                                \
        int t_block[POOL_BLOCK];                                                                     \
        const Py_ssize_t hw = g->h * g->w, ohw = g->oh * g->ow, sx = g->sx;                          \
        /* Outputs [lo, hi) have their windows inside the columns of the image. */                  \
        Py_ssize_t lo = (g->pw + sx - 1) / sx, hi = 0;                                               \
        if (g->w + g->pw - g->kw >= 0)                                                               \
            hi = (g->w + g->pw - g->kw) / sx + 1;                                                    \
        lo = lo < g->ow ? lo : g->ow;                                                                \
        hi = hi < g->ow ? hi : g->ow;                                                                \
        hi = hi > lo ? hi : lo;                                                                      \
        for (Py_ssize_t p = 0; p < g->planes; p++) {                                                 \
            const T *xp = x + p * hw;                                                                \
            for (Py_ssize_t oy = 0; oy < g->oh; oy++) {                                              \
                const Py_ssize_t y0 = oy * g->sy - g->ph;                                            \
                const Py_ssize_t dy0 = CLIP_LO(y0), dy1 = CLIP_HI(y0, g->kh, g->h);                  \
                T *yr = y + p * ohw + oy * g->ow;                                                    \
                I *ir = idx + p * ohw + oy * g->ow;                                                  \
                for (Py_ssize_t ox = 0; ox < lo; ox++)                                               \
                    NAME##_border(xp, y0, dy0, dy1, ox * sx - g->pw, g, yr + ox, ir + ox);           \
                for (Py_ssize_t start = lo; start < hi; start += POOL_BLOCK) {                       \
                    const Py_ssize_t n = hi - start < POOL_BLOCK ? hi - start : POOL_BLOCK;          \
                    const Py_ssize_t base = y0 * g->w + start * sx - g->pw;                          \
                    if (sx == 1)                                                                     \
                        NAME##_run(xp, base, yr + start, t_block, n, 1, g, dy0, dy1);                \
                    else if (sx == 2)                                                                \
                        NAME##_run(xp, base, yr + start, t_block, n, 2, g, dy0, dy1);                \
                    else                                                                             \
                        NAME##_run(xp, base, yr + start, t_block, n, sx, g, dy0, dy1);               \
                    for (Py_ssize_t i = 0; i < n; i++)                                               \
                        ir[start + i] = (I)t_block[i];                                               \
                }                                                                                    \
                for (Py_ssize_t ox = hi; ox < g->ow; ox++)                                           \
                    NAME##_border(xp, y0, dy0, dy1, ox * sx - g->pw, g, yr + ox, ir + ox);           \
            }                                                                                        \
        }                                                                                            \
    }

/* ksize = stride = 2 without padding, the windows tiling the image exactly (the common
 * case in CNNs): branch-free selects over the four elements, which vectorise. The indexes
 * go through an int buffer, narrowed to I once per POOL_BLOCK outputs: a loop storing
 * int8 directly is vectorised 32 outputs at a time and leaves short rows (small images)
 * to scalar code. One run of outputs per call of the inline function, so that restrict
 * tells the compiler that the input rows and the outputs do not overlap. */
#define MAX_2X2(NAME, T, I)                                                                           \
    static inline void NAME##_run(const T *restrict r0, const T *restrict r1, T *restrict yr,        \
                                  int *restrict tr, Py_ssize_t n)                                    \
    {                                                                                                \
        for (Py_ssize_t i = 0; i < n; i++) {                                                         \
            T best = r0[2 * i];                                                                      \
            int t = 0;                                                                               \
            const T v1 = r0[2 * i + 1], v2 = r1[2 * i], v3 = r1[2 * i + 1];                         \
            int more = isgreater(v1, best);                                                          \
            t = more ? 1 : t;                                                                        \
            best = (more | isunordered(v1, v1)) ? v1 : best;                                         \
            more = isgreater(v2, best);                                                              \
            t = more ? 2 : t;                                                                        \
            best = (more | isunordered(v2, v2)) ? v2 : best;                                         \
            more = isgreater(v3, best);                                                              \
            t = more ? 3 : t;                                                                        \
            best = (more | isunordered(v3, v3)) ? v3 : best;                                         \
            yr[i] = best;                                                                            \
            tr[i] = t;                                                                               \
        }                                                                                            \
    }                                                                                                \
    static inline void NAME##_narrow(const int *restrict t, I *restrict idx, Py_ssize_t n)          \
    {                                                                                                \
        for (Py_ssize_t i = 0; i < n; i++)                                                           \
            idx[i] = (I)t[i];                                                                        \
    }                                                                                                \
    CK_CLONES static void NAME(const T *x, T *y, I *idx, const pool_geometry *g)                     \
    {                                                                                                \
        int t_block[POOL_BLOCK];                                                                     \
        const Py_ssize_t rows = g->planes * g->oh, ow = g->ow, w = g->w;                             \
        Py_ssize_t done = 0, pending = 0; /* outputs whose index is stored; in t_block */            \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                      \
            for (Py_ssize_t start = 0; start < ow; start += POOL_BLOCK) {                            \
                const Py_ssize_t n = ow - start < POOL_BLOCK ? ow - start : POOL_BLOCK;              \
                if (pending + n > POOL_BLOCK) {                                                      \
                    NAME##_narrow(t_block, idx + done, pending);                                     \
                    done += pending;                                                                 \
                    pending = 0;                                                                     \
                }                                                                                    \
                NAME##_run(x + 2 * r * w + 2 * start, x + (2 * r + 1) * w + 2 * start,               \
                           y + r * ow + start, t_block + pending, n);                                \
                pending += n;                                                                        \
            }                                                                                        \
        }                                                                                            \
        NAME##_narrow(t_block, idx + done, pending);                                                 \
    }

/* Any geometry: zero the image, then add each output gradient at the element its index
 * names (overlapping windows add up); indexes naming padding or no offset of the window
 * contribute nothing, as in the NumPy code. dy_of and dx_of decode the index (a division
 * per output would cost more than the rest). */
#define SCATTER_GENERAL(NAME, T, I)                                                                   \
    CK_CLONES static void NAME(const T *restrict gy, const I *restrict idx, T *restrict gx,          \
                               const pool_geometry *g, const int32_t *restrict dy_of,                \
                               const int32_t *restrict dx_of)                                        \
    {                                                                                                \
        const Py_ssize_t hw = g->h * g->w, ohw = g->oh * g->ow;                                      \
        const size_t k = (size_t)(g->kh * g->kw);                                                    \
        memset(gx, 0, (size_t)(g->planes * hw) * sizeof(T));                                         \
        for (Py_ssize_t p = 0; p < g->planes; p++) {                                                 \
            T *gp = gx + p * hw;                                                                     \
            for (Py_ssize_t oy = 0; oy < g->oh; oy++) {                                              \
                const T *grow = gy + p * ohw + oy * g->ow;                                           \
                const I *irow = idx + p * ohw + oy * g->ow;                                          \
                const Py_ssize_t y0 = oy * g->sy - g->ph;                                            \
                for (Py_ssize_t ox = 0; ox < g->ow; ox++) {                                          \
                    const Py_ssize_t t = irow[ox];                                                   \
                    if ((size_t)t >= k) /* negative too */                                           \
                        continue;                                                                    \
                    const Py_ssize_t yy = y0 + dy_of[t], xx = ox * g->sx - g->pw + dx_of[t];         \
                    if (yy >= 0 && yy < g->h && xx >= 0 && xx < g->w)                                \
                        gp[yy * g->w + xx] += grow[ox];                                              \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
    }

/* The exact 2x2 tiling: every element of gx is written once, no zeroing pass. As in
 * MAX_2X2, the indexes are widened to int a block at a time first. */
#define SCATTER_2X2(NAME, T, I)                                                                       \
    static inline void NAME##_run(const T *restrict gr, const int *restrict tr, T *restrict r0,      \
                                  T *restrict r1, Py_ssize_t n)                                      \
    {                                                                                                \
        for (Py_ssize_t i = 0; i < n; i++) {                                                         \
            const T v = gr[i];                                                                       \
            const int t = tr[i];                                                                     \
            T v0 = 0, v1 = 0, v2 = 0, v3 = 0;                                                        \
            v0 = t == 0 ? v : v0;                                                                    \
            v1 = t == 1 ? v : v1;                                                                    \
            v2 = t == 2 ? v : v2;                                                                    \
            v3 = t == 3 ? v : v3;                                                                    \
            r0[2 * i] = v0;                                                                          \
            r0[2 * i + 1] = v1;                                                                      \
            r1[2 * i] = v2;                                                                          \
            r1[2 * i + 1] = v3;                                                                      \
        }                                                                                            \
    }                                                                                                \
    static inline void NAME##_widen(const I *restrict idx, int *restrict t, Py_ssize_t n)           \
    {                                                                                                \
        for (Py_ssize_t i = 0; i < n; i++)                                                           \
            t[i] = idx[i];                                                                           \
    }                                                                                                \
    CK_CLONES static void NAME(const T *gy, const I *idx, T *gx, const pool_geometry *g)             \
    {                                                                                                \
        int t_block[POOL_BLOCK];                                                                     \
        const Py_ssize_t rows = g->planes * g->oh, ow = g->ow, w = g->w, total = rows * ow;          \
        Py_ssize_t first = 0, end = 0; /* t_block holds the indexes of outputs [first, end) */       \
        for (Py_ssize_t r = 0; r < rows; r++) {                                                      \
            for (Py_ssize_t start = 0; start < ow; start += POOL_BLOCK) {                            \
                const Py_ssize_t n = ow - start < POOL_BLOCK ? ow - start : POOL_BLOCK;              \
                const Py_ssize_t o = r * ow + start;                                                 \
                if (o + n > end) {                                                                   \
                    first = o;                                                                       \
                    end = total - o < POOL_BLOCK ? total : o + POOL_BLOCK;                           \
                    NAME##_widen(idx + first, t_block, end - first);                                 \
                }                                                                                    \
                NAME##_run(gy + o, t_block + (o - first), gx + 2 * r * w + 2 * start,                \
                           gx + (2 * r + 1) * w + 2 * start, n);                                     \
            }                                                                                        \
        }                                                                                            \
    }

MAX_GENERAL(max_general_f32_i8, float, int8_t)
MAX_GENERAL(max_general_f32_i32, float, int32_t)
MAX_GENERAL(max_general_f64_i8, double, int8_t)
MAX_GENERAL(max_general_f64_i32, double, int32_t)
MAX_2X2(max_2x2_f32_i8, float, int8_t)
MAX_2X2(max_2x2_f32_i32, float, int32_t)
MAX_2X2(max_2x2_f64_i8, double, int8_t)
MAX_2X2(max_2x2_f64_i32, double, int32_t)
SCATTER_GENERAL(scatter_general_f32_i8, float, int8_t)
SCATTER_GENERAL(scatter_general_f32_i32, float, int32_t)
SCATTER_GENERAL(scatter_general_f64_i8, double, int8_t)
SCATTER_GENERAL(scatter_general_f64_i32, double, int32_t)
SCATTER_2X2(scatter_2x2_f32_i8, float, int8_t)
SCATTER_2X2(scatter_2x2_f32_i32, float, int32_t)
SCATTER_2X2(scatter_2x2_f64_i8, double, int8_t)
SCATTER_2X2(scatter_2x2_f64_i32, double, int32_t)

static int tiles_2x2(const pool_geometry *g)
{
    return g->kh == 2 && g->kw == 2 && g->sy == 2 && g->sx == 2 && g->ph == 0 && g->pw == 0 && g->h == 2 * g->oh &&
           g->w == 2 * g->ow;
}

/* kh, kw, sy, sx (at least 1) and ph, pw (at least 0) from args[0..5]: 1, or 0 to decline
 * values past POOL_MAX_ARG (the NumPy code handles them, or reports why it cannot), or
 * -1 with an exception set. */
#define POOL_MAX_ARG (1 << 20)
static int get_geometry(const char *kernel, PyObject *const *args, pool_geometry *g)
{
    static const char *const names[] = {"kh", "kw", "sy", "sx", "ph", "pw"};
    Py_ssize_t *fields[] = {&g->kh, &g->kw, &g->sy, &g->sx, &g->ph, &g->pw};
    int decline = 0;
    for (int i = 0; i < 6; i++) {
        if (!PyLong_Check(args[i])) {
            PyErr_Format(PyExc_TypeError, "chainer_cpu_kernels.%s: %s must be an int, got %R", kernel, names[i],
                         args[i]);
            return -1;
        }
        int overflow;
        const long long v = PyLong_AsLongLongAndOverflow(args[i], &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        const long long minimum = i < 4 ? 1 : 0;
        if (overflow < 0 || (overflow == 0 && v < minimum)) {
            PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s must be >= %lld, got %R", kernel, names[i],
                         minimum, args[i]);
            return -1;
        }
        if (overflow > 0 || v > POOL_MAX_ARG)
            decline = 1;
        else
            *fields[i] = (Py_ssize_t)v;
    }
    return decline ? 0 : 1;
}

/* A C-contiguous int8 or int32 array: 1 (type in *type), 0 to decline, -1 on error. */
static int acquire_indexes(PyObject *obj, Py_buffer *view, int writable, idx_type *type)
{
    const char *f = ck_get_buffer(obj, view, writable);
    if (f == NULL)
        return 0;
    *type = IDX_NONE;
    if (f[0] != '\0' && f[1] == '\0') {
        if (f[0] == 'b' && view->itemsize == 1)
            *type = IDX_I8;
        else if ((f[0] == 'i' || f[0] == 'l') && view->itemsize == 4)
            *type = IDX_I32;
    }
    if (*type == IDX_NONE) {
        PyBuffer_Release(view);
        view->obj = NULL;
        return 0;
    }
    return 1;
}

static int check_ndim(const char *kernel, const char *name, const Py_buffer *view)
{
    if (view->ndim == 4)
        return 0;
    PyErr_Format(PyExc_ValueError, "chainer_cpu_kernels.%s: %s must have 4 axes (N, C, H, W), got %d", kernel, name,
                 view->ndim);
    return -1;
}

/* Checks the shapes of image (N, C, H, W) and pooled (N, C, OH, OW) arrays and of the
 * indexes (like pooled), and fills the sizes of `g`. */
static int check_shapes(const char *kernel, const char *image_name, const Py_buffer *image, const char *pooled_name,
                        const Py_buffer *pooled, const Py_buffer *indexes, idx_type type, pool_geometry *g)
{
    if (check_ndim(kernel, image_name, image) < 0 || check_ndim(kernel, pooled_name, pooled) < 0 ||
        check_ndim(kernel, "indexes", indexes) < 0)
        return -1;
    if (image->shape[0] != pooled->shape[0] || image->shape[1] != pooled->shape[1]) {
        PyErr_Format(PyExc_ValueError,
                     "chainer_cpu_kernels.%s: %s has %zd x %zd images and channels, expected %zd x %zd like %s", kernel,
                     pooled_name, pooled->shape[0], pooled->shape[1], image->shape[0], image->shape[1], image_name);
        return -1;
    }
    for (int axis = 0; axis < 4; axis++) {
        if (indexes->shape[axis] != pooled->shape[axis]) {
            PyErr_Format(PyExc_ValueError,
                         "chainer_cpu_kernels.%s: indexes have shape (%zd, %zd, %zd, %zd), expected %s's (%zd, %zd, "
                         "%zd, %zd)",
                         kernel, indexes->shape[0], indexes->shape[1], indexes->shape[2], indexes->shape[3],
                         pooled_name, pooled->shape[0], pooled->shape[1], pooled->shape[2], pooled->shape[3]);
            return -1;
        }
    }
    g->planes = image->shape[0] * image->shape[1];
    g->h = image->shape[2];
    g->w = image->shape[3];
    g->oh = pooled->shape[2];
    g->ow = pooled->shape[3];
    /* Every row index the loops compute lies within +-((oh - 1) * sy + kh + ph + h), every
     * column index within +-((ow - 1) * sx + kw + pw + w), and flat indexes within their
     * product: refuse shapes for which that overflows (no real pooling comes near it). */
    Py_ssize_t rows, cols, plane;
    if (ck_mul(g->oh > 0 ? g->oh - 1 : 0, g->sy, &rows) < 0 || ck_add(rows, g->kh + g->ph, &rows) < 0 ||
        ck_add(rows, g->h, &rows) < 0 || ck_mul(g->ow > 0 ? g->ow - 1 : 0, g->sx, &cols) < 0 ||
        ck_add(cols, g->kw + g->pw, &cols) < 0 || ck_add(cols, g->w, &cols) < 0 || ck_mul(rows, cols, &plane) < 0) {
        PyErr_Format(PyExc_ValueError,
                     "chainer_cpu_kernels.%s: the windows of a %zd x %zd output over a %zd x %zd image (window %zd x "
                     "%zd, stride %zd x %zd, padding %zd x %zd) reach past %zd elements a plane",
                     kernel, g->oh, g->ow, g->h, g->w, g->kh, g->kw, g->sy, g->sx, g->ph, g->pw, PY_SSIZE_T_MAX);
        return -1;
    }
    if (type == IDX_I8 && g->kh * g->kw > 128) {
        PyErr_Format(PyExc_ValueError,
                     "chainer_cpu_kernels.%s: int8 indexes hold windows of at most 128 elements, got %zd x %zd", kernel,
                     g->kh, g->kw);
        return -1;
    }
    return 0;
}

PyObject *ck_max_pooling_2d_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "max_pooling_2d_forward";
    pool_geometry g;
    if (ck_check_nargs(kernel, nargs, 9) < 0)
        return NULL;
    const int in_range = get_geometry(kernel, args + 1, &g);
    if (in_range < 0)
        return NULL;
    if (!in_range || g.kh > POOL_MAX_WINDOW || g.kw > POOL_MAX_WINDOW || g.kh * g.kw > POOL_MAX_WINDOW)
        Py_RETURN_FALSE;
    ck_array x, y;
    Py_buffer idx;
    idx_type type;
    y.view.obj = NULL;
    idx.obj = NULL;
    int got = ck_acquire(args[0], &x, 0);
    if (got == 1)
        got = ck_acquire(args[7], &y, 1);
    if (got == 1)
        got = acquire_indexes(args[8], &idx, 1, &type);
    if (got == 1 && y.dtype != x.dtype)
        got = 0;
    if (got == 1 && check_shapes(kernel, "x", &x.view, "y", &y.view, &idx, type, &g) < 0)
        got = -1;
    if (got == 1 && g.planes * g.oh * g.ow > 0) {
        const int fast = tiles_2x2(&g);
        Py_BEGIN_ALLOW_THREADS
        if (x.dtype == CK_F32 && type == IDX_I8)
            (fast ? max_2x2_f32_i8 : max_general_f32_i8)(x.view.buf, y.view.buf, idx.buf, &g);
        else if (x.dtype == CK_F32)
            (fast ? max_2x2_f32_i32 : max_general_f32_i32)(x.view.buf, y.view.buf, idx.buf, &g);
        else if (type == IDX_I8)
            (fast ? max_2x2_f64_i8 : max_general_f64_i8)(x.view.buf, y.view.buf, idx.buf, &g);
        else
            (fast ? max_2x2_f64_i32 : max_general_f64_i32)(x.view.buf, y.view.buf, idx.buf, &g);
        Py_END_ALLOW_THREADS
    }
    ck_release(&x);
    ck_release(&y);
    if (idx.obj != NULL)
        PyBuffer_Release(&idx);
    if (got < 0)
        return NULL;
    return Py_NewRef(got ? Py_True : Py_False);
}

PyObject *ck_max_pooling_2d_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "max_pooling_2d_backward";
    pool_geometry g;
    if (ck_check_nargs(kernel, nargs, 9) < 0)
        return NULL;
    const int in_range = get_geometry(kernel, args + 2, &g);
    if (in_range < 0)
        return NULL;
    if (!in_range || g.kh > POOL_MAX_WINDOW || g.kw > POOL_MAX_WINDOW || g.kh * g.kw > POOL_MAX_WINDOW)
        Py_RETURN_FALSE;
    int32_t dy_of[POOL_MAX_WINDOW], dx_of[POOL_MAX_WINDOW];
    for (Py_ssize_t t = 0; t < g.kh * g.kw; t++) {
        dy_of[t] = (int32_t)(t / g.kw);
        dx_of[t] = (int32_t)(t % g.kw);
    }
    ck_array gy, gx;
    Py_buffer idx;
    idx_type type;
    gx.view.obj = NULL;
    idx.obj = NULL;
    int got = ck_acquire(args[0], &gy, 0);
    if (got == 1)
        got = acquire_indexes(args[1], &idx, 0, &type);
    if (got == 1)
        got = ck_acquire(args[8], &gx, 1);
    if (got == 1 && gx.dtype != gy.dtype)
        got = 0;
    if (got == 1 && check_shapes(kernel, "gx", &gx.view, "gy", &gy.view, &idx, type, &g) < 0)
        got = -1;
    if (got == 1 && g.planes * g.h * g.w > 0) {
        const int fast = tiles_2x2(&g);
        const void *gyb = gy.view.buf, *ib = idx.buf;
        void *gxb = gx.view.buf;
        Py_BEGIN_ALLOW_THREADS
        if (fast && gy.dtype == CK_F32 && type == IDX_I8)
            scatter_2x2_f32_i8(gyb, ib, gxb, &g);
        else if (fast && gy.dtype == CK_F32)
            scatter_2x2_f32_i32(gyb, ib, gxb, &g);
        else if (fast && type == IDX_I8)
            scatter_2x2_f64_i8(gyb, ib, gxb, &g);
        else if (fast)
            scatter_2x2_f64_i32(gyb, ib, gxb, &g);
        else if (gy.dtype == CK_F32 && type == IDX_I8)
            scatter_general_f32_i8(gyb, ib, gxb, &g, dy_of, dx_of);
        else if (gy.dtype == CK_F32)
            scatter_general_f32_i32(gyb, ib, gxb, &g, dy_of, dx_of);
        else if (type == IDX_I8)
            scatter_general_f64_i8(gyb, ib, gxb, &g, dy_of, dx_of);
        else
            scatter_general_f64_i32(gyb, ib, gxb, &g, dy_of, dx_of);
        Py_END_ALLOW_THREADS
    }
    ck_release(&gy);
    ck_release(&gx);
    if (idx.obj != NULL)
        PyBuffer_Release(&idx);
    if (got < 0)
        return NULL;
    return Py_NewRef(got ? Py_True : Py_False);
}
