"""Caffe model support: :class:`CaffeFunction` runs a ``.caffemodel`` network.

Needs the protobuf package (``pip install 'chainer-links[caffe]'``).
"""

from chainer.links.caffe.caffe_function import CaffeFunction

__all__ = ["CaffeFunction"]
