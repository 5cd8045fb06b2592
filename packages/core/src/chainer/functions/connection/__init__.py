"""chainer.functions: connection functions."""
