// Max and average pooling over 1 to 3 spatial axes, forward and backward, in the plain
// layout (pooling reads each element about once: a reorder would cost as much as it).
//
// Max pooling keeps, per output, the flat offset of its window's maximum (dy * kw + dx)
// as one byte: oneDNN's workspace in the plain layout, which is also chainer-core's
// `indexes` (int8), so either half of a forward/backward pair may run on either code.
#include <unordered_map>

#include "common.hpp"

using namespace dnnl;

namespace {

enum Op : int64_t { kForward = 31, kBackward };

// 0: max, 1: average with the padding counted (Chainer's pad_value=0), 2: average over
// the elements inside the image (pad_value=None).
algorithm pooling_kind(long kind) {
    switch (kind) {
        case 0: return algorithm::pooling_max;
        case 1: return algorithm::pooling_avg_include_padding;
        default: return algorithm::pooling_avg_exclude_padding;
    }
}

struct Geometry {
    ci::dims x, y, kernel, strides, pad_l, pad_r;
    long kind = 0;

    std::vector<int64_t> key(Op op) const {
        std::vector<int64_t> k{op, kind, (int64_t)x.size()};
        for (const ci::dims *d : {&x, &y, &kernel, &strides, &pad_l, &pad_r}) k.insert(k.end(), d->begin(), d->end());
        return k;
    }

    pooling_forward::primitive_desc forward_desc() const {
        ci::dims dilation(kernel.size(), 0);
        return pooling_forward::primitive_desc(ci::engine(), prop_kind::forward_training, pooling_kind(kind),
                                               ci::plain(x), ci::plain(y), strides, kernel, dilation, pad_l, pad_r);
    }

    // The workspace must be the one-byte window offsets of y's shape; oneDNN's choice
    // otherwise (none for averages) is declined.
    void check_workspace(const pooling_forward::primitive_desc &pd) const {
        if (kind == 0 && pd.workspace_desc() != memory::desc(y, memory::data_type::u8, ci::plain(y).get_strides()))
            throw ci::declined("the max pooling workspace is not the plain window offsets");
    }
};

bool parse(const char *kernel, const ci::Array &x, const ci::Array &y, long kind, PyObject *ksize, PyObject *stride,
           PyObject *pad_l, PyObject *pad_r, Geometry &g) {
    g.x = x.shape();
    g.y = y.shape();
    g.kind = kind;
    size_t nd = g.x.size() - 2;
    if (!ci::expect(nd >= 1 && nd <= 3, kernel, "x must have 1 to 3 spatial axes") ||
        !ci::expect(kind >= 0 && kind <= 2, kernel, "kind must be 0 (max), 1 or 2 (average)") ||
        !ci::get_ints(ksize, kernel, "ksize", nd, 1, g.kernel) || !ci::get_ints(stride, kernel, "stride", nd, 1, g.strides) ||
        !ci::get_ints(pad_l, kernel, "pad_l", nd, 0, g.pad_l) || !ci::get_ints(pad_r, kernel, "pad_r", nd, 0, g.pad_r))
        return false;
    if (!ci::expect(g.y.size() == g.x.size() && g.y[0] == g.x[0] && g.y[1] == g.x[1], kernel,
                    "x (N, C, ...) and y (N, C, ...) disagree"))
        return false;
    for (size_t i = 0; i < nd; ++i) {
        int64_t span = g.x[2 + i] + g.pad_l[i] + g.pad_r[i] - g.kernel[i];
        if (!ci::expect(span >= 0 && span / g.strides[i] + 1 == g.y[2 + i], kernel,
                        "the output size disagrees with the input size, window, stride and padding"))
            return false;
    }
    return true;
}

bool check_workspace_shape(const char *kernel, const ci::Array &ws, const Geometry &g) {
    return ci::expect(ws.shape() == g.y, kernel, "indexes must have y's shape");
}

struct Forward : ci::Entry {
    pooling_forward prim;
    memory src, dst, ws;
};

struct Backward : ci::Entry {
    pooling_backward prim;
    memory diff_dst, diff_src, ws;
};

}  // namespace

// pooling_forward(x, y, indexes or None, kind, ksize, stride, pad_l, pad_r) -> bool;
// indexes (int8, y's shape) receives the max pooling's window offsets.
PyObject *ci_pooling_forward(PyObject *, PyObject *args) {
    const char *name = "pooling_forward";
    PyObject *ox, *oy, *ows, *ksize, *stride, *pad_l, *pad_r;
    long kind;
    if (!PyArg_ParseTuple(args, "OOOlOOOO", &ox, &oy, &ows, &kind, &ksize, &stride, &pad_l, &pad_r)) return nullptr;
    ci::Array x, y, ws;
    if (!x.get(ox, name, "x", -1, false) || !y.get(oy, name, "y", -1, true)) return nullptr;
    Geometry g;
    if (!parse(name, x, y, kind, ksize, stride, pad_l, pad_r, g)) return nullptr;
    if (kind == 0 && (!ws.get_bytes(ows, name, "indexes", (int)g.y.size(), true) || !check_workspace_shape(name, ws, g)))
        return nullptr;
    return ci::run(name, [&] {
        auto key = g.key(kForward);
        auto *e = static_cast<Forward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto pd = g.forward_desc();
            g.check_workspace(pd);
            auto entry = std::make_unique<Forward>();
            entry->prim = pooling_forward(pd);
            entry->src = memory(pd.src_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->dst = memory(pd.dst_desc(), ci::engine(), DNNL_MEMORY_NONE);
            if (kind == 0) entry->ws = memory(pd.workspace_desc(), ci::engine(), DNNL_MEMORY_NONE);
            e = static_cast<Forward *>(ci::cache_store(key, std::move(entry)));
        }
        e->src.set_data_handle(x.data());
        e->dst.set_data_handle(y.data());
        std::unordered_map<int, memory> margs{{DNNL_ARG_SRC, e->src}, {DNNL_ARG_DST, e->dst}};
        if (kind == 0) {
            e->ws.set_data_handle(ws.data());
            margs[DNNL_ARG_WORKSPACE] = e->ws;
        }
        e->prim.execute(ci::stream(), margs);
        ci::stream().wait();
    });
}

// pooling_backward(gy, gx, indexes or None, kind, ksize, stride, pad_l, pad_r) -> bool;
// the max pooling's gradient goes where indexes (its forward's window offsets) point.
PyObject *ci_pooling_backward(PyObject *, PyObject *args) {
    const char *name = "pooling_backward";
    PyObject *ogy, *ogx, *ows, *ksize, *stride, *pad_l, *pad_r;
    long kind;
    if (!PyArg_ParseTuple(args, "OOOlOOOO", &ogy, &ogx, &ows, &kind, &ksize, &stride, &pad_l, &pad_r)) return nullptr;
    ci::Array gy, gx, ws;
    if (!gy.get(ogy, name, "gy", -1, false) || !gx.get(ogx, name, "gx", -1, true)) return nullptr;
    Geometry g;
    if (!parse(name, gx, gy, kind, ksize, stride, pad_l, pad_r, g)) return nullptr;
    if (kind == 0 && (!ws.get_bytes(ows, name, "indexes", (int)g.y.size(), false) || !check_workspace_shape(name, ws, g)))
        return nullptr;
    return ci::run(name, [&] {
        auto key = g.key(kBackward);
        auto *e = static_cast<Backward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto hint = g.forward_desc();
            g.check_workspace(hint);
            ci::dims dilation(g.kernel.size(), 0);
            pooling_backward::primitive_desc pd(ci::engine(), pooling_kind(kind), ci::plain(g.x), ci::plain(g.y),
                                                g.strides, g.kernel, dilation, g.pad_l, g.pad_r, hint);
            auto entry = std::make_unique<Backward>();
            entry->prim = pooling_backward(pd);
            entry->diff_dst = memory(pd.diff_dst_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->diff_src = memory(pd.diff_src_desc(), ci::engine(), DNNL_MEMORY_NONE);
            if (kind == 0) entry->ws = memory(hint.workspace_desc(), ci::engine(), DNNL_MEMORY_NONE);
            e = static_cast<Backward *>(ci::cache_store(key, std::move(entry)));
        }
        e->diff_dst.set_data_handle(gy.data());
        e->diff_src.set_data_handle(gx.data());
        std::unordered_map<int, memory> margs{{DNNL_ARG_DIFF_DST, e->diff_dst}, {DNNL_ARG_DIFF_SRC, e->diff_src}};
        if (kind == 0) {
            e->ws.set_data_handle(ws.data());
            margs[DNNL_ARG_WORKSPACE] = e->ws;
        }
        e->prim.execute(ci::stream(), margs);
        ci::stream().wait();
    });
}
