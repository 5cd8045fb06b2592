"""chainer.functions: evaluation functions."""
