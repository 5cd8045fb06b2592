"""chainer.functions: util functions."""
