"""ResNet-50 inference: ``L.ResNet50Layers(pretrained_model=None)`` on one 224x224 image in
test mode without backprop (the links issue asks for under 3 s on a 2-core machine).
Reported as seconds per forward pass; PyTorch has no ResNet-50 without torchvision, so the
figure stands alone against its target."""

from __future__ import annotations

import numpy

import chainer

try:
    from benchmarks import _timing
except ImportError:  # run as a script from the benchmarks folder
    import _timing

TARGET_S = 3.0


def chainer_setup():
    import chainer.links as L

    model = L.ResNet50Layers(pretrained_model=None)
    x = numpy.random.default_rng(0).normal(size=(1, 3, 224, 224)).astype(numpy.float32)

    def step() -> None:
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            model(x, layers=["prob"])

    return step


def run() -> dict[str, float | None]:
    ours = _timing.best_of(chainer_setup(), repeat=3, number=1, warmup=1)
    return {"chainer_s_per_image": ours, "target_s": TARGET_S}


if __name__ == "__main__":
    result = run()
    print(f"chainer: {result['chainer_s_per_image']:.2f} s per 224x224 image (target < {TARGET_S:.0f} s)")
