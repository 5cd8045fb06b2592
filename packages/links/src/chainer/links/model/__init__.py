"""chainer.links: model links."""
