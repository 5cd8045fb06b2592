/* The ReLU input gradient in one pass: gx = gy * (y > 0), the mask a multiplication by 1
 * or 0 as in chainer-core's NumPy code, so the results are the same bit for bit (a NaN or
 * infinite gy where y <= 0 gives NaN, a negative one -0). */
#include "kernels.h"

#include <math.h>

#define RELU_BACKWARD_LOOP(NAME, T)                                                                   \
    CK_CLONES static void NAME(const T *restrict y, const T *restrict gy, T *restrict gx, Py_ssize_t n) \
    {                                                                                                \
        for (Py_ssize_t i = 0; i < n; i++)                                                           \
            gx[i] = gy[i] * (T)isgreater(y[i], (T)0);                                                \
    }

RELU_BACKWARD_LOOP(relu_backward_f32, float)
RELU_BACKWARD_LOOP(relu_backward_f64, double)

PyObject *ck_relu_backward(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[] = {"y", "gy", "gx"};
    static const int writable[] = {0, 0, 1};
    if (ck_check_nargs("relu_backward", nargs, 3) < 0)
        return NULL;
    ck_array arr[3];
    int got = ck_acquire_same("relu_backward", names, args, writable, arr, 3);
    if (got == 1) {
        Py_BEGIN_ALLOW_THREADS
        if (arr[0].dtype == CK_F32)
            relu_backward_f32(arr[0].view.buf, arr[1].view.buf, arr[2].view.buf, arr[0].size);
        else
            relu_backward_f64(arr[0].view.buf, arr[1].view.buf, arr[2].view.buf, arr[0].size);
        Py_END_ALLOW_THREADS
    }
    ck_release_all(arr, 3);
    if (got < 0)
        return NULL;
    return Py_NewRef(got ? Py_True : Py_False);
}
