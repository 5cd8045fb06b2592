"""chainer.links: activation links."""
