"""chainer.functions: math functions."""
