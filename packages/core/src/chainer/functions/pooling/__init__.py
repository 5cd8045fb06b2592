"""chainer.functions: pooling functions."""
