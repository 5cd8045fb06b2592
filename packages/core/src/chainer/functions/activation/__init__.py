"""chainer.functions: activation functions."""
