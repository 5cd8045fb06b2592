"""chainer.links: loss links."""
