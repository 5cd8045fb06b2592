"""chainer.functions: normalization functions."""
