"""Protocol-buffer message classes of Caffe's model format (``caffe.proto``).

The classes are built at import time from the schema in
:mod:`chainer.links.caffe.protobuf3._schema` with the ``protobuf`` package (the extra
``chainer-links[caffe]``), so they have protobuf's usual API: ``ParseFromString``,
``SerializeToString``, ``HasField``, repeated fields with ``add()``/``append()``, and
the enum values as class attributes (``PoolingParameter.MAX``). Parsing a
``.caffemodel`` reads protobuf's wire format only: nothing is unpickled or executed.

Example:
    >>> from chainer.links.caffe.protobuf3 import caffe_pb2
    >>> net = caffe_pb2.NetParameter()
    >>> layer = net.layer.add()
    >>> layer.name, layer.type = 'relu1', 'ReLU'
    >>> caffe_pb2.NetParameter.FromString(net.SerializeToString()).layer[0].type
    'ReLU'
"""

from __future__ import annotations

from typing import Any

try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "chainer.links.caffe needs the protobuf package to read Caffe models; install it with: "
        "pip install 'chainer-links[caffe]'"
    ) from error

from chainer.links.caffe.protobuf3 import _schema

_PACKAGE = "caffe"
_SCALAR_TYPES = {
    "double": descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
    "float": descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "uint64": descriptor_pb2.FieldDescriptorProto.TYPE_UINT64,
    "int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
    "uint32": descriptor_pb2.FieldDescriptorProto.TYPE_UINT32,
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "bytes": descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
}
_LABELS = {
    "opt": descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
    "rep": descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
    "packed": descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
}


def _default_text(value: Any) -> str:
    # proto2 defaults are given as text in the descriptor.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _add_field(message: Any, spec: _schema.Field) -> None:
    name, number, kind, label, default = spec
    field = message.field.add(name=name, number=number, label=_LABELS[label])
    if kind in _SCALAR_TYPES:
        field.type = _SCALAR_TYPES[kind]
    elif kind.startswith("enum:"):
        field.type = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM
        field.type_name = f".{_PACKAGE}.{kind[len('enum:') :]}"
    else:
        field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
        field.type_name = f".{_PACKAGE}.{kind}"
    if default is not None:
        field.default_value = _default_text(default)
    if label == "packed":
        field.options.packed = True


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(name="chainer/links/caffe/caffe.proto", package=_PACKAGE)
    proto.syntax = "proto2"
    messages = {}
    for name, fields in _schema.MESSAGES.items():
        message = proto.message_type.add(name=name)
        messages[name] = message
        for spec in fields:
            _add_field(message, spec)
    for qualified, values in _schema.ENUMS.items():
        owner, _, enum_name = qualified.rpartition(".")
        container = messages[owner].enum_type if owner else proto.enum_type
        enum = container.add(name=enum_name)
        for value_name, number in values:
            enum.value.add(name=value_name, number=number)
    return proto


# A private pool: another package that registers its own copy of caffe.proto in the
# default pool does not clash with this one.
_pool = descriptor_pool.DescriptorPool()
_file = _pool.Add(_file_descriptor())


def _message_class(name: str) -> Any:
    return message_factory.GetMessageClass(_pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))


BlobShape = _message_class("BlobShape")
BlobProto = _message_class("BlobProto")
BlobProtoVector = _message_class("BlobProtoVector")
FillerParameter = _message_class("FillerParameter")
NetParameter = _message_class("NetParameter")
NetState = _message_class("NetState")
NetStateRule = _message_class("NetStateRule")
ParamSpec = _message_class("ParamSpec")
LayerParameter = _message_class("LayerParameter")
LossParameter = _message_class("LossParameter")
BatchNormParameter = _message_class("BatchNormParameter")
BiasParameter = _message_class("BiasParameter")
ConcatParameter = _message_class("ConcatParameter")
ConvolutionParameter = _message_class("ConvolutionParameter")
DropoutParameter = _message_class("DropoutParameter")
EltwiseParameter = _message_class("EltwiseParameter")
ELUParameter = _message_class("ELUParameter")
FlattenParameter = _message_class("FlattenParameter")
InnerProductParameter = _message_class("InnerProductParameter")
InputParameter = _message_class("InputParameter")
LRNParameter = _message_class("LRNParameter")
PoolingParameter = _message_class("PoolingParameter")
ReLUParameter = _message_class("ReLUParameter")
ReshapeParameter = _message_class("ReshapeParameter")
ScaleParameter = _message_class("ScaleParameter")
SigmoidParameter = _message_class("SigmoidParameter")
SliceParameter = _message_class("SliceParameter")
SoftmaxParameter = _message_class("SoftmaxParameter")
TanHParameter = _message_class("TanHParameter")
V1LayerParameter = _message_class("V1LayerParameter")

# The file-level enum Phase and its values, as protoc's generated module has them.
Phase = _pool.FindEnumTypeByName(f"{_PACKAGE}.Phase")
TRAIN = Phase.values_by_name["TRAIN"].number
TEST = Phase.values_by_name["TEST"].number

__all__ = [
    "TEST",
    "TRAIN",
    "BatchNormParameter",
    "BiasParameter",
    "BlobProto",
    "BlobProtoVector",
    "BlobShape",
    "ConcatParameter",
    "ConvolutionParameter",
    "DropoutParameter",
    "ELUParameter",
    "EltwiseParameter",
    "FillerParameter",
    "FlattenParameter",
    "InnerProductParameter",
    "InputParameter",
    "LRNParameter",
    "LayerParameter",
    "LossParameter",
    "NetParameter",
    "NetState",
    "NetStateRule",
    "ParamSpec",
    "Phase",
    "PoolingParameter",
    "ReLUParameter",
    "ReshapeParameter",
    "ScaleParameter",
    "SigmoidParameter",
    "SliceParameter",
    "SoftmaxParameter",
    "TanHParameter",
    "V1LayerParameter",
]
