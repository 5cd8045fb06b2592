"""chainer.functions: loss functions."""
