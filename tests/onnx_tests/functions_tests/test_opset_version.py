import pytest

pytest.importorskip("onnx")

from onnx_chainer.functions.opset_version import support


class Node:
    pass


def _converter():
    @support((7, 9, 13))
    def convert(func, opset_version, input_names, output_names, context):
        return opset_version

    return convert


@pytest.mark.parametrize("requested, given", [(7, 7), (8, 7), (9, 9), (12, 9), (13, 13), (26, 13)])
def test_the_newest_listed_version_not_newer_than_the_requested_one(requested, given):
    assert _converter()(Node(), requested, [], [], None) == given


def test_older_than_every_version_is_an_error():
    with pytest.raises(ValueError, match=r"Node .* opset_version=6; its ONNX operators need opset 7 or newer"):
        _converter()(Node(), 6, [], [], None)


def test_versions_must_be_positive():
    with pytest.raises(ValueError, match="expected positive opset versions"):
        support(())
    with pytest.raises(ValueError, match="expected positive opset versions"):
        support((0, 3))
