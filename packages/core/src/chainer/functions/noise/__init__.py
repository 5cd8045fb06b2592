"""chainer.functions: noise functions."""
