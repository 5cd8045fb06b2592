// Batch normalization (training: batch statistics) and local response normalization
// across channels, forward and backward, in the plain layout.
#include <cstring>
#include <unordered_map>

#include "common.hpp"

using namespace dnnl;

namespace {

enum Op : int64_t { kBatchForward = 41, kBatchBackward, kLrnForward, kLrnBackward };

int64_t bits(double value) {
    int64_t out;
    std::memcpy(&out, &value, sizeof out);
    return out;
}

std::vector<int64_t> key_of(Op op, const ci::dims &shape, std::initializer_list<double> numbers) {
    std::vector<int64_t> k{op};
    k.insert(k.end(), shape.begin(), shape.end());
    for (double v : numbers) k.push_back(bits(v));
    return k;
}

const normalization_flags kScaleShift = normalization_flags::use_scale | normalization_flags::use_shift;

batch_normalization_forward::primitive_desc batch_forward_desc(const ci::dims &shape, float eps) {
    auto md = ci::plain(shape);
    return batch_normalization_forward::primitive_desc(ci::engine(), prop_kind::forward_training, md, md, eps,
                                                       kScaleShift);
}

// The statistics and parameters: one float per channel (axis 1).
bool get_channels(const char *kernel, ci::Array &a, PyObject *obj, const char *name, bool writable, int64_t channels) {
    return a.get(obj, kernel, name, 1, writable) &&
           ci::expect(a.dim(0) == channels, kernel, "gamma, beta and the statistics need one value per channel");
}

struct BatchForward : ci::Entry {
    batch_normalization_forward prim;
    memory src, dst, scale, shift, mean, variance;
};

struct BatchBackward : ci::Entry {
    batch_normalization_backward prim;
    memory src, diff_dst, scale, mean, variance, diff_src, diff_scale, diff_shift;
};

// LRN with a window of `local_size` channels centred on each (an odd size); oneDNN
// divides alpha by the window size, Chainer does not.
lrn_forward::primitive_desc lrn_forward_desc(const ci::dims &shape, int64_t local_size, float k, float alpha,
                                             float beta) {
    auto md = ci::plain(shape);
    return lrn_forward::primitive_desc(ci::engine(), prop_kind::forward_training, algorithm::lrn_across_channels, md,
                                       md, local_size, alpha * local_size, beta, k);
}

struct LrnForward : ci::Entry {
    lrn_forward prim;
    memory src, dst, ws;
};

struct LrnBackward : ci::Entry {
    lrn_forward forward;
    lrn_backward prim;
    memory src, dst, diff_dst, diff_src, ws;
};

bool parse_lrn(const char *kernel, long long local_size, double k, double alpha, double beta) {
    return ci::expect(local_size >= 1 && local_size % 2 == 1 && local_size < (1LL << 20), kernel,
                      "the window must be an odd number of channels below 2**20") &&
           ci::expect(k > 0 && alpha >= 0 && beta >= 0, kernel, "k must be positive, alpha and beta non-negative");
}

}  // namespace

// batch_norm_forward(x, gamma, beta, y, mean, var, eps) -> bool: y, and the batch mean
// and biased variance per channel (axis 1 of x, which has 2 to 5 axes).
PyObject *ci_batch_norm_forward(PyObject *, PyObject *args) {
    const char *name = "batch_norm_forward";
    PyObject *ox, *og, *ob, *oy, *om, *ov;
    double eps;
    if (!PyArg_ParseTuple(args, "OOOOOOd", &ox, &og, &ob, &oy, &om, &ov, &eps)) return nullptr;
    ci::Array x, gamma, beta, y, mean, var;
    if (!x.get(ox, name, "x", -1, false) || !y.get(oy, name, "y", -1, true)) return nullptr;
    ci::dims shape = x.shape();
    if (!ci::expect(shape.size() >= 2 && shape.size() <= 5 && y.shape() == shape, name,
                    "x must have 2 to 5 axes and y its shape") ||
        !ci::expect(eps > 0, name, "eps must be positive") ||
        !get_channels(name, gamma, og, "gamma", false, shape[1]) ||
        !get_channels(name, beta, ob, "beta", false, shape[1]) ||
        !get_channels(name, mean, om, "mean", true, shape[1]) || !get_channels(name, var, ov, "var", true, shape[1]))
        return nullptr;
    return ci::run(name, [&] {
        auto key = key_of(kBatchForward, shape, {eps});
        auto *e = static_cast<BatchForward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto pd = batch_forward_desc(shape, (float)eps);
            auto entry = std::make_unique<BatchForward>();
            entry->prim = batch_normalization_forward(pd);
            entry->src = memory(pd.src_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->dst = memory(pd.dst_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->scale = memory(pd.weights_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->shift = memory(pd.weights_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->mean = memory(pd.mean_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->variance = memory(pd.variance_desc(), ci::engine(), DNNL_MEMORY_NONE);
            e = static_cast<BatchForward *>(ci::cache_store(key, std::move(entry)));
        }
        e->src.set_data_handle(x.data());
        e->dst.set_data_handle(y.data());
        e->scale.set_data_handle(gamma.data());
        e->shift.set_data_handle(beta.data());
        e->mean.set_data_handle(mean.data());
        e->variance.set_data_handle(var.data());
        e->prim.execute(ci::stream(), {{DNNL_ARG_SRC, e->src},
                                       {DNNL_ARG_DST, e->dst},
                                       {DNNL_ARG_SCALE, e->scale},
                                       {DNNL_ARG_SHIFT, e->shift},
                                       {DNNL_ARG_MEAN, e->mean},
                                       {DNNL_ARG_VARIANCE, e->variance}});
        ci::stream().wait();
    });
}


// batch_norm_backward(x, gy, gamma, mean, var, gx, ggamma, gbeta, eps) -> bool: the gradients, with
// 1 / sqrt(var + eps) the forward's inverse standard deviation.
PyObject *ci_batch_norm_backward(PyObject *, PyObject *args) {
    const char *name = "batch_norm_backward";
    PyObject *ox, *ogy, *og, *om, *ov, *ogx, *ogg, *ogb;
    double eps;
    if (!PyArg_ParseTuple(args, "OOOOOOOOd", &ox, &ogy, &og, &om, &ov, &ogx, &ogg, &ogb, &eps)) return nullptr;
    ci::Array x, gy, gamma, mean, var, gx, ggamma, gbeta;
    if (!x.get(ox, name, "x", -1, false) || !gy.get(ogy, name, "gy", -1, false) || !gx.get(ogx, name, "gx", -1, true))
        return nullptr;
    ci::dims shape = x.shape();
    if (!ci::expect(shape.size() >= 2 && shape.size() <= 5 && gy.shape() == shape && gx.shape() == shape, name,
                    "x must have 2 to 5 axes, gy and gx its shape") ||
        !ci::expect(eps >= 0, name, "eps must not be negative") ||
        !get_channels(name, gamma, og, "gamma", false, shape[1]) ||
        !get_channels(name, mean, om, "mean", false, shape[1]) ||
        !get_channels(name, var, ov, "var", false, shape[1]) ||
        !get_channels(name, ggamma, ogg, "ggamma", true, shape[1]) ||
        !get_channels(name, gbeta, ogb, "gbeta", true, shape[1]))
        return nullptr;
    return ci::run(name, [&] {
        auto key = key_of(kBatchBackward, shape, {eps});
        auto *e = static_cast<BatchBackward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto md = ci::plain(shape);
            auto hint = batch_forward_desc(shape, (float)eps);
            batch_normalization_backward::primitive_desc pd(ci::engine(), prop_kind::backward, md, md, md, (float)eps,
                                                            kScaleShift, hint);
            auto entry = std::make_unique<BatchBackward>();
            entry->prim = batch_normalization_backward(pd);
            for (memory *m : {&entry->src, &entry->diff_dst, &entry->diff_src}) *m = memory(md, ci::engine(), nullptr);
            for (memory *m : {&entry->scale, &entry->diff_scale, &entry->diff_shift})
                *m = memory(pd.weights_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->mean = memory(pd.mean_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->variance = memory(pd.variance_desc(), ci::engine(), DNNL_MEMORY_NONE);
            e = static_cast<BatchBackward *>(ci::cache_store(key, std::move(entry)));
        }
        e->src.set_data_handle(x.data());
        e->diff_dst.set_data_handle(gy.data());
        e->diff_src.set_data_handle(gx.data());
        e->scale.set_data_handle(gamma.data());
        e->mean.set_data_handle(mean.data());
        e->variance.set_data_handle(var.data());
        e->diff_scale.set_data_handle(ggamma.data());
        e->diff_shift.set_data_handle(gbeta.data());
        e->prim.execute(ci::stream(), {{DNNL_ARG_SRC, e->src},
                                       {DNNL_ARG_DIFF_DST, e->diff_dst},
                                       {DNNL_ARG_SCALE, e->scale},
                                       {DNNL_ARG_MEAN, e->mean},
                                       {DNNL_ARG_VARIANCE, e->variance},
                                       {DNNL_ARG_DIFF_SRC, e->diff_src},
                                       {DNNL_ARG_DIFF_SCALE, e->diff_scale},
                                       {DNNL_ARG_DIFF_SHIFT, e->diff_shift}});
        ci::stream().wait();
    });
}

// lrn_forward(x, y, local_size, k, alpha, beta) -> bool: y = x / (k + alpha * sum of
// x^2 over the local_size channels centred on each)^beta (x has 2 to 5 axes).
PyObject *ci_lrn_forward(PyObject *, PyObject *args) {
    const char *name = "lrn_forward";
    PyObject *ox, *oy;
    long long local_size;
    double k, alpha, beta;
    if (!PyArg_ParseTuple(args, "OOLddd", &ox, &oy, &local_size, &k, &alpha, &beta)) return nullptr;
    ci::Array x, y;
    if (!x.get(ox, name, "x", -1, false) || !y.get(oy, name, "y", -1, true)) return nullptr;
    ci::dims shape = x.shape();
    if (!ci::expect(shape.size() >= 2 && shape.size() <= 5 && y.shape() == shape, name,
                    "x must have 2 to 5 axes and y its shape") ||
        !parse_lrn(name, local_size, k, alpha, beta))
        return nullptr;
    return ci::run(name, [&] {
        auto key = key_of(kLrnForward, shape, {(double)local_size, k, alpha, beta});
        auto *e = static_cast<LrnForward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto pd = lrn_forward_desc(shape, local_size, (float)k, (float)alpha, (float)beta);
            auto entry = std::make_unique<LrnForward>();
            entry->prim = lrn_forward(pd);
            entry->src = memory(pd.src_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->dst = memory(pd.dst_desc(), ci::engine(), DNNL_MEMORY_NONE);
            entry->ws = memory(pd.workspace_desc(), ci::engine());
            e = static_cast<LrnForward *>(ci::cache_store(key, std::move(entry)));
        }
        e->src.set_data_handle(x.data());
        e->dst.set_data_handle(y.data());
        e->prim.execute(ci::stream(), {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_DST, e->dst}, {DNNL_ARG_WORKSPACE, e->ws}});
        ci::stream().wait();
    });
}

// lrn_backward(x, gy, gx, local_size, k, alpha, beta) -> bool. oneDNN's backward reads
// a workspace of its forward, which is recomputed here (the forward's is not kept
// between the calls, as another call may have used the cached primitive since).
PyObject *ci_lrn_backward(PyObject *, PyObject *args) {
    const char *name = "lrn_backward";
    PyObject *ox, *ogy, *ogx;
    long long local_size;
    double k, alpha, beta;
    if (!PyArg_ParseTuple(args, "OOOLddd", &ox, &ogy, &ogx, &local_size, &k, &alpha, &beta)) return nullptr;
    ci::Array x, gy, gx;
    if (!x.get(ox, name, "x", -1, false) || !gy.get(ogy, name, "gy", -1, false) || !gx.get(ogx, name, "gx", -1, true))
        return nullptr;
    ci::dims shape = x.shape();
    if (!ci::expect(shape.size() >= 2 && shape.size() <= 5 && gy.shape() == shape && gx.shape() == shape, name,
                    "x must have 2 to 5 axes, gy and gx its shape") ||
        !parse_lrn(name, local_size, k, alpha, beta))
        return nullptr;
    return ci::run(name, [&] {
        auto key = key_of(kLrnBackward, shape, {(double)local_size, k, alpha, beta});
        auto *e = static_cast<LrnBackward *>(ci::cache_find(key));
        if (e == nullptr) {
            auto hint = lrn_forward_desc(shape, local_size, (float)k, (float)alpha, (float)beta);
            auto md = ci::plain(shape);
            lrn_backward::primitive_desc pd(ci::engine(), algorithm::lrn_across_channels, md, md, md, local_size,
                                            (float)(alpha * local_size), (float)beta, (float)k, hint);
            auto entry = std::make_unique<LrnBackward>();
            entry->forward = lrn_forward(hint);
            entry->prim = lrn_backward(pd);
            for (memory *m : {&entry->src, &entry->diff_dst, &entry->diff_src})
                *m = memory(md, ci::engine(), DNNL_MEMORY_NONE);
            entry->dst = memory(md, ci::engine());
            entry->ws = memory(hint.workspace_desc(), ci::engine());
            e = static_cast<LrnBackward *>(ci::cache_store(key, std::move(entry)));
        }
        e->src.set_data_handle(x.data());
        e->diff_dst.set_data_handle(gy.data());
        e->diff_src.set_data_handle(gx.data());
        e->forward.execute(ci::stream(), {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_DST, e->dst}, {DNNL_ARG_WORKSPACE, e->ws}});
        e->prim.execute(ci::stream(), {{DNNL_ARG_SRC, e->src},
                                       {DNNL_ARG_DIFF_DST, e->diff_dst},
                                       {DNNL_ARG_WORKSPACE, e->ws},
                                       {DNNL_ARG_DIFF_SRC, e->diff_src}});
        ci::stream().wait();
    });
}
