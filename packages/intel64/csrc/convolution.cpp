// Convolutions over 1 to 3 spatial axes: forward, and backward to the data and to the
// weights (and bias). A transposed convolution (deconvolution) is the backward-data
// primitive, so the Python side serves it with these three.
#include <unordered_map>

#include "common.hpp"

using namespace dnnl;

namespace {

enum Op : int64_t { kForward = 1, kBackwardData, kBackwardWeights };

// The geometry of one call: the image x (N, C, *S), the kernel W (O, C/g, *K), the
// output y (N, O, *L) and the per-axis stride, dilation (oneDNN's: Chainer's minus one)
// and the padding before and after.
struct Geometry {
    ci::dims x, w, y, strides, dilates, pad_l, pad_r;
    int64_t groups = 1;

    // W's dims for oneDNN: (g, O/g, C/g, *K) with groups, same memory as (O, C/g, *K).
    ci::dims weights() const {
        if (groups == 1) return w;
        ci::dims out{groups, w[0] / groups};
        out.insert(out.end(), w.begin() + 1, w.end());
        return out;
    }

    std::vector<int64_t> key(Op op, bool bias) const {
        std::vector<int64_t> k{op, bias, groups, (int64_t)x.size()};
        for (const ci::dims *d : {&x, &w, &y, &strides, &dilates, &pad_l, &pad_r}) k.insert(k.end(), d->begin(), d->end());
        return k;
    }

    convolution_forward::primitive_desc forward_desc(bool bias) const {
        memory::desc b = bias ? ci::plain({w[0]}) : memory::desc();
        return convolution_forward::primitive_desc(ci::engine(), prop_kind::forward_training,
                                                   algorithm::convolution_direct, ci::any(x), ci::any(weights()), b, ci::any(y),
                                                   strides, dilates, pad_l, pad_r);
    }
};

// Parses (image, kernel, output, stride, dilate, pad_l, pad_r, groups) where `image`,
// `kernel` and `output` are already fetched; checks that the shapes agree.
bool parse_geometry(const char *kernel, const ci::Array &x, const ci::Array &w, const ci::Array &y, PyObject *stride,
                    PyObject *dilate, PyObject *pad_l, PyObject *pad_r, long long groups, Geometry &g) {
    g.x = x.shape();
    g.w = w.shape();
    g.y = y.shape();
    size_t nd = g.x.size() - 2;
    if (!ci::get_ints(stride, kernel, "stride", nd, 1, g.strides)) return false;
    if (!ci::get_ints(dilate, kernel, "dilate", nd, 1, g.dilates)) return false;
    if (!ci::get_ints(pad_l, kernel, "pad_l", nd, 0, g.pad_l)) return false;
    if (!ci::get_ints(pad_r, kernel, "pad_r", nd, -(1LL << 31), g.pad_r)) return false;
    if (groups < 1 || groups > g.w[0]) {
        PyErr_Format(PyExc_ValueError, "chainer_intel64.%s: groups must be in [1, O], got %lld", kernel, groups);
        return false;
    }
    g.groups = groups;
    if (!ci::expect(g.w[0] % groups == 0 && g.x[1] == g.w[1] * groups && g.y[0] == g.x[0] && g.y[1] == g.w[0],
                    kernel, "x (N, C, ...), W (O, C / groups, ...) and y (N, O, ...) disagree"))
        return false;
    for (size_t i = 0; i < nd; ++i) {
        int64_t extent = (g.w[2 + i] - 1) * g.dilates[i] + 1;
        int64_t span = g.x[2 + i] + g.pad_l[i] + g.pad_r[i] - extent;
        if (!ci::expect(span >= 0 && span / g.strides[i] + 1 == g.y[2 + i], kernel,
                        "the output size disagrees with the input size, kernel, stride, dilation and padding"))
            return false;
        g.dilates[i] -= 1;
    }
    return true;
}

struct Forward : ci::Entry {
    convolution_forward prim;
    ci::Port src, wei, bias, dst;
};

struct BackwardData : ci::Entry {
    convolution_backward_data prim;
    ci::Port diff_dst, wei, diff_src;
};

struct BackwardWeights : ci::Entry {
    convolution_backward_weights prim;
    ci::Port src, diff_dst, diff_wei, diff_bias;
};

}  // namespace

// conv_forward(x, W, b or None, y, stride, dilate, pad_l, pad_r, groups) -> bool
PyObject *ci_conv_forward(PyObject *, PyObject *args) {
    const char *name = "conv_forward";
    PyObject *ox, *ow, *ob, *oy, *stride, *dilate, *pad_l, *pad_r;
    long long groups;
    if (!PyArg_ParseTuple(args, "OOOOOOOOL", &ox, &ow, &ob, &oy, &stride, &dilate, &pad_l, &pad_r, &groups))
        return nullptr;
    ci::Array x, w, b, y;
    if (!x.get(ox, name, "x", -1, false)) return nullptr;
    int ndim = (int)x.shape().size();
    if (!ci::expect(ndim >= 3 && ndim <= 5, name, "x must have 1 to 3 spatial axes")) return nullptr;
    if (!w.get(ow, name, "W", ndim, false) || !b.get(ob, name, "b", 1, false, true) || !y.get(oy, name, "y", ndim, true))
        return nullptr;
    Geometry g;
    if (!parse_geometry(name, x, w, y, stride, dilate, pad_l, pad_r, groups, g)) return nullptr;
    bool has_bias = b.present();
    if (has_bias && !ci::expect(b.dim(0) == g.w[0], name, "b must have one element per output channel"))
        return nullptr;
    return ci::run(name, [&] {
        auto key = g.key(kForward, has_bias);
        auto *e = static_cast<Forward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto pd = g.forward_desc(has_bias);
            auto entry = std::make_unique<Forward>();
            entry->prim = convolution_forward(pd);
            entry->src.init(ci::plain(g.x), pd.src_desc(), true, false);
            entry->wei.init(ci::plain(g.weights()), pd.weights_desc(), true, false);
            if (has_bias) entry->bias.init(ci::plain({g.w[0]}), pd.bias_desc(), true, false);
            entry->dst.init(ci::plain(g.y), pd.dst_desc(), false, true);
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

// conv_backward_data(gy, W, gx, stride, dilate, pad_l, pad_r, groups) -> bool: gx is the
// gradient of the image of the convolution (equivalently, the transposed convolution
// of gy with W).
PyObject *ci_conv_backward_data(PyObject *, PyObject *args) {
    const char *name = "conv_backward_data";
    PyObject *ogy, *ow, *ogx, *stride, *dilate, *pad_l, *pad_r;
    long long groups;
    if (!PyArg_ParseTuple(args, "OOOOOOOL", &ogy, &ow, &ogx, &stride, &dilate, &pad_l, &pad_r, &groups))
        return nullptr;
    ci::Array gy, w, gx;
    if (!gy.get(ogy, name, "gy", -1, false)) return nullptr;
    int ndim = (int)gy.shape().size();
    if (!ci::expect(ndim >= 3 && ndim <= 5, name, "gy must have 1 to 3 spatial axes")) return nullptr;
    if (!w.get(ow, name, "W", ndim, false) || !gx.get(ogx, name, "gx", ndim, true)) return nullptr;
    Geometry g;
    if (!parse_geometry(name, gx, w, gy, stride, dilate, pad_l, pad_r, groups, g)) return nullptr;
    return ci::run(name, [&] {
        auto key = g.key(kBackwardData, false);
        auto *e = static_cast<BackwardData *>(ci::cache_find(key));
        if (e == nullptr) {
            auto hint = g.forward_desc(false);
            convolution_backward_data::primitive_desc pd(ci::engine(), algorithm::convolution_direct, ci::any(g.x),
                                                         ci::any(g.weights()), ci::any(g.y), g.strides, g.dilates,
                                                         g.pad_l, g.pad_r, hint);
            auto entry = std::make_unique<BackwardData>();
            entry->prim = convolution_backward_data(pd);
            entry->diff_dst.init(ci::plain(g.y), pd.diff_dst_desc(), true, false);
            entry->wei.init(ci::plain(g.weights()), pd.weights_desc(), true, false);
            entry->diff_src.init(ci::plain(g.x), pd.diff_src_desc(), false, true);
            e = static_cast<BackwardData *>(ci::cache_store(key, std::move(entry)));
        }
        e->prim.execute(ci::stream(), {{DNNL_ARG_DIFF_DST, e->diff_dst.in(gy.data())},
                                       {DNNL_ARG_WEIGHTS, e->wei.in(w.data())},
                                       {DNNL_ARG_DIFF_SRC, e->diff_src.out(gx.data())}});
        e->diff_src.finish();
        ci::stream().wait();
    });
}

// conv_backward_weights(x, gy, gW, gb or None, stride, dilate, pad_l, pad_r, groups)
// -> bool: the gradients of the kernel (and of the bias, if gb is given).
PyObject *ci_conv_backward_weights(PyObject *, PyObject *args) {
    const char *name = "conv_backward_weights";
    PyObject *ox, *ogy, *ogw, *ogb, *stride, *dilate, *pad_l, *pad_r;
    long long groups;
    if (!PyArg_ParseTuple(args, "OOOOOOOOL", &ox, &ogy, &ogw, &ogb, &stride, &dilate, &pad_l, &pad_r, &groups))
        return nullptr;
    ci::Array x, gy, gw, gb;
    if (!x.get(ox, name, "x", -1, false)) return nullptr;
    int ndim = (int)x.shape().size();
    if (!ci::expect(ndim >= 3 && ndim <= 5, name, "x must have 1 to 3 spatial axes")) return nullptr;
    if (!gy.get(ogy, name, "gy", ndim, false) || !gw.get(ogw, name, "gW", ndim, true) ||
        !gb.get(ogb, name, "gb", 1, true, true))
        return nullptr;
    Geometry g;
    if (!parse_geometry(name, x, gw, gy, stride, dilate, pad_l, pad_r, groups, g)) return nullptr;
    bool has_bias = gb.present();
    if (has_bias && !ci::expect(gb.dim(0) == g.w[0], name, "gb must have one element per output channel"))
        return nullptr;
    return ci::run(name, [&] {
        auto key = g.key(kBackwardWeights, has_bias);
        auto *e = static_cast<BackwardWeights *>(ci::cache_find(key));
        if (e == nullptr) {
            auto hint = g.forward_desc(has_bias);
            memory::desc bias = has_bias ? ci::plain({g.w[0]}) : memory::desc();
            convolution_backward_weights::primitive_desc pd(ci::engine(), algorithm::convolution_direct, ci::any(g.x),
                                                            ci::any(g.weights()), bias, ci::any(g.y), g.strides,
                                                            g.dilates, g.pad_l, g.pad_r, hint);
            auto entry = std::make_unique<BackwardWeights>();
            entry->prim = convolution_backward_weights(pd);
            entry->src.init(ci::plain(g.x), pd.src_desc(), true, false);
            entry->diff_dst.init(ci::plain(g.y), pd.diff_dst_desc(), true, false);
            entry->diff_wei.init(ci::plain(g.weights()), pd.diff_weights_desc(), false, true);
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
