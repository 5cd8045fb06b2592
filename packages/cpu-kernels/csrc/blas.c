/* Matrix products through the BLAS NumPy itself calls, for what numpy.dot cannot say.
 *
 * NumPy's dot always writes a new product. The gradient of a weight used at every time
 * step of an RNN is summed in place (g += gy_t^T x_t), and a separate product and add
 * cost an extra pass over the weight-sized array per step. GEMM's beta = 1 adds the
 * product into the buffer as it writes it: C = 1 * (A B) + C, the product's bits added
 * to C's, the same bits as NumPy's product followed by NumPy's add.
 *
 * The library is the one NumPy loaded (the same code, so the same product): found among
 * the loaded shared objects by its cblas_?gemm symbol. NumPy's wheels bundle OpenBLAS
 * with prefixed 64-bit-integer symbols (scipy_cblas_sgemm64_); a NumPy built against a
 * system CBLAS has plain ones. Where none is found (another platform, a BLAS without a
 * CBLAS interface), the kernel declines and core adds as before. So does a sum over more
 * than CK_GEMM_ACCUMULATE_MAX_K rows. */
#include "kernels.h"

#include <stdint.h>
#include <string.h>

#if defined(__linux__)
#include <dlfcn.h>
#include <link.h>
#define CK_HAVE_DL 1
#endif

enum { CK_ROW_MAJOR = 101, CK_NO_TRANS = 111, CK_TRANS = 112 };

/* The longest sum (K) taken. GEMM cuts K into blocks and adds each block's product into C
 * in turn, so with beta = 1 the earlier sum joins before the first block instead of after
 * the last: other bits once K exceeds the block (OpenBLAS's Haswell kernels: 448 in
 * float32, 384 in float64). 128 stays within every block size we know of, and covers the
 * batch sizes of RNN steps; the plugin also checks it once at registration. */
enum { CK_GEMM_ACCUMULATE_MAX_K = 128 };

typedef void (*sgemm64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *,
                           int64_t, float, float *, int64_t);
typedef void (*dgemm64_fn)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                           const double *, int64_t, double, double *, int64_t);
typedef void (*sgemm32_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                           float *, int);
typedef void (*dgemm32_fn)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                           double *, int);

static struct {
    int searched;
    int ilp64;
    void *sgemm;
    void *dgemm;
} blas;

#ifdef CK_HAVE_DL
/* Symbol names, 64-bit integers first: NumPy's own wheels, then plain CBLAS. */
static const struct {
    const char *s, *d;
    int ilp64;
} names[] = {
    {"scipy_cblas_sgemm64_", "scipy_cblas_dgemm64_", 1},
    {"cblas_sgemm64_", "cblas_dgemm64_", 1},
    {"scipy_cblas_sgemm", "scipy_cblas_dgemm", 0},
    {"cblas_sgemm", "cblas_dgemm", 0},
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *path = info->dlpi_name;
    if (path == NULL || strstr(path, "blas") == NULL)
        return 0;
    /* RTLD_NOLOAD: a handle to the copy already loaded, never a second one. */
    void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (handle == NULL)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *s = dlsym(handle, names[i].s), *d = dlsym(handle, names[i].d);
        if (s != NULL && d != NULL) {
            blas.sgemm = s;
            blas.dgemm = d;
            blas.ilp64 = names[i].ilp64;
            return 1; /* the handle stays open: the library stays loaded anyway */
        }
    }
    dlclose(handle);
    return 0;
}
#endif

static int find_blas(void)
{
    if (!blas.searched) {
        blas.searched = 1;
#ifdef CK_HAVE_DL
        dl_iterate_phdr(visit, NULL);
#endif
    }
    return blas.sgemm != NULL;
}

PyObject *ck_gemm_tn_accumulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char kernel[] = "gemm_tn_accumulate";
    if (ck_check_nargs(kernel, nargs, 3) < 0)
        return NULL;
    if (!find_blas())
        return Py_NewRef(Py_False);
    ck_array a, b, c;
    a.view.obj = b.view.obj = c.view.obj = NULL;
    int got = ck_acquire(args[0], &a, 0);
    if (got == 1)
        got = ck_acquire(args[1], &b, 0);
    if (got == 1)
        got = ck_acquire(args[2], &c, 1);
    if (got == 1 && (a.dtype != b.dtype || c.dtype != a.dtype || a.view.ndim != 2 || b.view.ndim != 2 ||
                     c.view.ndim != 2))
        got = 0;
    if (got == 1) {
        const Py_ssize_t k = a.view.shape[0], m = a.view.shape[1], n = b.view.shape[1];
        if (b.view.shape[0] != k || c.view.shape[0] != m || c.view.shape[1] != n) {
            PyErr_Format(PyExc_ValueError,
                         "chainer_cpu_kernels.%s: expected a (K, M), b (K, N) and c (M, N), got a (%zd, %zd), "
                         "b (%zd, %zd), c (%zd, %zd)",
                         kernel, a.view.shape[0], a.view.shape[1], b.view.shape[0], b.view.shape[1],
                         c.view.shape[0], c.view.shape[1]);
            got = -1;
        } else if (!blas.ilp64 && (k > INT32_MAX || m > INT32_MAX || n > INT32_MAX)) {
            got = 0; /* a 32-bit-integer BLAS cannot say these sizes; NumPy splits them */
        } else if (m < 2 || n < 2) {
            got = 0; /* NumPy computes a product with one row or column as a matrix-vector product */
        } else if (k > CK_GEMM_ACCUMULATE_MAX_K) {
            got = 0; /* see CK_GEMM_ACCUMULATE_MAX_K */
        } else if (k == 0) {
            /* Adding an empty product: nothing to do (BLAS would not be called by NumPy either). */
        } else {
            /* Row-major C (M, N) += A^T B with A (K, M), B (K, N): lda = M, ldb = N, ldc = N. */
            Py_BEGIN_ALLOW_THREADS
            if (a.dtype == CK_F32) {
                if (blas.ilp64)
                    ((sgemm64_fn)blas.sgemm)(CK_ROW_MAJOR, CK_TRANS, CK_NO_TRANS, m, n, k, 1.0f, a.view.buf, m,
                                             b.view.buf, n, 1.0f, c.view.buf, n);
                else
                    ((sgemm32_fn)blas.sgemm)(CK_ROW_MAJOR, CK_TRANS, CK_NO_TRANS, (int)m, (int)n, (int)k, 1.0f,
                                             a.view.buf, (int)m, b.view.buf, (int)n, 1.0f, c.view.buf, (int)n);
            } else {
                if (blas.ilp64)
                    ((dgemm64_fn)blas.dgemm)(CK_ROW_MAJOR, CK_TRANS, CK_NO_TRANS, m, n, k, 1.0, a.view.buf, m,
                                             b.view.buf, n, 1.0, c.view.buf, n);
                else
                    ((dgemm32_fn)blas.dgemm)(CK_ROW_MAJOR, CK_TRANS, CK_NO_TRANS, (int)m, (int)n, (int)k, 1.0,
                                             a.view.buf, (int)m, b.view.buf, (int)n, 1.0, c.view.buf, (int)n);
            }
            Py_END_ALLOW_THREADS
        }
    }
    ck_release(&a);
    ck_release(&b);
    ck_release(&c);
    if (got < 0)
        return NULL;
    return Py_NewRef(got ? Py_True : Py_False);
}
