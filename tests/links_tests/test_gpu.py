"""The RNN, loss and model-zoo links on a CUDA device give the CPU's results (skipped without CuPy and a GPU)."""

import numpy
import pytest

import chainer
import chainer.links as L


@pytest.fixture
def gpu():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no CUDA device")
    return chainer.get_device("@cupy:0")


def _compare(link, run, gpu):
    # float32 sums in another order: the absolute tolerance follows the output's scale
    # (ResNet-50's pooled features reach ~1e3, where 1e-5 is below one ulp).
    expected = [y.array.copy() for y in run(link, chainer.get_device("@numpy"))]
    link.to_device(gpu)
    outputs = run(link, gpu)
    for y, e in zip(outputs, expected):
        assert chainer.backend.get_device_from_array(y.array) == gpu
        atol = max(1e-5, 2e-6 * float(numpy.abs(e).max(initial=0)))
        numpy.testing.assert_allclose(chainer.backend.CpuDevice().send(y.array), e, rtol=1e-4, atol=atol)


@pytest.mark.gpu
def test_stateful_rnns(gpu):
    x = numpy.random.randn(3, 4).astype(numpy.float32)
    for link in (L.LSTM(4, 5), L.StatefulGRU(4, 5), L.StatefulPeepholeLSTM(4, 5), L.StatefulMGU(4, 5)):

        def run(link, device):
            link.reset_state()
            link(device.send(x))
            return [link(device.send(x[:2]) if isinstance(link, L.LSTM) else device.send(x))]

        _compare(link, run, gpu)


@pytest.mark.gpu
def test_n_step_and_tree_links(gpu):
    xs = [numpy.random.randn(n, 4).astype(numpy.float32) for n in (2, 5, 3)]

    def run_lstm(link, device):
        hy, cy, ys = link(None, None, [device.send(x) for x in xs])
        return [hy, cy, *ys]

    _compare(L.NStepBiLSTM(2, 4, 3, 0.0), run_lstm, gpu)
    x = numpy.random.randn(2, 4).astype(numpy.float32)
    c = numpy.random.randn(2, 3).astype(numpy.float32)

    def run_tree(link, device):
        return list(link(device.send(c), device.send(c), device.send(c), device.send(c), device.send(x)))

    _compare(L.NaryTreeLSTM(4, 3), run_tree, gpu)


@pytest.mark.gpu
def test_losses(gpu):
    x = numpy.random.randn(4, 3).astype(numpy.float32)
    t = numpy.array([0, 3, 2, 1], numpy.int32)
    hsm = L.BinaryHierarchicalSoftmax(3, ((0, 1), (2, 3)))
    _compare(hsm, lambda link, device: [link(device.send(x), device.send(t))], gpu)
    crf = L.CRF1d(3)
    xs = [numpy.random.randn(n, 3).astype(numpy.float32) for n in (2, 4)]
    ys = [numpy.zeros(n, numpy.int32) for n in (2, 4)]
    _compare(
        crf,
        lambda link, device: [
            link([device.send(v) for v in xs], [device.send(v) for v in ys], reduce="no", transpose=True)
        ],
        gpu,
    )
    ns = L.NegativeSampling(3, [1, 2, 3, 4], 2)
    ns.to_device(gpu)
    loss = ns(gpu.send(x), gpu.send(t))
    assert chainer.backend.get_device_from_array(loss.array) == gpu


@pytest.mark.gpu
def test_resnet50_forward(gpu):
    model = L.ResNet50Layers(pretrained_model=None)
    x = numpy.random.randn(1, 3, 64, 64).astype(numpy.float32)

    def run(link, device):
        with chainer.using_config("train", False):
            return [link(device.send(x), layers=["pool5"])["pool5"]]

    _compare(model, run, gpu)
