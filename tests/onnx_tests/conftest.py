"""Shared by the onnx_chainer tests: export a model, run the file with onnxruntime and
compare with Chainer's own forward pass on the same inputs."""

import importlib.util

import numpy
import pytest

import chainer

HAVE_ONNX = importlib.util.find_spec("onnx") is not None and importlib.util.find_spec("onnxruntime") is not None


def run_onnx(onnx_model, feeds):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(onnx_model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds)))


def _as_list(y):
    if isinstance(y, chainer.Variable):
        return [y.array]
    if isinstance(y, dict):
        return [v.array for v in y.values()]
    return [v.array for v in y]


@pytest.fixture
def check_export():
    """``check_export(model, args, **export_kwargs)``: the exported model passes the ONNX
    checker and onnxruntime computes what ``model(*args)`` computes (run separately, in
    the same ``train`` mode). Returns the ONNX model."""
    import onnx

    import onnx_chainer

    def check(model, args, rtol=1e-5, atol=1e-6, **kwargs):
        train = kwargs.get("train", False)
        onnx_model, inputs, outputs = onnx_chainer.export(model, args, return_named_inout=True, **kwargs)
        onnx.checker.check_model(onnx_model, full_check=True)
        with chainer.using_config("train", train):
            if isinstance(args, dict):
                expected = _as_list(model(**{k: chainer.Variable(v) for k, v in args.items()}))
            else:
                arrays = args if isinstance(args, (list, tuple)) else [args]
                expected = _as_list(model(*[chainer.Variable(a) for a in arrays]))
        got = run_onnx(onnx_model, {name: var.array for name, var in inputs.items()})
        assert list(got) == list(outputs)
        for (name, value), want in zip(got.items(), expected):
            assert value.shape == want.shape, name
            assert value.dtype == want.dtype, name
            numpy.testing.assert_allclose(value, want, rtol=rtol, atol=atol, err_msg=name)
        return onnx_model

    return check


class Wrap(chainer.Chain):
    """A chain calling ``fn(*inputs)`` (``fn`` may use the chain's links)."""

    def __init__(self, fn, **links):
        super().__init__()
        self.fn = fn
        with self.init_scope():
            for name, link in links.items():
                setattr(self, name, link)

    def forward(self, *xs):
        return self.fn(self, *xs)


@pytest.fixture(name="run_onnx")
def run_onnx_fixture():
    """``run_onnx(onnx_model, feeds)`` -> ``{output name: array}`` with onnxruntime."""
    return run_onnx


@pytest.fixture
def wrap():
    """The :class:`Wrap` chain class."""
    return Wrap


def computed_op_types(onnx_model):
    """The operator types of the nodes of ``onnx_model`` that compute something: without
    the Constant nodes of constants (and the Cast that types one before opset 9)."""
    return [n.op_type for n in onnx_model.graph.node if n.op_type != "Constant" and "_const_" not in n.name]


@pytest.fixture
def op_types():
    """``op_types(onnx_model)``: see :func:`computed_op_types`."""
    return computed_op_types
