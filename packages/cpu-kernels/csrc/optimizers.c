/* Single-pass optimizer updates. Each loop follows, operation by operation and in the
 * parameter's precision, the NumPy code of the matching update rule in chainer-core, so
 * the results agree with it up to the rounding of the last operation (no FMA contraction:
 * the extension is compiled as ISO C, where GCC keeps `a * b + c` as two roundings). */
#include "kernels.h"

#include <math.h>

typedef struct {
    double lr, one_minus_beta1, one_minus_beta2, eps, weight_decay_rate, eta, lower, upper;
    int amsgrad, adabound;
} adam_args;

/* The loop body, inlined into one loop per precision and per combination of the AMSGrad
 * and AdaBound flags, so that each loop is free of branches and vectorises. A zero weight
 * decay and eta == 1 are selects (the skipped term may be NaN for an infinite parameter,
 * and the NumPy code skips it too). */
#define ADAM_BODY(T, SQRT, AMSGRAD, ADABOUND)                                                        \
    for (Py_ssize_t i = 0; i < n; i++) {                                                             \
        const T gi = g[i];                                                                           \
        const T mi = m[i] + (gi - m[i]) * omb1;                                                      \
        T vi = v[i] * beta2 + gi * gi * omb2;                                                        \
        m[i] = mi;                                                                                   \
        v[i] = vi;                                                                                   \
        if (AMSGRAD) {                                                                               \
            vi = vhat[i] > vi ? vhat[i] : vi;                                                        \
            vhat[i] = vi;                                                                            \
        }                                                                                            \
        T step = SQRT(vi) + eps;                                                                     \
        if (ADABOUND) {                                                                              \
            step = lr / step;                                                                        \
            step = step < lower ? lower : step;                                                      \
            step = step > upper ? upper : step;                                                      \
            step = step * mi;                                                                        \
        } else {                                                                                     \
            step = mi / step * lr;                                                                   \
        }                                                                                            \
        const T decayed = step + wd * p[i];                                                          \
        step = decay ? decayed : step;                                                               \
        const T scaled_step = step * eta;                                                            \
        step = scaled ? scaled_step : step;                                                          \
        p[i] = p[i] - step;                                                                          \
    }

#define ADAM_LOOP(NAME, T, SQRT)                                                                     \
    CK_CLONES static void NAME(T *restrict p, const T *restrict g, T *restrict m, T *restrict v,      \
                               T *restrict vhat, Py_ssize_t n, const adam_args *a)                   \
    {                                                                                                \
        const T omb1 = (T)a->one_minus_beta1, omb2 = (T)a->one_minus_beta2;                          \
        const T beta2 = (T)(1.0 - a->one_minus_beta2), eps = (T)a->eps, lr = (T)a->lr;               \
        const T wd = (T)a->weight_decay_rate, eta = (T)a->eta;                                       \
        const T lower = (T)a->lower, upper = (T)a->upper;                                            \
        const int decay = a->weight_decay_rate != 0.0, scaled = a->eta != 1.0;                      \
        if (a->amsgrad && a->adabound)                                                               \
            ADAM_BODY(T, SQRT, 1, 1)                                                                 \
        else if (a->amsgrad)                                                                         \
            ADAM_BODY(T, SQRT, 1, 0)                                                                 \
        else if (a->adabound)                                                                        \
            ADAM_BODY(T, SQRT, 0, 1)                                                                 \
        else                                                                                         \
            ADAM_BODY(T, SQRT, 0, 0)                                                                 \
    }

ADAM_LOOP(adam_f32, float, sqrtf)
ADAM_LOOP(adam_f64, double, sqrt)

static int get_double(const char *kernel, const char *name, PyObject *obj, double *out)
{
    *out = PyFloat_AsDouble(obj);
    if (*out == -1.0 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "chainer_cpu_kernels.%s: %s must be a real number, got %R", kernel, name, obj);
        return -1;
    }
    return 0;
}

PyObject *ck_adam(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[] = {"param", "grad", "m", "v", "vhat"};
    static const int writable[] = {1, 0, 1, 1, 1};
    adam_args a;
    if (ck_check_nargs("adam", nargs, 13) < 0)
        return NULL;
    a.amsgrad = args[4] != Py_None;
    a.adabound = args[11] != Py_None || args[12] != Py_None;
    a.lower = 0.0;
    a.upper = INFINITY;
    if (get_double("adam", "lr", args[5], &a.lr) < 0 ||
        get_double("adam", "one_minus_beta1", args[6], &a.one_minus_beta1) < 0 ||
        get_double("adam", "one_minus_beta2", args[7], &a.one_minus_beta2) < 0 ||
        get_double("adam", "eps", args[8], &a.eps) < 0 ||
        get_double("adam", "weight_decay_rate", args[9], &a.weight_decay_rate) < 0 ||
        get_double("adam", "eta", args[10], &a.eta) < 0 ||
        (args[11] != Py_None && get_double("adam", "lower", args[11], &a.lower) < 0) ||
        (args[12] != Py_None && get_double("adam", "upper", args[12], &a.upper) < 0))
        return NULL;
    ck_array arr[5];
    int n = a.amsgrad ? 5 : 4;
    int got = ck_acquire_same("adam", names, args, writable, arr, n);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    Py_BEGIN_ALLOW_THREADS
    if (arr[0].dtype == CK_F32)
        adam_f32(arr[0].view.buf, arr[1].view.buf, arr[2].view.buf, arr[3].view.buf,
                 a.amsgrad ? arr[4].view.buf : NULL, arr[0].size, &a);
    else
        adam_f64(arr[0].view.buf, arr[1].view.buf, arr[2].view.buf, arr[3].view.buf,
                 a.amsgrad ? arr[4].view.buf : NULL, arr[0].size, &a);
    Py_END_ALLOW_THREADS
    ck_release_all(arr, n);
    Py_RETURN_TRUE;
}

#define MOMENTUM_LOOP(NAME, T)                                                                        \
    CK_CLONES static void NAME(T *restrict p, const T *restrict g, T *restrict v, Py_ssize_t n, double lr_, \
                               double momentum_)                                                     \
    {                                                                                                \
        const T lr = (T)lr_, momentum = (T)momentum_;                                                \
        for (Py_ssize_t i = 0; i < n; i++) {                                                         \
            const T vi = v[i] * momentum - lr * g[i];                                                \
            v[i] = vi;                                                                               \
            p[i] = p[i] + vi;                                                                        \
        }                                                                                            \
    }

MOMENTUM_LOOP(momentum_f32, float)
MOMENTUM_LOOP(momentum_f64, double)

PyObject *ck_momentum_sgd(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[] = {"param", "grad", "v"};
    static const int writable[] = {1, 0, 1};
    double lr, momentum;
    if (ck_check_nargs("momentum_sgd", nargs, 5) < 0 || get_double("momentum_sgd", "lr", args[3], &lr) < 0 ||
        get_double("momentum_sgd", "momentum", args[4], &momentum) < 0)
        return NULL;
    ck_array arr[3];
    int got = ck_acquire_same("momentum_sgd", names, args, writable, arr, 3);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_False);
    Py_BEGIN_ALLOW_THREADS
    if (arr[0].dtype == CK_F32)
        momentum_f32(arr[0].view.buf, arr[1].view.buf, arr[2].view.buf, arr[0].size, lr, momentum);
    else
        momentum_f64(arr[0].view.buf, arr[1].view.buf, arr[2].view.buf, arr[0].size, lr, momentum);
    Py_END_ALLOW_THREADS
    ck_release_all(arr, 3);
    Py_RETURN_TRUE;
}
