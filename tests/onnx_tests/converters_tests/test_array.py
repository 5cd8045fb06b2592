import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
from onnx_chainer.testing import input_generator as gen

X = gen.increasing(2, 3, 4)
IMG = gen.increasing(1, 8, 2, 3)

CASES = {
    "reshape": (lambda x: F.reshape(x, (4, -1)), X),
    "flatten": (F.flatten, X),
    "transpose": (lambda x: F.transpose(x, (1, 2, 0)), X),
    "transpose_default": (F.transpose, X),
    "swapaxes": (lambda x: F.swapaxes(x, 0, 2), X),
    "moveaxis": (lambda x: F.moveaxis(x, 0, -1), X),
    "rollaxis": (lambda x: F.rollaxis(x, 2), X),
    "concat": (lambda x: F.concat((x, x * 2), axis=-1), X),
    "stack": (lambda x: F.stack((x, x * 2), axis=1), X),
    "hstack": (lambda x: F.hstack((x, x * 2)), X),
    "vstack_1d": (lambda x: F.vstack((x[0, 0], x[1, 1])), X),
    "dstack_2d": (lambda x: F.dstack((x[0], x[1])), X),
    "squeeze": (lambda x: F.squeeze(x[:, :1]), X),
    "squeeze_axis": (lambda x: F.squeeze(x[:1, :1], axis=1), X),
    "expand_dims": (lambda x: F.expand_dims(x, -1), X),
    "broadcast_to": (lambda x: F.broadcast_to(x[:, :1], (2, 3, 4)), X),
    "cast": (lambda x: F.cast(x, numpy.float64), X),
    "copy": (lambda x: F.copy(x, -1), X),
    "split_axis": (lambda x: F.split_axis(x, [1, 3], axis=2), X),
    "split_axis_sections": (lambda x: F.split_axis(x, 3, axis=1), X),
    "separate": (lambda x: F.separate(x, axis=1), X),
    "tile": (lambda x: F.tile(x, (2, 1, 2)), X),
    "tile_more_axes": (lambda x: F.tile(x, (2, 1, 1, 2)), X),
    "repeat": (lambda x: F.repeat(x, 2, axis=1), X),
    "repeat_list": (lambda x: F.repeat(x, [1, 0, 3], axis=1), X),
    "repeat_flat": (lambda x: F.repeat(x, 2), X),
    "pad_constant": (lambda x: F.pad(x, ((0, 0), (1, 2), (2, 1)), "constant", constant_values=0.5), X),
    "pad_reflect": (lambda x: F.pad(x, ((0, 0), (1, 1), (2, 0)), "reflect"), X),
    "pad_edge": (lambda x: F.pad(x, 1, "edge"), X),
    "getitem_int": (lambda x: x[1], X),
    "getitem_slices": (lambda x: x[:, 1:3, ::2], X),
    "getitem_negative_step": (lambda x: x[::-1, :, 3:0:-2], X),
    "getitem_ellipsis_none": (lambda x: x[..., None, -1], X),
    "getitem_index_array": (lambda x: x[:, [2, 0, 2]], X),
    "getitem_index_array_2d": (lambda x: x[:, :, numpy.array([[0, 1], [3, 3]])], X),
    "depth2space": (lambda x: F.depth2space(x, 2), IMG),
    "space2depth": (lambda x: F.space2depth(F.depth2space(x, 2), 2), IMG),
    "flip": (lambda x: F.flip(x, 2), X),
    "fliplr": (F.fliplr, X),
    "flipud": (F.flipud, X),
    "permutate": (lambda x: F.permutate(x, numpy.array([2, 0, 1], numpy.int32), axis=1), X),
    "permutate_inv": (lambda x: F.permutate(x, numpy.array([2, 0, 1], numpy.int32), axis=1, inv=True), X),
    "resize_bilinear": (lambda x: F.resize_images(x, (5, 4)), IMG),
    "resize_bilinear_no_align": (lambda x: F.resize_images(x, (5, 7), align_corners=False), IMG),
    "resize_nearest": (lambda x: F.resize_images(x, (5, 7), mode="nearest"), IMG),
}
NEEDS = {
    "getitem_slices": 10,
    "getitem_negative_step": 10,
    "flip": 10,
    "fliplr": 10,
    "flipud": 10,
    "resize_bilinear": 11,
    "resize_bilinear_no_align": 11,
    "resize_nearest": 11,
    "broadcast_to": 8,
}


@pytest.mark.parametrize("opset", [7, 11, 13, 26])
@pytest.mark.parametrize("case", sorted(CASES))
def test_array(case, opset, check_export, wrap):
    fn, x = CASES[case]
    model = wrap(lambda m, x: fn(x))
    if opset < NEEDS.get(case, 0):
        import onnx_chainer

        with pytest.raises(ValueError, match=f"needs opset_version >= {NEEDS[case]}"):
            onnx_chainer.export(model, x, opset_version=opset)
        return
    check_export(model, x, opset_version=opset, rtol=1e-5, atol=1e-6)
