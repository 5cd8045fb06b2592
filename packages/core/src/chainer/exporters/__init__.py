"""Exporters of Chainer models to other frameworks' formats (:mod:`chainer.exporters.caffe`)."""

from chainer.exporters import caffe

__all__ = ["caffe"]
