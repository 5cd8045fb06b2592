#include "common.hpp"

#include <cstring>

namespace ci {

dnnl::engine &engine() {
    static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

dnnl::stream &stream() {
    static dnnl::stream strm(engine());
    return strm;
}

Array::~Array() {
    if (held_) PyBuffer_Release(&view_);
}

bool Array::get(PyObject *obj, const char *kernel, const char *name, int ndim, bool writable, bool optional) {
    if (optional && obj == Py_None) return true;
    return fetch(obj, kernel, name, ndim, writable, "f", "float32");
}

bool Array::get_bytes(PyObject *obj, const char *kernel, const char *name, int ndim, bool writable) {
    return fetch(obj, kernel, name, ndim, writable, "bB", "int8 or uint8");
}

bool Array::fetch(PyObject *obj, const char *kernel, const char *name, int ndim, bool writable, const char *formats,
                  const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &view_, flags) != 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "chainer_intel64.%s: %s must be a %sC-contiguous %s array, got %.100s", kernel,
                     name, writable ? "writable " : "", what, Py_TYPE(obj)->tp_name);
        return false;
    }
    held_ = true;
    const char *format = view_.format ? view_.format : "B";
    if (format[0] == '=' || format[0] == '<' || format[0] == '@') ++format;
    if (std::strlen(format) != 1 || std::strchr(formats, format[0]) == nullptr ||
        view_.itemsize != (format[0] == 'f' ? 4 : 1)) {
        PyErr_Format(PyExc_TypeError, "chainer_intel64.%s: %s must be %s, got the buffer format '%s'", kernel, name,
                     what, view_.format ? view_.format : "B");
        return false;
    }
    if (ndim >= 0 && view_.ndim != ndim) {
        PyErr_Format(PyExc_ValueError, "chainer_intel64.%s: %s must have %d axes, got %d", kernel, name, ndim,
                     view_.ndim);
        return false;
    }
    for (int i = 0; i < view_.ndim; ++i) {
        if (view_.shape[i] <= 0) {
            PyErr_Format(PyExc_ValueError, "chainer_intel64.%s: %s must not be empty (axis %d has size %zd)", kernel,
                         name, i, view_.shape[i]);
            return false;
        }
    }
    return true;
}

dnnl::error declined(const char *why) { return dnnl::error(dnnl_unimplemented, why); }

dims Array::shape() const { return dims(view_.shape, view_.shape + view_.ndim); }

bool get_ints(PyObject *obj, const char *kernel, const char *name, size_t n, int64_t minimum, dims &out) {
    if (!PyTuple_Check(obj) || (size_t)PyTuple_GET_SIZE(obj) != n) {
        PyErr_Format(PyExc_TypeError, "chainer_intel64.%s: %s must be a tuple of %zu ints", kernel, name, n);
        return false;
    }
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(obj, i));
        if (v == -1 && PyErr_Occurred()) return false;
        // oneDNN's geometry is int64; 2**31 keeps every product of the index arithmetic
        // well inside it.
        if (v < minimum || v > (1LL << 31)) {
            PyErr_Format(PyExc_ValueError, "chainer_intel64.%s: %s[%zu] must be in [%lld, 2**31], got %lld", kernel,
                         name, i, (long long)minimum, v);
            return false;
        }
        out[i] = v;
    }
    return true;
}

bool expect(bool condition, const char *kernel, const char *what) {
    if (!condition) PyErr_Format(PyExc_ValueError, "chainer_intel64.%s: %s", kernel, what);
    return condition;
}

static dnnl::memory::format_tag plain_tag(size_t ndim) {
    using tag = dnnl::memory::format_tag;
    static const tag tags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
    return ndim < 7 ? tags[ndim] : tag::undef;
}

dnnl::memory::desc plain(const dims &shape) {
    return dnnl::memory::desc(shape, dnnl::memory::data_type::f32, plain_tag(shape.size()));
}

dnnl::memory::desc any(const dims &shape) {
    return dnnl::memory::desc(shape, dnnl::memory::data_type::f32, dnnl::memory::format_tag::any);
}

void Port::init(const dnnl::memory::desc &user, const dnnl::memory::desc &inner, bool input, bool output) {
    user_ = dnnl::memory(user, engine(), DNNL_MEMORY_NONE);
    reordered_ = user != inner;
    if (!reordered_) {
        inner_ = user_;
        return;
    }
    inner_ = dnnl::memory(inner, engine());
    if (input) to_inner_ = dnnl::reorder(user_, inner_);
    if (output) to_user_ = dnnl::reorder(inner_, user_);
}

dnnl::memory &Port::in(void *ptr) {
    user_.set_data_handle(ptr);
    if (reordered_) to_inner_.execute(stream(), user_, inner_);
    return inner_;
}

dnnl::memory &Port::out(void *ptr) {
    user_.set_data_handle(ptr);
    return inner_;
}

void Port::finish() {
    if (reordered_) to_user_.execute(stream(), inner_, user_);
}

static std::map<std::vector<int64_t>, std::unique_ptr<Entry>> &cache() {
    static std::map<std::vector<int64_t>, std::unique_ptr<Entry>> entries;
    return entries;
}

Entry *cache_find(const std::vector<int64_t> &key) {
    auto it = cache().find(key);
    return it == cache().end() ? nullptr : it->second.get();
}

Entry *cache_store(const std::vector<int64_t> &key, std::unique_ptr<Entry> entry) {
    if (cache().size() >= kCacheSize) cache().clear();
    Entry *raw = entry.get();
    cache()[key] = std::move(entry);
    return raw;
}

void cache_clear() { cache().clear(); }

size_t cache_size() { return cache().size(); }

}  // namespace ci
