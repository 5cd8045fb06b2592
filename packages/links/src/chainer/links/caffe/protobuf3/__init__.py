"""Caffe's protocol-buffer messages (:mod:`~chainer.links.caffe.protobuf3.caffe_pb2`)."""
