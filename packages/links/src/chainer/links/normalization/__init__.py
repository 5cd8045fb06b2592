"""chainer.links: normalization links."""
