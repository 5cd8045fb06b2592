"""ResNet-50 inference: ``L.ResNet50Layers(pretrained_model=None)`` on one 224x224 image in
test mode without backprop (the links issue asks for under 3 s on a 2-core machine).
Reported as seconds per forward pass, on '@numpy' and, with chainer-intel64, on '@intel64'
(``use_ideep='auto'``), beside the same network written here with ``torch.nn`` (MSRA's
ResNet-50 as ``L.ResNet50Layers`` builds it: the stride on each stage's first 1x1
convolution), each side in fresh processes in alternation.

    python benchmarks/resnet50.py [--side ours|intel64|torch]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

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


def torch_setup(torch: Any) -> Callable[[], None]:
    nn = torch.nn

    def conv_bn(cin: int, cout: int, k: int, stride: int, relu: bool) -> Any:
        layers = [nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout)]
        return nn.Sequential(*layers, nn.ReLU()) if relu else nn.Sequential(*layers)

    class Bottleneck(nn.Module):
        def __init__(self, cin: int, mid: int, stride: int) -> None:
            super().__init__()
            self.body = nn.Sequential(
                conv_bn(cin, mid, 1, stride, True), conv_bn(mid, mid, 3, 1, True), conv_bn(mid, mid * 4, 1, 1, False)
            )
            self.shortcut = conv_bn(cin, mid * 4, 1, stride, False) if stride != 1 or cin != mid * 4 else None

        def forward(self, x: Any) -> Any:
            return torch.relu(self.body(x) + (x if self.shortcut is None else self.shortcut(x)))

    blocks: list[Any] = [conv_bn(3, 64, 7, 2, True), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for mid, count, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(count):
            blocks.append(Bottleneck(cin, mid, stride if i == 0 else 1))
            cin = mid * 4
    model = nn.Sequential(*blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000), nn.Softmax(1)).eval()
    x = torch.from_numpy(numpy.random.default_rng(0).normal(size=(1, 3, 224, 224)).astype(numpy.float32))

    def step() -> None:
        with torch.no_grad():
            model(x)

    return step


def run() -> dict[str, float | None]:
    """Seconds per image of each side (fresh processes in alternation)."""
    sides = ("ours", "torch", "intel64") if _timing.intel64_available() else ("ours", "torch")
    best = _timing.fresh_process_best("resnet50.py", sides=sides, rounds=2)
    return {
        "chainer_s_per_image": best["ours"],
        "intel64_s_per_image": best.get("intel64"),
        "torch_s_per_image": best.get("torch"),
        "target_s": TARGET_S,
    }


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--side":
        _timing.print_side(sys.argv[2], chainer_setup, torch_setup, number=1)
        sys.exit(0)
    result = run()
    print(f"chainer: {result['chainer_s_per_image']:.3f} s per 224x224 image (target < {TARGET_S:.0f} s)")
    if result["intel64_s_per_image"] is not None:
        print(f"chainer on @intel64 (use_ideep='auto'): {result['intel64_s_per_image']:.3f} s per image")
    if result["torch_s_per_image"] is not None:
        print(f"torch:   {result['torch_s_per_image']:.3f} s per image")
