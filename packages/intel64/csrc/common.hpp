// Shared by the primitives of chainer_intel64._dnnl: the engine and stream, argument
// parsing into oneDNN memory, the plain-layout <-> primitive-layout "ports" and the
// primitive cache.
//
// Every kernel takes float32 C-contiguous NumPy arrays (any object with the buffer
// protocol), the outputs allocated by the caller, and returns True when it computed
// them or False when oneDNN declines the geometry (the caller then runs NumPy). Wrong
// arguments (a wrong dtype, shape or layout) are TypeError/ValueError naming the kernel:
// the Python side only calls with arrays it checked, so reaching one is a bug.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

namespace ci {

using dims = dnnl::memory::dims;

dnnl::engine &engine();
dnnl::stream &stream();

// A float32, C-contiguous buffer of a Python object (released on destruction).
class Array {
  public:
    Array() = default;
    Array(const Array &) = delete;
    Array &operator=(const Array &) = delete;
    ~Array();
    // Fills this from `obj`; false with a Python error set when it is not a float32
    // C-contiguous buffer of `ndim` axes (any number if negative) (writable if `writable`). `None` is accepted,
    // as an absent array, when `optional`.
    bool get(PyObject *obj, const char *kernel, const char *name, int ndim, bool writable, bool optional = false);
    // The same for an int8 or uint8 buffer (a max pooling's window offsets).
    bool get_bytes(PyObject *obj, const char *kernel, const char *name, int ndim, bool writable);
    bool present() const { return held_; }
    void *data() const { return view_.buf; }
    dims shape() const;
    int64_t dim(int i) const { return view_.shape[i]; }

  private:
    bool fetch(PyObject *obj, const char *kernel, const char *name, int ndim, bool writable, const char *formats,
               const char *what);
    Py_buffer view_{};
    bool held_ = false;
};

// Raised inside `run` to decline a case oneDNN computes differently from NumPy.
dnnl::error declined(const char *why);

// Reads a tuple of `n` non-negative ints (a geometry argument) into `out`.
bool get_ints(PyObject *obj, const char *kernel, const char *name, size_t n, int64_t minimum, dims &out);

// The plain (C order) float32 layout of `shape`.
dnnl::memory::desc plain(const dims &shape);
// A layout of `shape` left for the primitive to choose (format_tag::any).
dnnl::memory::desc any(const dims &shape);

// One tensor argument of a primitive: the caller's plain buffer, and the primitive's
// own layout with the reorders between them when the primitive chose another one.
class Port {
  public:
    void init(const dnnl::memory::desc &user, const dnnl::memory::desc &inner, bool input, bool output);
    // The memory to pass to the primitive for the caller's data at `ptr` (reordered in
    // for an input).
    dnnl::memory &in(void *ptr);
    dnnl::memory &out(void *ptr);
    // Copies an output back into the caller's buffer.
    void finish();

  private:
    dnnl::memory user_, inner_;
    dnnl::reorder to_inner_, to_user_;
    bool reordered_ = false;
};

// Cached primitives, keyed by the kernel and every number its primitive depends on
// (shapes and attributes). The cache is cleared when it outgrows `kCacheSize` entries:
// a workload uses a handful of shapes, and a changing shape is no reason to hold memory.
struct Entry {
    virtual ~Entry() = default;
};

constexpr size_t kCacheSize = 512;
Entry *cache_find(const std::vector<int64_t> &key);
Entry *cache_store(const std::vector<int64_t> &key, std::unique_ptr<Entry> entry);
void cache_clear();
size_t cache_size();

// Runs `body` (which builds or executes primitives), translating oneDNN's refusals:
// returns Py_True when done, Py_False when oneDNN has no implementation for the case
// (the caller falls back), nullptr with RuntimeError for other oneDNN errors.
template <typename F>
PyObject *run(const char *kernel, F &&body) {
    try {
        body();
    } catch (const dnnl::error &e) {
        if (e.status == dnnl_unimplemented) Py_RETURN_FALSE;
        PyErr_Format(PyExc_RuntimeError, "chainer_intel64.%s: oneDNN failed: %s", kernel, e.what());
        return nullptr;
    } catch (const std::bad_alloc &) {
        PyErr_Format(PyExc_MemoryError, "chainer_intel64.%s: out of memory", kernel);
        return nullptr;
    }
    Py_RETURN_TRUE;
}

// Requires the arrays' shapes to agree; false with ValueError naming `what`.
bool expect(bool condition, const char *kernel, const char *what);

}  // namespace ci

// The kernels, one per Python function (METH_VARARGS).
PyObject *ci_conv_forward(PyObject *, PyObject *args);
PyObject *ci_conv_backward_data(PyObject *, PyObject *args);
PyObject *ci_conv_backward_weights(PyObject *, PyObject *args);
PyObject *ci_linear_forward(PyObject *, PyObject *args);
PyObject *ci_linear_backward_data(PyObject *, PyObject *args);
PyObject *ci_linear_backward_weights(PyObject *, PyObject *args);
PyObject *ci_pooling_forward(PyObject *, PyObject *args);
PyObject *ci_pooling_backward(PyObject *, PyObject *args);
PyObject *ci_relu_forward(PyObject *, PyObject *args);
PyObject *ci_relu_backward(PyObject *, PyObject *args);
PyObject *ci_batch_norm_forward(PyObject *, PyObject *args);
PyObject *ci_batch_norm_backward(PyObject *, PyObject *args);
PyObject *ci_lrn_forward(PyObject *, PyObject *args);
PyObject *ci_lrn_backward(PyObject *, PyObject *args);
