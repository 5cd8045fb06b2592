// Fully connected layers: y = x W^T + b with x (N, I), W (O, I), y (N, O).
// Every tensor in its plain layout: the weights change at every step, and reordering
// them into a blocked layout (4 MB for 4096x256) cost more than the blocked GEMM saved.
#include <unordered_map>

#include "common.hpp"

using namespace dnnl;

namespace {

enum Op : int64_t { kForward = 11, kBackwardData, kBackwardWeights };

struct Shapes {
    ci::dims x, w, y;
    std::vector<int64_t> key(Op op, bool bias) const { return {op, bias, x[0], x[1], w[0]}; }

    inner_product_forward::primitive_desc forward_desc(bool bias) const {
        memory::desc b = bias ? ci::plain({w[0]}) : memory::desc();
        return inner_product_forward::primitive_desc(ci::engine(), prop_kind::forward_training, ci::plain(x),
                                                     ci::plain(w), b, ci::plain(y));
    }
};

bool parse(const char *kernel, const ci::Array &x, const ci::Array &w, const ci::Array &y, Shapes &s) {
    s.x = x.shape();
    s.w = w.shape();
    s.y = y.shape();
    return ci::expect(s.x[1] == s.w[1] && s.y[0] == s.x[0] && s.y[1] == s.w[0], kernel,
                      "x (N, I), W (O, I) and y (N, O) disagree");
}

struct Forward : ci::Entry {
    inner_product_forward prim;
    ci::Port src, wei, bias, dst;
};

struct BackwardData : ci::Entry {
    inner_product_backward_data prim;
    ci::Port diff_dst, wei, diff_src;
};

struct BackwardWeights : ci::Entry {
    inner_product_backward_weights prim;
    ci::Port src, diff_dst, diff_wei, diff_bias;
};

}  // namespace

// linear_forward(x, W, b or None, y) -> bool
PyObject *ci_linear_forward(PyObject *, PyObject *args) {
    const char *name = "linear_forward";
    PyObject *ox, *ow, *ob, *oy;
    if (!PyArg_ParseTuple(args, "OOOO", &ox, &ow, &ob, &oy)) return nullptr;
    ci::Array x, w, b, y;
    if (!x.get(ox, name, "x", 2, false) || !w.get(ow, name, "W", 2, false) || !b.get(ob, name, "b", 1, false, true) ||
        !y.get(oy, name, "y", 2, true))
        return nullptr;
    Shapes s;
    if (!parse(name, x, w, y, s)) return nullptr;
    bool has_bias = b.present();
    if (has_bias && !ci::expect(b.dim(0) == s.w[0], name, "b must have one element per output")) return nullptr;
    return ci::run(name, [&] {
        auto key = s.key(kForward, has_bias);
        auto *e = static_cast<Forward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto pd = s.forward_desc(has_bias);
            auto entry = std::make_unique<Forward>();
            entry->prim = inner_product_forward(pd);
            entry->src.init(ci::plain(s.x), pd.src_desc(), true, false);
            entry->wei.init(ci::plain(s.w), pd.weights_desc(), true, false);
            if (has_bias) entry->bias.init(ci::plain({s.w[0]}), pd.bias_desc(), true, false);
            entry->dst.init(ci::plain(s.y), pd.dst_desc(), false, true);
            e = static_cast<Forward *>(ci::cache_store(key, std::move(entry)));
        }
        std::unordered_map<int, memory> margs{{DNNL_ARG_SRC, e->src.in(x.data())},
                                              {DNNL_ARG_WEIGHTS, e->wei.in(w.data())},
                                              {DNNL_ARG_DST, e->dst.out(y.data())}};
        if (has_bias) margs[DNNL_ARG_BIAS] = e->bias.in(b.data());
        e->prim.execute(ci::stream(), margs);
        e->dst.finish();
        ci::stream().wait();
    });
}

// linear_backward_data(gy, W, gx) -> bool: gx = gy W.
PyObject *ci_linear_backward_data(PyObject *, PyObject *args) {
    const char *name = "linear_backward_data";
    PyObject *ogy, *ow, *ogx;
    if (!PyArg_ParseTuple(args, "OOO", &ogy, &ow, &ogx)) return nullptr;
    ci::Array gy, w, gx;
    if (!gy.get(ogy, name, "gy", 2, false) || !w.get(ow, name, "W", 2, false) || !gx.get(ogx, name, "gx", 2, true))
        return nullptr;
    Shapes s;
    if (!parse(name, gx, w, gy, s)) return nullptr;
    return ci::run(name, [&] {
        auto key = s.key(kBackwardData, false);
        auto *e = static_cast<BackwardData *>(ci::cache_find(key));
        if (e == nullptr) {
            auto hint = s.forward_desc(false);
            inner_product_backward_data::primitive_desc pd(ci::engine(), ci::plain(s.x), ci::plain(s.w), ci::plain(s.y),
                                                           hint);
            auto entry = std::make_unique<BackwardData>();
            entry->prim = inner_product_backward_data(pd);
            entry->diff_dst.init(ci::plain(s.y), pd.diff_dst_desc(), true, false);
            entry->wei.init(ci::plain(s.w), pd.weights_desc(), true, false);
            entry->diff_src.init(ci::plain(s.x), pd.diff_src_desc(), false, true);
            e = static_cast<BackwardData *>(ci::cache_store(key, std::move(entry)));
        }
        e->prim.execute(ci::stream(), {{DNNL_ARG_DIFF_DST, e->diff_dst.in(gy.data())},
                                       {DNNL_ARG_WEIGHTS, e->wei.in(w.data())},
                                       {DNNL_ARG_DIFF_SRC, e->diff_src.out(gx.data())}});
        e->diff_src.finish();
        ci::stream().wait();
    });
}

// linear_backward_weights(x, gy, gW, gb or None) -> bool: gW = gy^T x, gb = sum of gy.
PyObject *ci_linear_backward_weights(PyObject *, PyObject *args) {
    const char *name = "linear_backward_weights";
    PyObject *ox, *ogy, *ogw, *ogb;
    if (!PyArg_ParseTuple(args, "OOOO", &ox, &ogy, &ogw, &ogb)) return nullptr;
    ci::Array x, gy, gw, gb;
    if (!x.get(ox, name, "x", 2, false) || !gy.get(ogy, name, "gy", 2, false) || !gw.get(ogw, name, "gW", 2, true) ||
        !gb.get(ogb, name, "gb", 1, true, true))
        return nullptr;
    Shapes s;
    if (!parse(name, x, gw, gy, s)) return nullptr;
    bool has_bias = gb.present();
    if (has_bias && !ci::expect(gb.dim(0) == s.w[0], name, "gb must have one element per output")) return nullptr;
    return ci::run(name, [&] {
        auto key = s.key(kBackwardWeights, has_bias);
        auto *e = static_cast<BackwardWeights *>(ci::cache_find(key));
        if (e == nullptr) {
            auto hint = s.forward_desc(has_bias);
            memory::desc bias = has_bias ? ci::plain({s.w[0]}) : memory::desc();
            inner_product_backward_weights::primitive_desc pd(ci::engine(), ci::plain(s.x), ci::plain(s.w), bias,
                                                              ci::plain(s.y), hint);
            auto entry = std::make_unique<BackwardWeights>();
            entry->prim = inner_product_backward_weights(pd);
            entry->src.init(ci::plain(s.x), pd.src_desc(), true, false);
            entry->diff_dst.init(ci::plain(s.y), pd.diff_dst_desc(), true, false);
            entry->diff_wei.init(ci::plain(s.w), pd.diff_weights_desc(), false, true);
            if (has_bias) entry->diff_bias.init(bias, pd.diff_bias_desc(), false, true);
            e = static_cast<BackwardWeights *>(ci::cache_store(key, std::move(entry)));
        }
        std::unordered_map<int, memory> margs{{DNNL_ARG_SRC, e->src.in(x.data())},
                                              {DNNL_ARG_DIFF_DST, e->diff_dst.in(gy.data())},
                                              {DNNL_ARG_DIFF_WEIGHTS, e->diff_wei.out(gw.data())}};
        if (has_bias) margs[DNNL_ARG_DIFF_BIAS] = e->diff_bias.out(gb.data());
        e->prim.execute(ci::stream(), margs);
        e->diff_wei.finish();
        if (has_bias) e->diff_bias.finish();
        ci::stream().wait();
    });
}
