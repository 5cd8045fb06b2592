"""chainer.functions: array functions."""
