// The rectified linear unit: y = max(x, 0), and its gradient from the output y.
#include "common.hpp"

using namespace dnnl;

namespace {

enum Op : int64_t { kForward = 21, kBackward };

struct Forward : ci::Entry {
    eltwise_forward prim;
    memory src, dst;
};

struct Backward : ci::Entry {
    eltwise_backward prim;
    memory dst, diff_dst, diff_src;
};

// The arrays as one flat axis: the unit is elementwise, so their shape does not matter
// beyond their common size.
bool flat_size(const char *kernel, std::initializer_list<const ci::Array *> arrays, int64_t &size) {
    size = 1;
    for (int64_t d : (*arrays.begin())->shape()) size *= d;
    for (const ci::Array *a : arrays) {
        if (a->shape() != (*arrays.begin())->shape()) return ci::expect(false, kernel, "the arrays' shapes differ");
    }
    return true;
}

eltwise_forward::primitive_desc forward_desc(const memory::desc &md) {
    return eltwise_forward::primitive_desc(ci::engine(), prop_kind::forward_training,
                                           algorithm::eltwise_relu_use_dst_for_bwd, md, md, 0.f, 0.f);
}

}  // namespace

// relu_forward(x, y) -> bool
PyObject *ci_relu_forward(PyObject *, PyObject *args) {
    const char *name = "relu_forward";
    PyObject *ox, *oy;
    if (!PyArg_ParseTuple(args, "OO", &ox, &oy)) return nullptr;
    ci::Array x, y;
    int64_t size;
    if (!x.get(ox, name, "x", -1, false) || !y.get(oy, name, "y", -1, true) || !flat_size(name, {&x, &y}, size))
        return nullptr;
    return ci::run(name, [&] {
        std::vector<int64_t> key{kForward, size};
        auto *e = static_cast<Forward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto md = ci::plain({size});
            auto entry = std::make_unique<Forward>();
            entry->prim = eltwise_forward(forward_desc(md));
            entry->src = memory(md, ci::engine(), DNNL_MEMORY_NONE);
            entry->dst = memory(md, ci::engine(), DNNL_MEMORY_NONE);
            e = static_cast<Forward *>(ci::cache_store(key, std::move(entry)));
        }
        e->src.set_data_handle(x.data());
        e->dst.set_data_handle(y.data());
        e->prim.execute(ci::stream(), {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_DST, e->dst}});
        ci::stream().wait();
    });
}

// relu_backward(y, gy, gx) -> bool: gx = gy where y > 0, else 0.
PyObject *ci_relu_backward(PyObject *, PyObject *args) {
    const char *name = "relu_backward";
    PyObject *oy, *ogy, *ogx;
    if (!PyArg_ParseTuple(args, "OOO", &oy, &ogy, &ogx)) return nullptr;
    ci::Array y, gy, gx;
    int64_t size;
    if (!y.get(oy, name, "y", -1, false) || !gy.get(ogy, name, "gy", -1, false) || !gx.get(ogx, name, "gx", -1, true) ||
        !flat_size(name, {&y, &gy, &gx}, size))
        return nullptr;
    return ci::run(name, [&] {
        std::vector<int64_t> key{kBackward, size};
        auto *e = static_cast<Backward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto md = ci::plain({size});
            eltwise_backward::primitive_desc pd(ci::engine(), algorithm::eltwise_relu_use_dst_for_bwd, md, md, md, 0.f,
                                                0.f, forward_desc(md));
            auto entry = std::make_unique<Backward>();
            entry->prim = eltwise_backward(pd);
            entry->dst = memory(md, ci::engine(), DNNL_MEMORY_NONE);
            entry->diff_dst = memory(md, ci::engine(), DNNL_MEMORY_NONE);
            entry->diff_src = memory(md, ci::engine(), DNNL_MEMORY_NONE);
            e = static_cast<Backward *>(ci::cache_store(key, std::move(entry)));
        }
        e->dst.set_data_handle(y.data());
        e->diff_dst.set_data_handle(gy.data());
        e->diff_src.set_data_handle(gx.data());
        e->prim.execute(ci::stream(),
                        {{DNNL_ARG_DST, e->dst}, {DNNL_ARG_DIFF_DST, e->diff_dst}, {DNNL_ARG_DIFF_SRC, e->diff_src}});
        ci::stream().wait();
    });
}
