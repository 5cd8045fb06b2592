/* Shared declarations of the chainer-cpu-kernels extension.
 *
 * Every kernel is a Python function that returns True when it did the work and False
 * when it declines its arguments (a dtype other than float32/float64, arrays of
 * different dtypes, an array that is not C-contiguous); chainer-core then runs its NumPy
 * code. Sizes that disagree are a caller bug and raise ValueError.
 */
#ifndef CHAINER_CPU_KERNELS_H
#define CHAINER_CPU_KERNELS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Hot loops are compiled for AVX-512F, AVX2 and the baseline; the loader picks the best
 * the CPU has. By the feature, not "arch=haswell": GCC's resolver takes an arch= clone
 * only on that very CPU family (__builtin_cpu_is), so AMD's AVX2 processors ran the
 * baseline loops. AVX-512 matters for the LSTM kernels, whose gates are interleaved: its
 * two-source permutes de-interleave them, where AVX2 takes 3x as long. No FMA clone: the
 * extension is ISO C, which keeps a * b + c as two roundings anyway, so every clone gives
 * the same bits. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CK_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef CK_CLONES
#define CK_CLONES
#endif

typedef enum { CK_NONE = 0, CK_F32 = 1, CK_F64 = 2 } ck_dtype;

/* A C-contiguous float32/float64 array taken from a Python object with the buffer
 * protocol. ck_acquire returns 1 and fills `a`, returns 0 when the object is not such an
 * array (the kernel declines; no exception is set), or -1 with an exception set. A buffer
 * whose shape does not multiply out to its length, or whose item size is not its format's,
 * is declined too, so the kernels may rely on: the product of any subset of the axes'
 * lengths, times the item size, fits in a Py_ssize_t (NumPy guarantees it for the nonzero
 * lengths; a zero-length axis makes the array empty). */
typedef struct {
    Py_buffer view;
    ck_dtype dtype;
    Py_ssize_t size;
} ck_array;

/* Overflow-checked arithmetic on sizes (all operands >= 0): 0 and *out = a + b (a * b),
 * or -1 when the result would exceed PY_SSIZE_T_MAX (*out is then unspecified). No
 * exception is set; the caller says what overflowed. */
static inline int ck_add(Py_ssize_t a, Py_ssize_t b, Py_ssize_t *out)
{
    if (a > PY_SSIZE_T_MAX - b)
        return -1;
    *out = a + b;
    return 0;
}

static inline int ck_mul(Py_ssize_t a, Py_ssize_t b, Py_ssize_t *out)
{
    if (a != 0 && b > PY_SSIZE_T_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

/* The C-contiguous buffer of `obj` (writable if asked) in `view`, and its format code
 * without a byte-order prefix ("B" where the exporter gives none); NULL, with nothing
 * held and no exception set, when `obj` has no such buffer (not contiguous, read-only):
 * the kernel then declines, and NumPy reports its own errors. */
const char *ck_get_buffer(PyObject *obj, Py_buffer *view, int writable);
int ck_acquire(PyObject *obj, ck_array *a, int writable);
/* A C-contiguous array of int32 or int64 (ids, labels) of any shape: 1 (*is64 set), 0 to
 * decline (nothing held), -1 with an exception set. */
int ck_acquire_ints(PyObject *obj, Py_buffer *view, int *is64);
void ck_release(ck_array *a);
/* Release every acquired array of `arrays` (those with a non-NULL buffer object). */
void ck_release_all(ck_array *arrays, int n);

/* ValueError naming the kernel when the size of array `name` differs from that of array
 * `reference`; returns -1 then, 0 when they agree. */
int ck_check_size(const char *kernel, const char *name, Py_ssize_t got, const char *reference, Py_ssize_t expected);
/* TypeError naming the kernel unless it got `expected` arguments; -1 then, else 0. */
int ck_check_nargs(const char *kernel, Py_ssize_t nargs, Py_ssize_t expected);
/* Acquire the `n` arrays of `objects` (writable where `writable[i]`): 1 when all are float
 * arrays of one dtype and of the size and shape of the first, 0 to decline (nothing held),
 * -1 with a ValueError naming the kernel when a size or a shape differs. */
int ck_acquire_same(const char *kernel, const char *const *names, PyObject *const *objects, const int *writable,
                    ck_array *arrays, int n);

PyObject *ck_adam(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_momentum_sgd(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_max_pooling_2d_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_max_pooling_2d_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_relu_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_im2col(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_col2im(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_lstm_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_lstm_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_softmax_cross_entropy_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_softmax_cross_entropy_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_embed_id_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_embed_id_backward_accumulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_transpose_add_bias(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *ck_gemm_tn_accumulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
