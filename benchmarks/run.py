"""Run every benchmark and print our time next to PyTorch CPU's, measured in the same run.

nox -s bench            (installs torch==2.13.0 in the bench environment only)
python benchmarks/run.py [name ...]
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

BENCHMARKS = ["overhead", "cnn", "mlp", "lstm", "static_graph", "resnet50"]


def main(names: list[str]) -> int:
    selected = names or BENCHMARKS
    for name in selected:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            print(f"{name}: skipped ({exc})")
            continue
        result = module.run()
        print(f"== {name}")
        for key, value in result.items():
            print(f"  {key}: {'n/a' if value is None else f'{value:.3f}'}")
        ours = [v for k, v in result.items() if k.startswith("chainer")]
        theirs = [v for k, v in result.items() if k.startswith("torch")]
        if ours and theirs and theirs[0]:
            print(f"  ratio chainer/torch: {ours[0] / theirs[0]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
