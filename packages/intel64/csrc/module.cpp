// chainer_intel64._dnnl: oneDNN primitives for the @intel64 backend of Chainer.
#include "common.hpp"

namespace {

PyObject *version(PyObject *, PyObject *) {
    const dnnl_version_t *v = dnnl_version();
    return Py_BuildValue("(iiis)", v->major, v->minor, v->patch, v->hash ? v->hash : "");
}

// The instruction set oneDNN's JIT generates code for on this CPU.
PyObject *isa(PyObject *, PyObject *) {
    switch (dnnl_get_effective_cpu_isa()) {
        case dnnl_cpu_isa_sse41: return PyUnicode_FromString("SSE4.1");
        case dnnl_cpu_isa_avx: return PyUnicode_FromString("AVX");
        case dnnl_cpu_isa_avx2: return PyUnicode_FromString("AVX2");
        case dnnl_cpu_isa_avx2_vnni: return PyUnicode_FromString("AVX2 VNNI");
        case dnnl_cpu_isa_avx2_vnni_2: return PyUnicode_FromString("AVX2 VNNI 2");
        case dnnl_cpu_isa_avx512_core: return PyUnicode_FromString("AVX-512");
        case dnnl_cpu_isa_avx512_core_vnni: return PyUnicode_FromString("AVX-512 VNNI");
        case dnnl_cpu_isa_avx512_core_bf16: return PyUnicode_FromString("AVX-512 BF16");
        case dnnl_cpu_isa_avx512_core_fp16: return PyUnicode_FromString("AVX-512 FP16");
        case dnnl_cpu_isa_avx512_core_amx: return PyUnicode_FromString("AVX-512 AMX");
        case dnnl_cpu_isa_avx512_core_amx_fp16: return PyUnicode_FromString("AVX-512 AMX FP16");
        default: return PyUnicode_FromString("baseline (no JIT ISA)");
    }
}

PyObject *cache_info(PyObject *, PyObject *) { return PyLong_FromSize_t(ci::cache_size()); }

PyObject *cache_clear(PyObject *, PyObject *) {
    ci::cache_clear();
    Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"version", version, METH_NOARGS, "oneDNN's (major, minor, patch, git hash)."},
    {"isa", isa, METH_NOARGS, "The instruction set oneDNN generates code for here."},
    {"cache_size", cache_info, METH_NOARGS, "Number of cached primitives."},
    {"cache_clear", cache_clear, METH_NOARGS, "Drop every cached primitive."},
    {"conv_forward", ci_conv_forward, METH_VARARGS,
     "conv_forward(x, W, b, y, stride, dilate, pad_l, pad_r, groups) -> bool"},
    {"conv_backward_data", ci_conv_backward_data, METH_VARARGS,
     "conv_backward_data(gy, W, gx, stride, dilate, pad_l, pad_r, groups) -> bool"},
    {"conv_backward_weights", ci_conv_backward_weights, METH_VARARGS,
     "conv_backward_weights(x, gy, gW, gb, stride, dilate, pad_l, pad_r, groups) -> bool"},
    {"linear_forward", ci_linear_forward, METH_VARARGS, "linear_forward(x, W, b, y) -> bool"},
    {"linear_backward_data", ci_linear_backward_data, METH_VARARGS, "linear_backward_data(gy, W, gx) -> bool"},
    {"linear_backward_weights", ci_linear_backward_weights, METH_VARARGS,
     "linear_backward_weights(x, gy, gW, gb) -> bool"},
    {"pooling_forward", ci_pooling_forward, METH_VARARGS,
     "pooling_forward(x, y, indexes, kind, ksize, stride, pad_l, pad_r) -> bool"},
    {"pooling_backward", ci_pooling_backward, METH_VARARGS,
     "pooling_backward(gy, gx, indexes, kind, ksize, stride, pad_l, pad_r) -> bool"},
    {"relu_forward", ci_relu_forward, METH_VARARGS, "relu_forward(x, y) -> bool"},
    {"relu_backward", ci_relu_backward, METH_VARARGS, "relu_backward(y, gy, gx) -> bool"},
    {"batch_norm_forward", ci_batch_norm_forward, METH_VARARGS,
     "batch_norm_forward(x, gamma, beta, y, mean, var, eps) -> bool"},
    {"batch_norm_backward", ci_batch_norm_backward, METH_VARARGS,
     "batch_norm_backward(x, gy, gamma, mean, var, gx, ggamma, gbeta, eps) -> bool"},
    {"lrn_forward", ci_lrn_forward, METH_VARARGS, "lrn_forward(x, y, local_size, k, alpha, beta) -> bool"},
    {"lrn_backward", ci_lrn_backward, METH_VARARGS, "lrn_backward(x, gy, gx, local_size, k, alpha, beta) -> bool"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "chainer_intel64._dnnl", "oneDNN primitives for Chainer's @intel64.",
                      -1, methods, nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__dnnl(void) { return PyModule_Create(&module); }
